package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PathElement is one level of an inclusion path: the siblings of the node in
// order, the node itself left out, and the node's position in its group.
type PathElement[N any] struct {
	Hashes []N
	Index  int
}

// Proof is an inclusion proof for Leaf under Root, with Path running from the
// leaf level to the root. Its level arities are len(Hashes)+1.
type Proof[N any] struct {
	Leaf N
	Root N
	Path []PathElement[N]
}

// PoseidonProof is a proof in a Poseidon tree (tree_c, tree_r_last).
type PoseidonProof = Proof[fr.Element]

// Sha254Proof is a proof in the SHA-254 binary tree (tree_d).
type Sha254Proof = Proof[[32]byte]

// LeafIndex is the leaf number the path proves: each level's index weighted by
// the product of the arities below it.
func (p *Proof[N]) LeafIndex() uint64 {
	var idx, weight uint64 = 0, 1
	for _, e := range p.Path {
		idx += uint64(e.Index) * weight
		weight *= uint64(len(e.Hashes) + 1)
	}
	return idx
}

// Split returns the path parts rust-fil-proofs keeps apart for a shape:
// base_proof, then sub_proof and top_proof (one element each, or nil when the
// shape has no such level). The parts alias p.Path.
func (p *Proof[N]) Split(s Shape) (base, sub, top []PathElement[N]) {
	n := len(p.Path)
	if s.Top > 0 && n > 0 {
		top, n = p.Path[n-1:], n-1
	}
	if s.Sub > 0 && n > 0 {
		sub, n = p.Path[n-1:n], n-1
	}
	return p.Path[:n], sub, top
}

// checkStructure verifies the path has one element per level of arities, the
// right number of siblings and an index inside each group.
func checkStructure[N any](p *Proof[N], arities []int) error {
	if len(p.Path) != len(arities) {
		return fmt.Errorf("path has %d levels, tree has %d: %w", len(p.Path), len(arities), ErrMalformedProof)
	}
	for l, e := range p.Path {
		a := arities[l]
		if len(e.Hashes) != a-1 {
			return fmt.Errorf("level %d has %d siblings, arity is %d: %w", l, len(e.Hashes), a, ErrMalformedProof)
		}
		if e.Index < 0 || e.Index >= a {
			return fmt.Errorf("level %d index %d outside arity %d: %w", l, e.Index, a, ErrMalformedProof)
		}
	}
	return nil
}

// computeRoot folds the path from the leaf up. node hashes one full group;
// buf must hold the largest arity.
func computeRoot[N any](p *Proof[N], buf []N, node func(children []N) N) N {
	cur := p.Leaf
	for _, e := range p.Path {
		a := len(e.Hashes) + 1
		children := buf[:a]
		copy(children, e.Hashes[:e.Index])
		children[e.Index] = cur
		copy(children[e.Index+1:], e.Hashes[e.Index:])
		cur = node(children)
	}
	return cur
}
