package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
)

// PoseidonTree is a Filecoin Poseidon Merkle tree of any [Shape]; a node of
// arity a is hash.Poseidon(a).Hash(children) (PoseidonFunction::multi_node).
type PoseidonTree struct {
	shape Shape
	t     *levels[fr.Element]
}

// poseidonMinPerWorker keeps goroutines busy for at least ~1 ms each.
const poseidonMinPerWorker = 32

// BuildPoseidon builds a tree of shape over leaves with up to workers
// goroutines (workers < 1 means 1). The tree keeps leaves, which must not be
// modified afterwards. The leaf count must fit the shape (ErrLeafCount).
func BuildPoseidon(shape Shape, leaves []fr.Element, workers int) (*PoseidonTree, error) {
	arities, err := poseidonArities(shape, len(leaves))
	if err != nil {
		return nil, err
	}
	t := buildLevels(arities, leaves, workers, poseidonMinPerWorker, func(a int, dst, src []fr.Element) {
		p := hash.Poseidon(a)
		for i := range dst {
			dst[i] = p.Hash(src[i*a : i*a+a])
		}
	})
	return &PoseidonTree{shape: shape, t: t}, nil
}

func poseidonArities(shape Shape, leaves int) ([]int, error) {
	arities, err := shape.Arities(leaves)
	if err != nil {
		return nil, err
	}
	for _, a := range [...]int{shape.Base, shape.Sub, shape.Top} {
		if a == 0 {
			continue
		}
		if _, err := hash.LookupPoseidon(a); err != nil {
			return nil, fmt.Errorf("shape %s: %w: %w", shape, ErrShape, err)
		}
	}
	return arities, nil
}

// Root is the tree's root (comm_c or comm_r_last).
func (t *PoseidonTree) Root() fr.Element { return t.t.root() }

// Shape is the shape the tree was built with.
func (t *PoseidonTree) Shape() Shape { return t.shape }

// NumLeaves is the number of leaves.
func (t *PoseidonTree) NumLeaves() int { return len(t.t.nodes[0]) }

// Arities lists the arity of each level from the leaves up.
func (t *PoseidonTree) Arities() []int { return append([]int(nil), t.t.arities...) }

// Level returns the nodes of level l, 0 being the leaves and len(Arities())
// the root. The slice is the tree's own storage: read it, never modify it.
func (t *PoseidonTree) Level(l int) []fr.Element { return t.t.nodes[l] }

// Prove returns the inclusion proof of leaf i.
func (t *PoseidonTree) Prove(i int) (*PoseidonProof, error) { return t.t.prove(i) }

// VerifyPoseidon checks that p proves a leaf of a tree of shape with leaves
// leaves: the path must have that tree's structure (ErrMalformedProof) and
// must hash up to p.Root (ErrRootMismatch).
func VerifyPoseidon(p *PoseidonProof, shape Shape, leaves int) error {
	arities, err := poseidonArities(shape, leaves)
	if err != nil {
		return err
	}
	if err := checkStructure(p, arities); err != nil {
		return err
	}
	var buf [hash.MaxPoseidonArity]fr.Element
	root := computeRoot(p, buf[:], func(children []fr.Element) fr.Element {
		return hash.Poseidon(len(children)).Hash(children)
	})
	if root != p.Root {
		return fmt.Errorf("leaf %d: %w", p.LeafIndex(), ErrRootMismatch)
	}
	return nil
}
