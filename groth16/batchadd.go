package groth16

import (
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/cuzk-dev/cuzk/internal/ifma"
)

// g1Batch performs many independent affine additions acc += ±q with one
// field inversion for the whole batch (Montgomery's trick). Each accumulator
// may appear at most once per batch. Additions that the chord formula cannot
// do (an operand at infinity, equal x coordinates) are done one by one with
// the complete formula; they are rare except at the very start.
//
// When the IFMA kernels are in use, vec does the batch instead (8 lanes,
// internal/ifma) and the fields below stay empty.
type g1Batch struct {
	vec    *ifma.G1Adder
	acc    []*bls.G1Affine
	q      []bls.G1Affine // ±q, copied so negation needs no second pass
	den    []fp.Element   // x_q − x_acc
	prefix []fp.Element
	slow   []int
}

func (b *g1Batch) init(n int) {
	if ifma.Enabled() {
		b.vec = ifma.NewG1Adder(n)
		return
	}
	b.acc = make([]*bls.G1Affine, 0, n)
	b.q = make([]bls.G1Affine, 0, n)
	b.den = make([]fp.Element, 0, n)
}

func (b *g1Batch) reset() {
	b.acc, b.q, b.den, b.slow = b.acc[:0], b.q[:0], b.den[:0], b.slow[:0]
}

func (b *g1Batch) add(acc, q *bls.G1Affine, negate bool) {
	if q.IsInfinity() {
		return // the chord formula cannot take it; adding nothing is the answer
	}
	if acc.IsInfinity() {
		if negate {
			acc.Neg(q)
		} else {
			*acc = *q
		}
		return
	}
	if b.vec != nil {
		b.vec.Add(acc, q, negate)
		return
	}
	var p bls.G1Affine
	if negate {
		p.Neg(q)
	} else {
		p = *q
	}
	b.acc = append(b.acc, acc)
	b.q = append(b.q, p)
	var d fp.Element
	d.Sub(&p.X, &acc.X)
	if d.IsZero() {
		b.slow = append(b.slow, len(b.den))
		d.SetOne() // keep the product invertible; this entry is redone below
	}
	b.den = append(b.den, d)
}

func (b *g1Batch) flush() {
	if b.vec != nil {
		b.vec.Flush() // accumulators at infinity are (0, 0), as below
		return
	}
	n := len(b.den)
	if n == 0 {
		return
	}
	// prefix[i] = Π_{j<i} den[j].
	b.prefix = append(b.prefix[:0], make([]fp.Element, n)...)
	prefix := b.prefix
	run := fp.One()
	for i := 0; i < n; i++ {
		prefix[i] = run
		run.Mul(&run, &b.den[i])
	}
	var inv fp.Element
	inv.Inverse(&run)
	slow := len(b.slow) - 1
	for i := n - 1; i >= 0; i-- {
		var di fp.Element // 1/den[i]
		di.Mul(&inv, &prefix[i])
		inv.Mul(&inv, &b.den[i])
		if slow >= 0 && b.slow[slow] == i {
			slow--
			b.acc[i].Add(b.acc[i], &b.q[i])
			continue
		}
		a, q := b.acc[i], &b.q[i]
		var lambda, x3, t fp.Element
		lambda.Sub(&q.Y, &a.Y).Mul(&lambda, &di)
		x3.Square(&lambda).Sub(&x3, &a.X).Sub(&x3, &q.X)
		t.Sub(&a.X, &x3).Mul(&t, &lambda)
		a.Y.Sub(&t, &a.Y)
		a.X = x3
	}
}

// g2Batch is g1Batch over G2. The two stay twins on purpose: they are the
// innermost loops of the MSM and fixed-base code, and their arithmetic is over
// fp.Element and bls.E2, which share no interface in gnark-crypto; going
// generic here would put a dictionary call under every field multiplication.
// Everything above them (msm, summer) is written once, generically.
type g2Batch struct {
	vec    *ifma.G2Adder // as g1Batch's
	acc    []*bls.G2Affine
	q      []bls.G2Affine
	den    []bls.E2
	prefix []bls.E2
	slow   []int
}

func (b *g2Batch) init(n int) {
	if ifma.Enabled() {
		b.vec = ifma.NewG2Adder(n)
		return
	}
	b.acc = make([]*bls.G2Affine, 0, n)
	b.q = make([]bls.G2Affine, 0, n)
	b.den = make([]bls.E2, 0, n)
}

func (b *g2Batch) reset() {
	b.acc, b.q, b.den, b.slow = b.acc[:0], b.q[:0], b.den[:0], b.slow[:0]
}

func (b *g2Batch) add(acc, q *bls.G2Affine, negate bool) {
	if q.IsInfinity() {
		return
	}
	if acc.IsInfinity() {
		if negate {
			acc.Neg(q)
		} else {
			*acc = *q
		}
		return
	}
	if b.vec != nil {
		b.vec.Add(acc, q, negate)
		return
	}
	var p bls.G2Affine
	if negate {
		p.Neg(q)
	} else {
		p = *q
	}
	b.acc = append(b.acc, acc)
	b.q = append(b.q, p)
	var d bls.E2
	d.Sub(&p.X, &acc.X)
	if d.IsZero() {
		b.slow = append(b.slow, len(b.den))
		d.SetOne()
	}
	b.den = append(b.den, d)
}

func (b *g2Batch) flush() {
	if b.vec != nil {
		b.vec.Flush()
		return
	}
	n := len(b.den)
	if n == 0 {
		return
	}
	b.prefix = append(b.prefix[:0], make([]bls.E2, n)...)
	prefix := b.prefix
	var run bls.E2
	run.SetOne()
	for i := 0; i < n; i++ {
		prefix[i] = run
		run.Mul(&run, &b.den[i])
	}
	var inv bls.E2
	inv.Inverse(&run)
	slow := len(b.slow) - 1
	for i := n - 1; i >= 0; i-- {
		var di bls.E2
		di.Mul(&inv, &prefix[i])
		inv.Mul(&inv, &b.den[i])
		if slow >= 0 && b.slow[slow] == i {
			slow--
			var j bls.G2Jac
			j.FromAffine(b.acc[i])
			j.AddMixed(&b.q[i])
			b.acc[i].FromJacobian(&j)
			continue
		}
		a, q := b.acc[i], &b.q[i]
		var lambda, x3, t bls.E2
		lambda.Sub(&q.Y, &a.Y).Mul(&lambda, &di)
		x3.Square(&lambda).Sub(&x3, &a.X).Sub(&x3, &q.X)
		t.Sub(&a.X, &x3).Mul(&t, &lambda)
		a.Y.Sub(&t, &a.Y)
		a.X = x3
	}
}
