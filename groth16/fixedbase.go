package groth16

import (
	"context"
	"math/big"
	"sync"

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

// tableAffine and tableJacobian are what a fixed-base table needs of
// gnark-crypto's point types, beyond what the MSM needs.
type tableAffine[A any] interface {
	affine[A]
	ScalarMultiplication(*A, *big.Int) *A
}

type tableJacobian[J, A any] interface {
	jacobian[J, A]
	FromAffine(*A) *J
}

// fixedTable is a fixed-base table over a generator of one group, written
// once for both: g1Table and g2Table below.
type fixedTable[A, J, B any, PA tableAffine[A], PJ tableJacobian[J, A], PB batchPtr[B, A]] struct {
	c     int
	rows  [][]A // rows[w][d−1] = d·2^(c·w)·G
	batch int   // products per batch in mulInto
	// scratch holds *mulScratch[B] for reuse: a setup of 10^8 points would
	// otherwise allocate ~200 bytes of garbage per point.
	scratch sync.Pool
}

// mulScratch is one batch's digits and batched adder.
type mulScratch[B any] struct {
	digits []int32
	b      B
	n      int // capacity the adder was initialised for
}

type (
	g1Table = fixedTable[bls.G1Affine, bls.G1Jac, g1Batch, *bls.G1Affine, *bls.G1Jac, *g1Batch]
	g2Table = fixedTable[bls.G2Affine, bls.G2Jac, g2Batch, *bls.G2Affine, *bls.G2Jac, *g2Batch]
)

// Batch sizes of mulInto: a G2 point is twice a G1 point, so half as many
// keep a batch's working set the same size.
func newG1Table(g *bls.G1Affine, c, workers int) *g1Table {
	return newTable[bls.G1Affine, bls.G1Jac, g1Batch](g, c, workers, 1<<10, normalizeG1)
}

func newG2Table(g *bls.G2Affine, c, workers int) *g2Table {
	return newTable[bls.G2Affine, bls.G2Jac, g2Batch](g, c, workers, 1<<9, normalizeG2)
}

func newTable[A, J, B any, PA tableAffine[A], PJ tableJacobian[J, A], PB batchPtr[B, A]](g *A, c, workers, batch int, normalize func(dst []A, src []J)) *fixedTable[A, J, B, PA, PJ, PB] {
	t := &fixedTable[A, J, B, PA, PJ, PB]{c: c, rows: make([][]A, numWindows(c)), batch: batch}
	half := 1 << (c - 1)
	bases := make([]A, len(t.rows))
	var shift big.Int
	for w := range bases {
		shift.Lsh(big.NewInt(1), uint(w*c))
		PA(&bases[w]).ScalarMultiplication(g, &shift)
	}
	parallel.Execute(len(t.rows), func(lo, hi int) {
		jac := make([]J, half)
		for w := lo; w < hi; w++ {
			PJ(&jac[0]).FromAffine(&bases[w])
			for d := 1; d < half; d++ {
				jac[d] = jac[d-1]
				PJ(&jac[d]).AddMixed(&bases[w])
			}
			t.rows[w] = make([]A, half)
			normalize(t.rows[w], jac)
		}
	}, workers)
	return t
}

// mulInto sets dst[i] = scalars[i]·G. Products are accumulated window by
// window in affine coordinates, a whole batch at a time, so that each
// addition costs about six field multiplications (one shared inversion per
// batch and window) instead of the eleven of a mixed Jacobian addition.
func (t *fixedTable[A, J, B, PA, PJ, PB]) mulInto(dst []A, scalars []fr.Element, workers int) {
	_ = t.mulIntoCtx(context.Background(), dst, scalars, workers)
}

// mulIntoCtx is mulInto that checks ctx before each batch (about a
// millisecond of work), so a setup of millions of points stops promptly
// when cancelled; dst is then partly written and ctx's error returned.
func (t *fixedTable[A, J, B, PA, PJ, PB]) mulIntoCtx(ctx context.Context, dst []A, scalars []fr.Element, workers int) error {
	return par.Do(ctx, len(scalars), t.batch, workers, func(lo, hi int) error {
		n := hi - lo
		acc := dst[lo:hi]
		sc, _ := t.scratch.Get().(*mulScratch[B])
		if sc == nil || sc.n < n {
			sc = &mulScratch[B]{digits: make([]int32, n*len(t.rows)), n: n}
			PB(&sc.b).init(n)
		}
		defer t.scratch.Put(sc)
		digits := sc.digits[:n*len(t.rows)]
		var inf A // (0, 0): gnark-crypto's affine infinity
		for i := 0; i < n; i++ {
			s := scalars[lo+i]
			signedDigits(&s, t.c, digits[i*len(t.rows):(i+1)*len(t.rows)])
			acc[i] = inf
		}
		b := PB(&sc.b)
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
		return nil
	})
}

// normalizeG1 converts Jacobian points to affine with one field inversion
// (Montgomery's trick). Infinity maps to (0,0). It and normalizeG2 are twins
// for the reason g1Batch and g2Batch are: field arithmetic over fp.Element
// and bls.E2, the innermost loop.
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
