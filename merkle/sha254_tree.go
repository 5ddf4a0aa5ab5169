package merkle

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/hash"
)

// Sha254Tree is the binary SHA-254 tree over 32-byte nodes (tree_d, whose root
// is comm_d): node = Sha254(left || right). Leaves are the fr32-padded sector
// data in 32-byte nodes; they are hashed as bytes and not checked for
// canonicity, as upstream.
type Sha254Tree struct {
	t *levels[[32]byte]
}

// sha254MinPerWorker: one pair hash is ~0.2 µs, so hand out big ranges.
const sha254MinPerWorker = 4096

// BuildSha254 builds the tree over leaves (a power of two, at least 2) with up
// to workers goroutines. The tree keeps leaves, which must not be modified.
func BuildSha254(leaves [][32]byte, workers int) (*Sha254Tree, error) {
	arities, err := ShapeBinary.Arities(len(leaves))
	if err != nil {
		return nil, err
	}
	t := buildLevels(arities, leaves, workers, sha254MinPerWorker, func(_ int, dst, src [][32]byte) {
		for i := range dst {
			dst[i] = hash.Sha254Pair(&src[2*i], &src[2*i+1])
		}
	})
	return &Sha254Tree{t: t}, nil
}

// Sha254Leaves copies data (a whole number of 32-byte nodes) into leaves.
func Sha254Leaves(data []byte) ([][32]byte, error) {
	if len(data)%32 != 0 {
		return nil, fmt.Errorf("%d data bytes are not whole 32-byte nodes: %w", len(data), ErrLeafCount)
	}
	leaves := make([][32]byte, len(data)/32)
	for i := range leaves {
		copy(leaves[i][:], data[32*i:])
	}
	return leaves, nil
}

// Root is the tree's root (comm_d).
func (t *Sha254Tree) Root() [32]byte { return t.t.root() }

// NumLeaves is the number of leaves.
func (t *Sha254Tree) NumLeaves() int { return len(t.t.nodes[0]) }

// Depth is the number of levels above the leaves.
func (t *Sha254Tree) Depth() int { return len(t.t.arities) }

// Level returns the nodes of level l, 0 being the leaves and Depth() the
// root. The slice is the tree's own storage: read it, never modify it.
func (t *Sha254Tree) Level(l int) [][32]byte { return t.t.nodes[l] }

// Prove returns the inclusion proof of leaf i.
func (t *Sha254Tree) Prove(i int) (*Sha254Proof, error) { return t.t.prove(i) }

// VerifySha254 checks that p proves a leaf of a binary SHA-254 tree with
// leaves leaves (ErrMalformedProof) and hashes up to p.Root (ErrRootMismatch).
func VerifySha254(p *Sha254Proof, leaves int) error {
	arities, err := ShapeBinary.Arities(leaves)
	if err != nil {
		return err
	}
	if err := checkStructure(p, arities); err != nil {
		return err
	}
	var buf [2][32]byte
	root := computeRoot(p, buf[:], func(c [][32]byte) [32]byte { return hash.Sha254Pair(&c[0], &c[1]) })
	if root != p.Root {
		return fmt.Errorf("leaf %d: %w", p.LeafIndex(), ErrRootMismatch)
	}
	return nil
}

// EmptySha254Root is the root of a depth-level binary SHA-254 tree whose
// leaves are all zero: comm_d of an empty sector of 32·2^depth bytes. It is
// computed by doubling one node per level, never by building the tree.
func EmptySha254Root(depth int) [32]byte {
	var n [32]byte
	for range depth {
		n = hash.Sha254Pair(&n, &n)
	}
	return n
}
