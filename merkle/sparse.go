package merkle

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
)

// sparseLevels is a tree in which every node not derived from a set leaf
// equals the default of its level, so a tree of 2^31 leaves with a few
// thousand set ones costs a few thousand hashes per level. It is how full-size
// inputs are made without sealing (porep/c1gen): the proofs it gives are
// ordinary inclusion proofs that any verifier accepts.
type sparseLevels[N any] struct {
	arities  []int
	leaves   int
	defaults []N         // defaults[l]: an untouched node of level l
	nodes    []map[int]N // nodes[l]: the nodes of level l above a set leaf
}

func buildSparse[N any](arities []int, leaves int, def N, set map[int]N, node func(children []N) N) (*sparseLevels[N], error) {
	t := &sparseLevels[N]{arities: arities, leaves: leaves, defaults: make([]N, len(arities)+1), nodes: make([]map[int]N, len(arities)+1)}
	t.defaults[0] = def
	maxArity := slices.Max(arities)
	buf := make([]N, maxArity)
	for l, a := range arities {
		for k := range a {
			buf[k] = t.defaults[l]
		}
		t.defaults[l+1] = node(buf[:a])
	}
	t.nodes[0] = make(map[int]N, len(set))
	for i, v := range set {
		if i < 0 || i >= leaves {
			return nil, fmt.Errorf("set leaf %d of %d: %w", i, leaves, ErrIndex)
		}
		t.nodes[0][i] = v
	}
	for l, a := range arities {
		parents := make(map[int]N, len(t.nodes[l]))
		for i := range t.nodes[l] {
			p := i / a
			if _, done := parents[p]; done {
				continue
			}
			for k := range a {
				buf[k] = t.at(l, p*a+k)
			}
			parents[p] = node(buf[:a])
		}
		t.nodes[l+1] = parents
	}
	return t, nil
}

func (t *sparseLevels[N]) at(l, i int) N {
	if v, ok := t.nodes[l][i]; ok {
		return v
	}
	return t.defaults[l]
}

func (t *sparseLevels[N]) root() N { return t.at(len(t.arities), 0) }

func (t *sparseLevels[N]) prove(i int) (*Proof[N], error) {
	return proveAt(t.arities, t.leaves, i, t.at)
}

// proveAt is the inclusion proof of leaf i in a tree of arities over leaves
// leaves whose node i of level l is at(l, i): the trees that keep only some
// nodes (sparse, periodic) prove through it.
func proveAt[N any](arities []int, leaves, i int, at func(l, i int) N) (*Proof[N], error) {
	if i < 0 || i >= leaves {
		return nil, fmt.Errorf("leaf %d of %d: %w", i, leaves, ErrIndex)
	}
	p := &Proof[N]{Leaf: at(0, i), Root: at(len(arities), 0), Path: make([]PathElement[N], len(arities))}
	idx := i
	for l, a := range arities {
		first := idx / a * a
		hashes := make([]N, 0, a-1)
		for k := first; k < first+a; k++ {
			if k != idx {
				hashes = append(hashes, at(l, k))
			}
		}
		p.Path[l] = PathElement[N]{Hashes: hashes, Index: idx - first}
		idx /= a
	}
	return p, nil
}

// SparsePoseidonTree is a Poseidon tree of any [Shape] whose leaves all equal
// one default value except a chosen few (tree_c and tree_r_last of an input
// made without sealing). It keeps only the nodes above the set leaves.
type SparsePoseidonTree struct {
	shape Shape
	t     *sparseLevels[fr.Element]
}

// BuildSparsePoseidon builds the tree of shape over leaves leaves, leaf i
// being set[i] where present and def elsewhere. leaves must fit the shape
// (ErrLeafCount); a set index outside the tree fails with ErrIndex.
func BuildSparsePoseidon(shape Shape, leaves int, def fr.Element, set map[int]fr.Element) (*SparsePoseidonTree, error) {
	arities, err := poseidonArities(shape, leaves)
	if err != nil {
		return nil, err
	}
	t, err := buildSparse(arities, leaves, def, set, func(c []fr.Element) fr.Element { return hash.Poseidon(len(c)).Hash(c) })
	if err != nil {
		return nil, err
	}
	return &SparsePoseidonTree{shape: shape, t: t}, nil
}

// Root is the tree's root.
func (t *SparsePoseidonTree) Root() fr.Element { return t.t.root() }

// NumLeaves is the number of leaves.
func (t *SparsePoseidonTree) NumLeaves() int { return t.t.leaves }

// Shape is the shape the tree was built with.
func (t *SparsePoseidonTree) Shape() Shape { return t.shape }

// Prove returns the inclusion proof of leaf i, set or not.
func (t *SparsePoseidonTree) Prove(i int) (*PoseidonProof, error) { return t.t.prove(i) }

// RepeatedSha254Tree is the binary SHA-254 tree over data that repeats one
// block of a power-of-two number of nodes to fill the tree: the tree_d of a
// sector whose pieces are all the same block. Every subtree the size of the
// block is that block's tree, so only the block and one node per level above
// it are kept.
type RepeatedSha254Tree struct {
	block  *Sha254Tree
	leaves int
	above  [][32]byte // above[k]: a node k levels above the block roots
}

// BuildRepeatedSha254 builds the tree of leaves leaves (a power of two) made
// of block (a power of two of at least 2 nodes, at most leaves) repeated.
func BuildRepeatedSha254(block [][32]byte, leaves, workers int) (*RepeatedSha254Tree, error) {
	if _, err := ShapeBinary.Arities(leaves); err != nil {
		return nil, err
	}
	if len(block) > leaves || leaves%max(len(block), 1) != 0 {
		return nil, fmt.Errorf("block of %d nodes in a tree of %d leaves: %w", len(block), leaves, ErrLeafCount)
	}
	bt, err := BuildSha254(block, workers)
	if err != nil {
		return nil, err
	}
	t := &RepeatedSha254Tree{block: bt, leaves: leaves, above: [][32]byte{bt.Root()}}
	for n := len(block); n < leaves; n *= 2 {
		top := t.above[len(t.above)-1]
		t.above = append(t.above, hash.Sha254Pair(&top, &top))
	}
	return t, nil
}

// Root is the tree's root (comm_d).
func (t *RepeatedSha254Tree) Root() [32]byte { return t.above[len(t.above)-1] }

// NumLeaves is the number of leaves.
func (t *RepeatedSha254Tree) NumLeaves() int { return t.leaves }

// Leaf is leaf i: block node i mod the block size.
func (t *RepeatedSha254Tree) Leaf(i int) [32]byte { return t.block.Level(0)[i%t.block.NumLeaves()] }

// Node is node i of the row h levels above the leaves (0: the leaves).
func (t *RepeatedSha254Tree) Node(h, i int) ([32]byte, error) {
	depth := len(t.above) - 1 + t.block.Depth()
	if h < 0 || h > depth || i < 0 || i >= t.leaves>>h {
		return [32]byte{}, fmt.Errorf("node %d of row %d in a tree of %d leaves: %w", i, h, t.leaves, ErrIndex)
	}
	if h <= t.block.Depth() {
		row := t.block.Level(h)
		return row[i%len(row)], nil
	}
	return t.above[h-t.block.Depth()], nil
}

// Prove returns the inclusion proof of leaf i.
func (t *RepeatedSha254Tree) Prove(i int) (*Sha254Proof, error) {
	if i < 0 || i >= t.leaves {
		return nil, fmt.Errorf("leaf %d of %d: %w", i, t.leaves, ErrIndex)
	}
	n := t.block.NumLeaves()
	p, err := t.block.Prove(i % n)
	if err != nil {
		return nil, err
	}
	p.Root = t.Root()
	idx := i / n
	for k := range len(t.above) - 1 {
		p.Path = append(p.Path, PathElement[[32]byte]{Hashes: [][32]byte{t.above[k]}, Index: idx & 1})
		idx >>= 1
	}
	return p, nil
}
