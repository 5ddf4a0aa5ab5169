package ifma

import (
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Fp2x8 is eight elements of fp2 = fp[u]/(u² + 1): components a0, a1.
type Fp2x8 [2]Fp8

func (z *Fp2x8) set(l int, e *bls.E2) { z[0].Set(l, &e.A0); z[1].Set(l, &e.A1) }
func (z *Fp2x8) get(l int) bls.E2     { return bls.E2{A0: z[0].Get(l), A1: z[1].Get(l)} }

// g2Group and g2Work are g1Group and g1Work over fp2 (4 KiB, 8.5 KiB);
// t0…sb are the fp2 product's temporaries (gen.go's offsets).
type g2Group struct{ ax, qx, den, pre Fp2x8 }

type g2Work struct {
	run, di, ay, qy, lam, t Fp2x8
	t0, t1, t2, sa, sb      Fp8
}

// G2Adder batches G2 additions; see Adder.
type G2Adder = Adder[bls.G2Affine, *bls.G2Affine, g2Group, g2Work]

// NewG2Adder is NewG1Adder for G2.
func NewG2Adder(capacity int) *G2Adder {
	if !Enabled() {
		panic("ifma: NewG2Adder without IFMA (check Enabled)")
	}
	return newG2Adder(asmKernels, capacity)
}

// NewReferenceG2Adder is NewReferenceG1Adder for G2.
func NewReferenceG2Adder(capacity int) *G2Adder { return newG2Adder(goKernels, capacity) }

func newG2Adder(k kernels, capacity int) *G2Adder {
	_, _, _, g := bls.Generators()
	var pad bls.G2Affine
	pad.Double(&g)
	return newAdder[bls.G2Affine](capacity, k.g2Forward, k.g2Backward, g2RunOne, g2Invert, g, pad)
}

func g2RunOne(w *g2Work) {
	var one bls.E2
	one.SetOne()
	for l := 0; l < 8; l++ {
		w.run.set(l, &one)
	}
}

// g2Invert is invertLanes over fp2: one fp2 inversion for the 8 lanes.
func g2Invert(w *g2Work) {
	var v, prefix [8]bls.E2
	var run bls.E2
	run.SetOne()
	for l := range v {
		v[l] = w.run.get(l)
		prefix[l] = run
		run.Mul(&run, &v[l])
	}
	var inv bls.E2
	inv.Inverse(&run)
	for l := 7; l >= 0; l-- {
		var il bls.E2
		il.Mul(&inv, &prefix[l])
		inv.Mul(&inv, &v[l])
		w.run.set(l, &il)
	}
}

// goG2Forward and goG2Backward are the G2 kernels' contract in scalar Go.
func goG2Forward(accs, qs *unsafe.Pointer, grp *g2Group, zero *uint8, work *g2Work, n int) {
	as, qv := unsafe.Slice(accs, 8*n), unsafe.Slice(qs, 8*n)
	gs, zs := unsafe.Slice(grp, n), unsafe.Slice(zero, n)
	for g := 0; g < n; g++ {
		zs[g] = 0
		for l := 0; l < 8; l++ {
			acc, q := (*bls.G2Affine)(as[8*g+l]), (*bls.G2Affine)(qv[8*g+l])
			var den bls.E2
			den.Sub(&q.X, &acc.X)
			if den.IsZero() {
				zs[g] |= 1 << l
				den = bls.E2{A0: fp.Element{1}}
			}
			gs[g].ax.set(l, &acc.X)
			gs[g].qx.set(l, &q.X)
			gs[g].den.set(l, &den)
			run := work.run.get(l)
			gs[g].pre.set(l, &run)
			run.Mul(&run, &den)
			work.run.set(l, &run)
		}
	}
}

func goG2Backward(accs, qs *unsafe.Pointer, neg *uint8, grp *g2Group, zero *uint8, work *g2Work, n int) {
	as, qv := unsafe.Slice(accs, 8*n), unsafe.Slice(qs, 8*n)
	gs, zs, ns := unsafe.Slice(grp, n), unsafe.Slice(zero, n), unsafe.Slice(neg, n)
	for g := n - 1; g >= 0; g-- {
		for l := 0; l < 8; l++ {
			acc, q := (*bls.G2Affine)(as[8*g+l]), (*bls.G2Affine)(qv[8*g+l])
			inv, pre, den := work.run.get(l), gs[g].pre.get(l), gs[g].den.get(l)
			var di bls.E2
			di.Mul(&inv, &pre)
			inv.Mul(&inv, &den)
			work.run.set(l, &inv)
			if zs[g]&(1<<l) != 0 {
				continue
			}
			qy := q.Y
			if ns[g]&(1<<l) != 0 {
				qy.Neg(&qy)
			}
			var lambda, x3, t bls.E2
			lambda.Sub(&qy, &acc.Y).Mul(&lambda, &di)
			x3.Square(&lambda).Sub(&x3, &acc.X).Sub(&x3, &q.X)
			t.Sub(&acc.X, &x3).Mul(&t, &lambda)
			acc.Y.Sub(&t, &acc.Y)
			acc.X = x3
		}
	}
}
