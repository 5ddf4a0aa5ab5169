package merkle

import (
	"errors"
	"fmt"
	"math/bits"
)

var (
	// ErrShape is returned when a tree shape has an arity upstream cannot
	// build (see [Shape.Validate]).
	ErrShape = errors.New("merkle: invalid tree shape")
	// ErrLeafCount is returned when a leaf count does not fit the tree shape.
	ErrLeafCount = errors.New("merkle: leaf count does not fit the tree shape")
	// ErrIndex is returned when a leaf index lies outside the tree.
	ErrIndex = errors.New("merkle: leaf index out of range")
	// ErrMalformedProof is returned when a proof's structure does not match
	// the tree it claims to belong to.
	ErrMalformedProof = errors.New("merkle: malformed proof")
	// ErrRootMismatch is returned when a well-formed proof's recomputed root
	// is not the proof's root.
	ErrRootMismatch = errors.New("merkle: proof does not lead to its root")
)

// Shape is a compound tree shape, rust-fil-proofs' LCTree<H, U, V, W> and
// MerkleTreeTrait arities: Base for every level of each base tree, then
// optionally one Sub level and one Top level joining the base trees (0 when
// absent). It is the one tree-shape type of cuzk: the native trees here, the
// PoR gadget (gadgets.PoR) and the sector table (filecoin) all use it. It
// prints as upstream's "8-8-0".
type Shape struct {
	Base, Sub, Top int
}

// Filecoin PoRep tree_c / tree_r_last shapes (filecoin-proofs constants.rs,
// SectorShapeBase/Sub2/Sub8/Top2).
var (
	ShapeBase = Shape{Base: 8}                 // 2 KiB, 8 MiB, 512 MiB: 8-0-0
	ShapeSub2 = Shape{Base: 8, Sub: 2}         // 4 KiB, 16 MiB, 1 GiB: 8-2-0
	ShapeSub8 = Shape{Base: 8, Sub: 8}         // 16 KiB, 32 GiB: 8-8-0
	ShapeTop2 = Shape{Base: 8, Sub: 8, Top: 2} // 32 KiB, 64 GiB: 8-8-2
	// ShapeBinary is tree_d's shape.
	ShapeBinary = Shape{Base: 2}
)

// String returns "base-sub-top", the suffix of upstream's merkletree display.
func (s Shape) String() string { return fmt.Sprintf("%d-%d-%d", s.Base, s.Sub, s.Top) }

func isPow2(a int) bool { return a >= 2 && a&(a-1) == 0 }

// Validate checks that the arities are ones upstream can build: powers of two
// of at least 2 (merkletree requires that of the base, and the PoR circuit
// takes log2(arity) index bits at every level), and a top level only above a
// sub level. It fails with ErrShape.
func (s Shape) Validate() error {
	switch {
	case !isPow2(s.Base):
		return fmt.Errorf("shape %s: base arity must be a power of two >= 2: %w", s, ErrShape)
	case s.Sub != 0 && !isPow2(s.Sub), s.Top != 0 && !isPow2(s.Top):
		return fmt.Errorf("shape %s: sub/top arity must be 0 or a power of two >= 2: %w", s, ErrShape)
	case s.Top != 0 && s.Sub == 0:
		return fmt.Errorf("shape %s: a top level needs a sub level: %w", s, ErrShape)
	}
	return nil
}

// BaseTreeCount is the number of base trees a compound tree is made of
// (get_base_tree_count).
func (s Shape) BaseTreeCount() int {
	n := 1
	if s.Sub > 0 {
		n *= s.Sub
	}
	if s.Top > 0 {
		n *= s.Top
	}
	return n
}

// joinLevels is the number of levels above the base trees (0, 1 or 2).
func (s Shape) joinLevels() int {
	n := 0
	if s.Sub != 0 {
		n++
	}
	if s.Top != 0 {
		n++
	}
	return n
}

// Arities returns the arity of every level of a tree over leaves leaves, from
// the leaves to the root. It fails with ErrShape for an invalid shape and with
// ErrLeafCount unless leaves is BaseTreeCount() times Base^k for some k >= 1.
func (s Shape) Arities(leaves int) ([]int, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := s.BaseTreeCount()
	if leaves <= 0 || leaves%n != 0 {
		return nil, fmt.Errorf("%d leaves in shape %s (%d base trees): %w", leaves, s, n, ErrLeafCount)
	}
	per := leaves / n
	step := bits.TrailingZeros(uint(s.Base))
	depth := bits.TrailingZeros(uint(per))
	if per&(per-1) != 0 || depth == 0 || depth%step != 0 {
		return nil, fmt.Errorf("%d leaves per base tree is not a power of %d: %w", per, s.Base, ErrLeafCount)
	}
	return s.appendArities(make([]int, 0, depth/step+2), depth/step), nil
}

// AppendPathArities appends to dst the arity of each level of an inclusion
// path with pathLen elements, leaf to root: Base for all but the last one or
// two, then Sub and Top where present. It fails with ErrShape for an invalid
// shape and with ErrMalformedProof for a path too short to hold the sub and
// top levels. It lets a caller that knows only the path (the PoR circuit)
// reuse one buffer.
func (s Shape) AppendPathArities(dst []int, pathLen int) ([]int, error) {
	if err := s.Validate(); err != nil {
		return dst, err
	}
	if pathLen < s.joinLevels() {
		return dst, fmt.Errorf("%d path elements for tree shape %s: %w", pathLen, s, ErrMalformedProof)
	}
	return s.appendArities(dst, pathLen-s.joinLevels()), nil
}

func (s Shape) appendArities(dst []int, baseLevels int) []int {
	for range baseLevels {
		dst = append(dst, s.Base)
	}
	if s.Sub != 0 {
		dst = append(dst, s.Sub)
	}
	if s.Top != 0 {
		dst = append(dst, s.Top)
	}
	return dst
}
