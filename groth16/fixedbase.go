package groth16

import (
	"math/big"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"

	"github.com/cuzk-dev/cuzk/internal/par"
)

// Fixed-base multiplication for setup: many scalars times one generator.
//
// A table holds d·2^(c·w)·G for every window w and signed digit d in
// [1, 2^(c−1)]. A scalar is split into signed c-bit digits, so each product
// costs one mixed addition per window (16 for c = 16) and no doublings;
// results are normalised to affine in batches with one inversion each.
// gnark-crypto's BatchScalarMultiplication uses small windows plus
// doublings, several times slower for millions of points.

// windowFor picks the window width for n products: larger tables pay off
// only when there are enough products to amortise them.
func windowFor(n int) int {
	switch {
	case n > 1<<20:
		return 16
	case n > 1<<14:
		return 12
	default:
		return 8
	}
}

// signedDigits writes the signed c-bit digits of s (regular form) into d,
// least significant first. Each digit is in [−2^(c−1), 2^(c−1)].
func signedDigits(s *fr.Element, c int, d []int32) {
	words := s.Bits() // regular (non-Montgomery) little-endian limbs
	carry := int32(0)
	mask := uint64(1)<<c - 1
	for w := range d {
		bit := w * c
		var v uint64
		if bit < 256 {
			limb, off := bit/64, bit%64
			v = words[limb] >> off
			if off+c > 64 && limb+1 < 4 {
				v |= words[limb+1] << (64 - off)
			}
			v &= mask
		}
		digit := int32(v) + carry
		carry = 0
		if digit > 1<<(c-1) {
			digit -= 1 << c
			carry = 1
		}
		d[w] = digit
	}
}

func numWindows(c int) int { return (fr.Bits+c-1)/c + 1 }

// g1Table is a fixed-base table over a G1 generator.
type g1Table struct {
	c    int
	rows [][]bls.G1Affine // rows[w][d−1] = d·2^(c·w)·G
}

func newG1Table(g *bls.G1Affine, c, workers int) *g1Table {
	t := &g1Table{c: c, rows: make([][]bls.G1Affine, numWindows(c))}
	half := 1 << (c - 1)
	bases := make([]bls.G1Affine, len(t.rows))
	var shift big.Int
	for w := range bases {
		shift.Lsh(big.NewInt(1), uint(w*c))
		bases[w].ScalarMultiplication(g, &shift)
	}
	parallel.Execute(len(t.rows), func(lo, hi int) {
		jac := make([]bls.G1Jac, half)
		for w := lo; w < hi; w++ {
			jac[0].FromAffine(&bases[w])
			for d := 1; d < half; d++ {
				jac[d] = jac[d-1]
				jac[d].AddMixed(&bases[w])
			}
			t.rows[w] = make([]bls.G1Affine, half)
			normalizeG1(t.rows[w], jac)
		}
	}, workers)
	return t
}

// mulInto sets dst[i] = scalars[i]·G. Products are accumulated window by
// window in affine coordinates, a whole batch at a time, so that each
// addition costs about six field multiplications (one shared inversion per
// batch and window) instead of the eleven of a mixed Jacobian addition.
func (t *g1Table) mulInto(dst []bls.G1Affine, scalars []fr.Element, workers int) {
	const batch = 1 << 10
	par.Chunks(len(scalars), batch, workers, func(lo, hi int) {
		n := hi - lo
		acc := dst[lo:hi]
		digits := make([]int32, n*len(t.rows))
		for i := 0; i < n; i++ {
			s := scalars[lo+i]
			signedDigits(&s, t.c, digits[i*len(t.rows):(i+1)*len(t.rows)])
			acc[i].X.SetZero()
			acc[i].Y.SetZero()
		}
		var b g1Batch
		b.init(n)
		for w := range t.rows {
			b.reset()
			for i := 0; i < n; i++ {
				d := digits[i*len(t.rows)+w]
				switch {
				case d > 0:
					b.add(&acc[i], &t.rows[w][d-1], false)
				case d < 0:
					b.add(&acc[i], &t.rows[w][-d-1], true)
				}
			}
			b.flush()
		}
	})
}

// g2Table is the G2 counterpart of g1Table.
type g2Table struct {
	c    int
	rows [][]bls.G2Affine
}

func newG2Table(g *bls.G2Affine, c, workers int) *g2Table {
	t := &g2Table{c: c, rows: make([][]bls.G2Affine, numWindows(c))}
	half := 1 << (c - 1)
	bases := make([]bls.G2Affine, len(t.rows))
	var shift big.Int
	for w := range bases {
		shift.Lsh(big.NewInt(1), uint(w*c))
		bases[w].ScalarMultiplication(g, &shift)
	}
	parallel.Execute(len(t.rows), func(lo, hi int) {
		jac := make([]bls.G2Jac, half)
		for w := lo; w < hi; w++ {
			jac[0].FromAffine(&bases[w])
			for d := 1; d < half; d++ {
				jac[d] = jac[d-1]
				jac[d].AddMixed(&bases[w])
			}
			t.rows[w] = make([]bls.G2Affine, half)
			normalizeG2(t.rows[w], jac)
		}
	}, workers)
	return t
}

func (t *g2Table) mulInto(dst []bls.G2Affine, scalars []fr.Element, workers int) {
	const batch = 1 << 9
	par.Chunks(len(scalars), batch, workers, func(lo, hi int) {
		n := hi - lo
		acc := dst[lo:hi]
		digits := make([]int32, n*len(t.rows))
		for i := 0; i < n; i++ {
			s := scalars[lo+i]
			signedDigits(&s, t.c, digits[i*len(t.rows):(i+1)*len(t.rows)])
			acc[i].X.SetZero()
			acc[i].Y.SetZero()
		}
		var b g2Batch
		b.init(n)
		for w := range t.rows {
			b.reset()
			for i := 0; i < n; i++ {
				d := digits[i*len(t.rows)+w]
				switch {
				case d > 0:
					b.add(&acc[i], &t.rows[w][d-1], false)
				case d < 0:
					b.add(&acc[i], &t.rows[w][-d-1], true)
				}
			}
			b.flush()
		}
	})
}

// normalizeG1 converts Jacobian points to affine with one field inversion
// (Montgomery's trick). Infinity maps to (0,0).
func normalizeG1(dst []bls.G1Affine, src []bls.G1Jac) {
	acc := fp.One()
	for i := range src {
		if src[i].Z.IsZero() {
			continue
		}
		dst[i].X = acc // prefix product, consumed below
		acc.Mul(&acc, &src[i].Z)
	}
	var inv fp.Element
	inv.Inverse(&acc)
	for i := len(src) - 1; i >= 0; i-- {
		if src[i].Z.IsZero() {
			dst[i].X.SetZero()
			dst[i].Y.SetZero()
			continue
		}
		var zinv, z2, z3 fp.Element
		zinv.Mul(&dst[i].X, &inv)
		inv.Mul(&inv, &src[i].Z)
		z2.Square(&zinv)
		z3.Mul(&z2, &zinv)
		dst[i].X.Mul(&src[i].X, &z2)
		dst[i].Y.Mul(&src[i].Y, &z3)
	}
}

func normalizeG2(dst []bls.G2Affine, src []bls.G2Jac) {
	var acc bls.E2
	acc.SetOne()
	for i := range src {
		if src[i].Z.IsZero() {
			continue
		}
		dst[i].X = acc
		acc.Mul(&acc, &src[i].Z)
	}
	var inv bls.E2
	inv.Inverse(&acc)
	for i := len(src) - 1; i >= 0; i-- {
		if src[i].Z.IsZero() {
			dst[i].X.SetZero()
			dst[i].Y.SetZero()
			continue
		}
		var zinv, z2, z3 bls.E2
		zinv.Mul(&dst[i].X, &inv)
		inv.Mul(&inv, &src[i].Z)
		z2.Square(&zinv)
		z3.Mul(&z2, &zinv)
		dst[i].X.Mul(&src[i].X, &z2)
		dst[i].Y.Mul(&src[i].Y, &z3)
	}
}
