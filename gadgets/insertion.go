package gadgets

import (
	"errors"
	"fmt"

	"github.com/cuzk-dev/cuzk/r1cs"
)

var (
	// ErrArity is returned when a gadget is asked for an arity it cannot
	// handle (or a PoR for an invalid tree shape).
	ErrArity = errors.New("gadgets: unsupported arity")
	// ErrInsertBits is returned when insertion bits are not plain allocated
	// bits (arity 8 requires Is bits, as upstream asserts).
	ErrInsertBits = errors.New("gadgets: insertion bits must be allocated and not negated")
)

// Insert is rust-fil-proofs insertion::insert: it places element among
// elements at the position given by bits (least significant first) and
// appends the len(elements)+1 results to dst. Arities 2, 4 and 8 use the
// hand-written networks (2, 8 and 22 rows); other powers of two use one
// select per position (size·(size−1) rows).
func Insert(cs *r1cs.CS, dst []AllocatedNum, element AllocatedNum, bits []Boolean, elements []AllocatedNum) ([]AllocatedNum, error) {
	size := len(elements) + 1
	if len(bits) >= 31 || 1<<len(bits) != size {
		return dst, fmt.Errorf("insert %d elements with %d bits: %w", size, len(bits), ErrArity)
	}
	switch size {
	case 2:
		return insert2(cs, dst, element, bits, elements), nil
	case 4:
		return insert4(cs, dst, element, bits, elements), nil
	case 8:
		return insert8(cs, dst, element, bits, elements)
	}
	choices := make([]AllocatedNum, size)
	for pos := 0; pos < size; pos++ {
		// Potential result at pos when the element sits at index:
		// elements[pos] if index > pos, element if index == pos,
		// elements[pos-1] if index < pos.
		for index := 0; index < size; index++ {
			switch {
			case index > pos:
				choices[index] = elements[pos]
			case index == pos:
				choices[index] = element
			default:
				choices[index] = elements[pos-1]
			}
		}
		dst = append(dst, Select(cs, choices, bits))
	}
	return dst, nil
}

// Select is rust-fil-proofs insertion::select: from[index(bits)] through a
// tree of picks, most significant bit first. It panics unless
// len(from) == 2^len(bits); from is overwritten.
func Select(cs *r1cs.CS, from []AllocatedNum, bits []Boolean) AllocatedNum {
	if 1<<len(bits) != len(from) {
		panic(fmt.Sprintf("gadgets: select from %d with %d bits", len(from), len(bits)))
	}
	state := from
	half := len(from) / 2
	for i := len(bits) - 1; i >= 0; i-- {
		for j := 0; j < half; j++ {
			state[j] = Pick(cs, bits[i], state[half+j], state[j])
		}
		state = state[:half]
		half /= 2
	}
	return state[0]
}

func insert2(cs *r1cs.CS, dst []AllocatedNum, a AllocatedNum, bits []Boolean, el []AllocatedNum) []AllocatedNum {
	b0, b := bits[0], el[0]
	return append(dst, Pick(cs, b0, b, a), Pick(cs, b0, a, b))
}

func insert4(cs *r1cs.CS, dst []AllocatedNum, a AllocatedNum, bits []Boolean, el []AllocatedNum) []AllocatedNum {
	b0, b1 := bits[0], bits[1]
	b, c, d := el[0], el[1], el[2]
	p0x0 := Pick(cs, b0, b, a)
	p0 := Pick(cs, b1, b, p0x0)
	p1x0 := Pick(cs, b0, a, b)
	p1 := Pick(cs, b1, c, p1x0)
	p2x1 := Pick(cs, b0, d, a)
	p2 := Pick(cs, b1, p2x1, c)
	p3x1 := Pick(cs, b0, a, d)
	p3 := Pick(cs, b1, p3x1, d)
	return append(dst, p0, p1, p2, p3)
}

func insert8(cs *r1cs.CS, dst []AllocatedNum, a AllocatedNum, bits []Boolean, el []AllocatedNum) ([]AllocatedNum, error) {
	b0, b1, b2 := bits[0], bits[1], bits[2]
	if b0.kind != kindIs || b1.kind != kindIs {
		return dst, ErrInsertBits
	}
	b, c, d, e, f, g, h := el[0], el[1], el[2], el[3], el[4], el[5], el[6]
	nor := NorBits(cs, b0.bit(), b1.bit()).Boolean()
	and := AndBits(cs, b0.bit(), b1.bit()).Boolean()

	p0xx0 := Pick(cs, nor, a, b)
	p0 := Pick(cs, b2, b, p0xx0)

	p1x00 := Pick(cs, b0, a, b)
	p1xx0 := Pick(cs, b1, c, p1x00)
	p1 := Pick(cs, b2, c, p1xx0)

	p2x10 := Pick(cs, b0, d, a)
	p2xx0 := Pick(cs, b1, p2x10, c)
	p2 := Pick(cs, b2, d, p2xx0)

	p3xx0 := Pick(cs, and, a, d)
	p3 := Pick(cs, b2, e, p3xx0)

	p4xx1 := Pick(cs, nor, a, f)
	p4 := Pick(cs, b2, p4xx1, e)

	p5x01 := Pick(cs, b0, a, f)
	p5xx1 := Pick(cs, b1, g, p5x01)
	p5 := Pick(cs, b2, p5xx1, f)

	p6x11 := Pick(cs, b0, h, a)
	p6xx1 := Pick(cs, b1, p6x11, g)
	p6 := Pick(cs, b2, p6xx1, g)

	p7xx1 := Pick(cs, and, a, h)
	p7 := Pick(cs, b2, p7xx1, h)

	return append(dst, p0, p1, p2, p3, p4, p5, p6, p7), nil
}
