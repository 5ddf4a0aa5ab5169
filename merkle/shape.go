package merkle

import (
	"errors"
	"fmt"
	"math/bits"
)

var (
	// ErrShape reports an impossible tree shape.
	ErrShape = errors.New("merkle: invalid tree shape")
	// ErrLeafCount reports a leaf count that the shape cannot hold.
	ErrLeafCount = errors.New("merkle: leaf count does not fit the tree shape")
	// ErrIndex reports a leaf index outside the tree.
	ErrIndex = errors.New("merkle: leaf index out of range")
	// ErrMalformedProof reports a proof whose structure does not match the
	// tree it claims to belong to.
	ErrMalformedProof = errors.New("merkle: malformed proof")
	// ErrRootMismatch reports a well-formed proof whose recomputed root is not
	// the proof's root.
	ErrRootMismatch = errors.New("merkle: proof does not lead to its root")
)

// Shape is a compound tree shape: the base arity and the optional sub- and
// top-tree arities (0 when absent), as in rust-fil-proofs' LCTree<H, U, V, W>.
type Shape struct {
	Base, Sub, Top int
}

// Filecoin PoRep tree_c / tree_r_last shapes (filecoin-proofs constants.rs).
var (
	ShapeBase = Shape{Base: 8}                 // 2 KiB, 8 MiB, 512 MiB: 8-0-0
	ShapeSub8 = Shape{Base: 8, Sub: 8}         // 32 GiB: 8-8-0
	ShapeTop2 = Shape{Base: 8, Sub: 8, Top: 2} // 64 GiB: 8-8-2
	// ShapeBinary is tree_d's shape.
	ShapeBinary = Shape{Base: 2}
)

func (s Shape) String() string { return fmt.Sprintf("%d-%d-%d", s.Base, s.Sub, s.Top) }

// Validate checks that the arities are ones upstream can build: powers of two
// of at least 2 (merkletree requires that of the base), and a top level only
// above a sub level.
func (s Shape) Validate() error {
	pow2 := func(a int) bool { return a >= 2 && a&(a-1) == 0 }
	switch {
	case !pow2(s.Base):
		return fmt.Errorf("shape %s: base arity must be a power of two >= 2: %w", s, ErrShape)
	case s.Sub != 0 && s.Sub < 2, s.Top != 0 && s.Top < 2, s.Sub < 0, s.Top < 0:
		return fmt.Errorf("shape %s: sub/top arity must be 0 or >= 2: %w", s, ErrShape)
	case s.Top != 0 && s.Sub == 0:
		return fmt.Errorf("shape %s: a top level needs a sub level: %w", s, ErrShape)
	}
	return nil
}

// BaseTreeCount is the number of base trees a compound tree is made of.
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

// Arities returns the arity of every level of a tree over leaves leaves, from
// the leaves to the root. It fails with ErrLeafCount unless leaves is
// BaseTreeCount() times Base^k for some k >= 1.
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
	ar := make([]int, 0, depth/step+2)
	for range depth / step {
		ar = append(ar, s.Base)
	}
	if s.Sub > 0 {
		ar = append(ar, s.Sub)
	}
	if s.Top > 0 {
		ar = append(ar, s.Top)
	}
	return ar, nil
}
