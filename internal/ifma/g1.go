package ifma

import (
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// g1Group is the kernels' per-group state of a batch (2 KiB per 8
// entries): the two x coordinates, the chord's denominator and the
// running product before it.
type g1Group struct{ ax, qx, den, pre Fp8 }

// g1Work is the kernels' working set (3 KiB): the lanes' running product
// (forward) or inverse (backward), and the backward pass's temporaries.
type g1Work struct{ run, di, ay, qy, lam, t Fp8 }

// NewG1Adder returns an adder for batches of up to capacity G1
// additions (rounded up to a multiple of 8). It panics unless IFMA is in
// use ([Enabled]); tests build adders over other kernel sets.
func NewG1Adder(capacity int) *G1Adder {
	if !Enabled() {
		panic("ifma: NewG1Adder without IFMA (check Enabled)")
	}
	return newG1Adder(asmKernels, capacity)
}

// NewReferenceG1Adder is a G1Adder whose kernels are their scalar Go
// contract (gnark-crypto's arithmetic, lane by lane, slow): for testing the
// callers' batching logic on CPUs without IFMA.
func NewReferenceG1Adder(capacity int) *G1Adder { return newG1Adder(goKernels, capacity) }

// G1Adder batches G1 additions; see Adder.
type G1Adder = Adder[bls.G1Affine, *bls.G1Affine, g1Group, g1Work]

func newG1Adder(k kernels, capacity int) *G1Adder {
	_, _, g, _ := bls.Generators()
	var pad bls.G1Affine
	pad.Double(&g)
	return newAdder[bls.G1Affine](capacity, k.g1Forward, k.g1Backward, g1RunOne, g1Invert, g, pad)
}

func g1RunOne(w *g1Work) {
	one := fp.One()
	for l := 0; l < 8; l++ {
		w.run.Set(l, &one)
	}
}

func g1Invert(w *g1Work) { invertLanes(&w.run) }

func trailingZeros8(z uint8) int {
	n := 0
	for z&1 == 0 {
		z >>= 1
		n++
	}
	return n
}

// invertLanes replaces each lane of r by its inverse: one scalar
// inversion for the eight (Montgomery's trick). No lane is zero: the
// kernels' chains multiply nonzero denominators only.
func invertLanes(r *Fp8) {
	var v, prefix [8]fp.Element
	run := fp.One()
	for l := range v {
		v[l] = r.Get(l)
		prefix[l] = run
		run.Mul(&run, &v[l])
	}
	var inv fp.Element
	inv.Inverse(&run)
	for l := 7; l >= 0; l-- {
		var il fp.Element
		il.Mul(&inv, &prefix[l])
		inv.Mul(&inv, &v[l])
		r.Set(l, &il)
	}
}

// goG1Forward and goG1Backward are the kernels' contract in scalar Go.
func goG1Forward(accs, qs *unsafe.Pointer, grp *g1Group, zero *uint8, work *g1Work, n int) {
	as, qv := unsafe.Slice(accs, 8*n), unsafe.Slice(qs, 8*n)
	gs, zs := unsafe.Slice(grp, n), unsafe.Slice(zero, n)
	for g := 0; g < n; g++ {
		zs[g] = 0
		for l := 0; l < 8; l++ {
			acc, q := (*bls.G1Affine)(as[8*g+l]), (*bls.G1Affine)(qv[8*g+l])
			var den fp.Element
			den.Sub(&q.X, &acc.X)
			if den.IsZero() {
				zs[g] |= 1 << l
				den = fp.Element{1}
			}
			gs[g].ax.Set(l, &acc.X)
			gs[g].qx.Set(l, &q.X)
			gs[g].den.Set(l, &den)
			gs[g].pre.Set(l, ptr(work.run.Get(l)))
			run := work.run.Get(l)
			run.Mul(&run, &den)
			work.run.Set(l, &run)
		}
	}
}

func ptr(e fp.Element) *fp.Element { return &e }

func goG1Backward(accs, qs *unsafe.Pointer, neg *uint8, grp *g1Group, zero *uint8, work *g1Work, n int) {
	as, qv := unsafe.Slice(accs, 8*n), unsafe.Slice(qs, 8*n)
	gs, zs, ns := unsafe.Slice(grp, n), unsafe.Slice(zero, n), unsafe.Slice(neg, n)
	for g := n - 1; g >= 0; g-- {
		for l := 0; l < 8; l++ {
			acc, q := (*bls.G1Affine)(as[8*g+l]), (*bls.G1Affine)(qv[8*g+l])
			inv, pre, den := work.run.Get(l), gs[g].pre.Get(l), gs[g].den.Get(l)
			var di fp.Element
			di.Mul(&inv, &pre)
			inv.Mul(&inv, &den)
			work.run.Set(l, &inv)
			if zs[g]&(1<<l) != 0 {
				continue
			}
			qy := q.Y
			if ns[g]&(1<<l) != 0 {
				qy.Neg(&qy)
			}
			var lambda, x3, t fp.Element
			lambda.Sub(&qy, &acc.Y).Mul(&lambda, &di)
			x3.Square(&lambda).Sub(&x3, &acc.X).Sub(&x3, &q.X)
			t.Sub(&acc.X, &x3).Mul(&t, &lambda)
			acc.Y.Sub(&t, &acc.Y)
			acc.X = x3
		}
	}
}
