// Package testcircuits holds small deterministic circuits for tests and
// benchmarks of the proving stack, independent of any Filecoin circuit.
package testcircuits

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// Cubic proves knowledge of x with x³ + x + 5 = Out, Out public.
type Cubic struct{ X uint64 }

// Out is the public output for c.
func (c Cubic) Out() fr.Element {
	var x, out, five fr.Element
	x.SetUint64(c.X)
	out.Square(&x).Mul(&out, &x).Add(&out, &x)
	five.SetUint64(5)
	out.Add(&out, &five)
	return out
}

// Synthesize implements r1cs.Circuit.
func (c Cubic) Synthesize(cs *r1cs.CS) error {
	var xv, x2v, x3v fr.Element
	xv.SetUint64(c.X)
	x2v.Square(&xv)
	x3v.Mul(&x2v, &xv)
	out := cs.AllocInput(c.Out())
	x := cs.Alloc(xv)
	x2 := cs.Alloc(x2v)
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x); b.Add(x); cc.Add(x2) })
	x3 := cs.Alloc(x3v)
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x2); b.Add(x); cc.Add(x3) })
	five := fr.NewElement(5)
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x3).Add(x).AddConst(&five); b.Add(r1cs.One); cc.Add(out) })
	return nil
}

// Mixed is a circuit of a given size whose witness looks like a
// SHA-256-heavy Filecoin circuit: most variables are bits (boolean checks and
// xors), the rest random field elements (multiplications). Everything is
// derived from Seed, so the same Mixed value always gives the same witness.
type Mixed struct {
	Constraints int     // rows emitted by Synthesize (input rows excluded)
	Inputs      int     // public inputs besides ONE
	BitShare    float64 // fraction of rows over bits (0 means 0.8)
	Seed        uint64
}

// Synthesize implements r1cs.Circuit.
func (m Mixed) Synthesize(cs *r1cs.CS) error {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], m.Seed)
	rng := rand.New(rand.NewChaCha8(seed))
	share := m.BitShare
	if share == 0 {
		share = 0.8
	}
	randElem := func() fr.Element {
		var e fr.Element
		e.SetUint64(rng.Uint64())
		e.Mul(&e, &e) // spread over the field
		var t fr.Element
		t.SetUint64(rng.Uint64())
		return *e.Add(&e, &t)
	}
	rows := 0
	// Public inputs, each tied to an aux copy: (y)·(ONE) = (x).
	for i := 0; i < m.Inputs && rows < m.Constraints; i++ {
		v := randElem()
		x := cs.AllocInput(v)
		y := cs.Alloc(v)
		cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(y); b.Add(r1cs.One); c.Add(x) })
		rows++
	}
	one := fr.One()
	var zero fr.Element
	bit := func(b bool) fr.Element {
		if b {
			return one
		}
		return zero
	}
	type bitVar struct {
		v   r1cs.Variable
		val bool
	}
	var prev bitVar
	haveBit := false
	// The previous product is added and subtracted in the next row's A:
	// its net coefficient is zero there, which must not make it A-dense.
	prevField, havePrev := r1cs.Variable(0), false
	for rows < m.Constraints {
		if rng.Float64() < share {
			if !haveBit || rng.IntN(2) == 0 || rows+1 >= m.Constraints {
				// Fresh bit with its boolean check.
				val := rng.IntN(2) == 1
				v := cs.Alloc(bit(val))
				cs.Enforce(func(a, b, c *r1cs.LC) { a.AddOne().Sub(v); b.Add(v) })
				prev, haveBit = bitVar{v, val}, true
				rows++
				continue
			}
			// xor with the previous bit: (2a)·(b) = (a + b − c), as bellpepper.
			val := rng.IntN(2) == 1
			v := cs.Alloc(bit(val))
			cs.Enforce(func(a, b, c *r1cs.LC) { a.AddOne().Sub(v); b.Add(v) })
			x := cs.Alloc(bit(val != prev.val))
			p := prev.v
			cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(p).Add(p); b.Add(v); c.Add(p).Add(v).Sub(x) })
			prev = bitVar{x, val != prev.val}
			rows += 2
			continue
		}
		// Multiplication of two fresh random values.
		xv, yv := randElem(), randElem()
		var zv fr.Element
		zv.Mul(&xv, &yv)
		x := cs.Alloc(xv)
		y := cs.Alloc(yv)
		z := cs.Alloc(zv)
		pf, hp := prevField, havePrev
		cs.Enforce(func(a, b, c *r1cs.LC) {
			a.Add(x)
			if hp {
				a.Add(pf).Sub(pf)
			}
			b.Add(y)
			c.Add(z)
		})
		prevField, havePrev = z, true
		rows++
	}
	return nil
}
