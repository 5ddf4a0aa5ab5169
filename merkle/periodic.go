package merkle

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/internal/par"
)

// PeriodicPoseidonTree is a Poseidon tree of any [Shape] whose leaf i
// depends only on its range, i / RangeLeaves, and on i mod Period: the
// tree_r_new of a SnapDeals update made without sealing (snap/snapgen),
// where a uniform old replica plus data repeating every Period nodes,
// times one ρ per range of high bits, gives such leaves. Period is the
// span of a whole subtree, so below the Period level every range holds
// Period/span distinct nodes per level, between the Period level and the
// range every node of a range is the same, and above the range the few
// nodes are all kept: a 2^31-leaf tree costs about ranges × Period / 7
// hashes. Its proofs are ordinary inclusion proofs.
type PeriodicPoseidonTree struct {
	shape   Shape
	arities []int
	span    []int // span[l]: the leaves below one node of level l
	leaves  int
	period  int
	rng     int
	// vals[l][key(l, i)] is node i of level l.
	vals [][]fr.Element
}

// BuildPeriodicPoseidon builds the tree of shape over leaves leaves whose
// leaf i is leaf(i / rangeLeaves, i mod period). rangeLeaves must divide
// leaves, period must divide rangeLeaves and be the span of a level of the
// tree (a power of the base arity within the base trees); otherwise the
// error wraps ErrLeafCount. leaf is called once per (range, offset), from
// up to workers goroutines.
func BuildPeriodicPoseidon(shape Shape, leaves, rangeLeaves, period int, leaf func(rng, offset int) fr.Element, workers int) (*PeriodicPoseidonTree, error) {
	arities, err := poseidonArities(shape, leaves)
	if err != nil {
		return nil, err
	}
	span := make([]int, len(arities)+1)
	span[0] = 1
	for l, a := range arities {
		span[l+1] = span[l] * a
	}
	switch {
	case rangeLeaves < 1 || leaves%rangeLeaves != 0:
		return nil, fmt.Errorf("ranges of %d leaves in a tree of %d: %w", rangeLeaves, leaves, ErrLeafCount)
	case period < 1 || rangeLeaves%period != 0:
		return nil, fmt.Errorf("period %d does not divide the range of %d leaves: %w", period, rangeLeaves, ErrLeafCount)
	case !slices.Contains(span, period):
		return nil, fmt.Errorf("period %d is not the span of a level of a %s tree (spans %v): %w", period, shape, span, ErrLeafCount)
	}
	t := &PeriodicPoseidonTree{shape: shape, arities: arities, span: span, leaves: leaves, period: period, rng: rangeLeaves,
		vals: make([][]fr.Element, len(arities)+1)}
	workers = max(workers, 1)
	t.vals[0] = make([]fr.Element, t.count(0))
	par.Chunks(len(t.vals[0]), period, workers, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			t.vals[0][k] = leaf(k/period, k%period)
		}
	})
	for l, a := range arities {
		dst := make([]fr.Element, t.count(l+1))
		par.Chunks(len(dst), poseidonMinPerWorker, workers, func(lo, hi int) {
			p := hash.Poseidon(a)
			buf := make([]fr.Element, a)
			for key := lo; key < hi; key++ {
				first := t.representative(l+1, key) * a
				for c := range buf {
					buf[c] = t.vals[l][t.key(l, first+c)]
				}
				dst[key] = p.Hash(buf)
			}
		})
		t.vals[l+1] = dst
	}
	return t, nil
}

// count is the number of distinct nodes kept for level l.
func (t *PeriodicPoseidonTree) count(l int) int {
	ranges := t.leaves / t.rng
	switch s := t.span[l]; {
	case s <= t.period:
		return ranges * (t.period / s)
	case s <= t.rng:
		return ranges
	default:
		return t.leaves / s
	}
}

// key is where node i of level l is kept: by range and offset within the
// period below the period's level, by range up to the range's level, by
// itself above.
func (t *PeriodicPoseidonTree) key(l, i int) int {
	s := t.span[l]
	start := i * s
	switch {
	case s <= t.period:
		return start/t.rng*(t.period/s) + start%t.period/s
	case s <= t.rng:
		return start / t.rng
	default:
		return i
	}
}

// representative is a node of level l kept under key.
func (t *PeriodicPoseidonTree) representative(l, key int) int {
	s := t.span[l]
	switch {
	case s <= t.period:
		per := t.period / s
		return (key/per*t.rng + key%per*s) / s
	case s <= t.rng:
		return key * t.rng / s
	default:
		return key
	}
}

func (t *PeriodicPoseidonTree) at(l, i int) fr.Element { return t.vals[l][t.key(l, i)] }

// Root is the tree's root.
func (t *PeriodicPoseidonTree) Root() fr.Element { return t.vals[len(t.arities)][0] }

// NumLeaves is the number of leaves.
func (t *PeriodicPoseidonTree) NumLeaves() int { return t.leaves }

// Shape is the shape the tree was built with.
func (t *PeriodicPoseidonTree) Shape() Shape { return t.shape }

// Kept is the number of distinct nodes the tree keeps, over all levels.
func (t *PeriodicPoseidonTree) Kept() int {
	n := 0
	for _, v := range t.vals {
		n += len(v)
	}
	return n
}

// Prove returns the inclusion proof of leaf i.
func (t *PeriodicPoseidonTree) Prove(i int) (*PoseidonProof, error) {
	return proveAt(t.arities, t.leaves, i, t.at)
}
