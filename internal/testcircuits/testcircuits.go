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
type Cubic struct {
	X uint64
	// Claim, when set, is the public output claimed instead of Out: a
	// false statement whose witness does not satisfy the circuit.
	Claim *fr.Element
}

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
	claim := c.Out()
	if c.Claim != nil {
		claim = *c.Claim
	}
	out := cs.AllocInput(claim)
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

// OpKind is one step of a Mixed circuit.
type OpKind uint8

const (
	// OpInput: public input x, aux copy y, row (y)·(ONE) = (x).
	OpInput OpKind = iota
	// OpBit: fresh bit b, row (ONE − b)·(b) = 0.
	OpBit
	// OpXor: fresh bit v with its boolean row, then x = p xor v for the
	// previous bit p: (2p)·(v) = (p + v − x). Two rows.
	OpXor
	// OpMul: fresh x, y, z = x·y: (x)·(y) = (z). The previous product is
	// added to and subtracted from A (net zero: it must not become A-dense).
	OpMul
)

// Op is one step with its witness values.
type Op struct {
	Kind OpKind
	Bit  bool       // OpBit, OpXor: the fresh bit
	X, Y fr.Element // OpInput: X; OpMul: X, Y
}

// Plan returns the steps Synthesize performs, in order. Peer benchmarks
// build the same circuit in other frameworks from it.
func (m Mixed) Plan() []Op {
	rng, ops := m.inputs()
	share := m.BitShare
	if share == 0 {
		share = 0.8
	}
	randElem := func() fr.Element { return mixedElem(rng) }
	rows := len(ops)
	haveBit := false
	for rows < m.Constraints {
		if rng.Float64() < share {
			if !haveBit || rng.IntN(2) == 0 || rows+1 >= m.Constraints {
				ops = append(ops, Op{Kind: OpBit, Bit: rng.IntN(2) == 1})
				haveBit = true
				rows++
				continue
			}
			ops = append(ops, Op{Kind: OpXor, Bit: rng.IntN(2) == 1})
			rows += 2
			continue
		}
		ops = append(ops, Op{Kind: OpMul, X: randElem(), Y: randElem()})
		rows++
	}
	return ops
}

// InputValues are the public inputs of the circuit (ONE excluded), as
// Plan draws them first, without drawing the rest: cheap at any size.
func (m Mixed) InputValues() []fr.Element {
	_, ops := m.inputs()
	out := make([]fr.Element, len(ops))
	for i := range ops {
		out[i] = ops[i].X
	}
	return out
}

// inputs draws the input ops, which come first in every plan, and returns
// the generator positioned after them.
func (m Mixed) inputs() (*rand.Rand, []Op) {
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], m.Seed)
	rng := rand.New(rand.NewChaCha8(seed))
	var ops []Op
	for i := 0; i < m.Inputs && i < m.Constraints; i++ {
		ops = append(ops, Op{Kind: OpInput, X: mixedElem(rng)})
	}
	return rng, ops
}

// mixedElem draws a field element spread over the field.
func mixedElem(rng *rand.Rand) fr.Element {
	var e, t fr.Element
	e.SetUint64(rng.Uint64())
	e.Mul(&e, &e)
	t.SetUint64(rng.Uint64())
	return *e.Add(&e, &t)
}

// Synthesize implements r1cs.Circuit.
func (m Mixed) Synthesize(cs *r1cs.CS) error { return Replay(m.Plan()).Synthesize(cs) }

// Replay is a drawn plan as a circuit: synthesis only assigns its values,
// so a benchmark can draw the plan once and time synthesis alone, as a
// witness-taking prover would be timed.
type Replay []Op

// Synthesize implements r1cs.Circuit with Mixed's rows.
func (ops Replay) Synthesize(cs *r1cs.CS) error {
	one := fr.One()
	var zero fr.Element
	bit := func(b bool) fr.Element {
		if b {
			return one
		}
		return zero
	}
	var prevBit r1cs.Variable
	var prevVal bool
	prevProd, haveProd := r1cs.Variable(0), false
	for _, op := range ops {
		switch op.Kind {
		case OpInput:
			x := cs.AllocInput(op.X)
			y := cs.Alloc(op.X)
			cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(y); b.Add(r1cs.One); c.Add(x) })
		case OpBit:
			v := cs.Alloc(bit(op.Bit))
			cs.Enforce(func(a, b, c *r1cs.LC) { a.AddOne().Sub(v); b.Add(v) })
			prevBit, prevVal = v, op.Bit
		case OpXor:
			v := cs.Alloc(bit(op.Bit))
			cs.Enforce(func(a, b, c *r1cs.LC) { a.AddOne().Sub(v); b.Add(v) })
			x := cs.Alloc(bit(op.Bit != prevVal))
			p := prevBit
			cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(p).Add(p); b.Add(v); c.Add(p).Add(v).Sub(x) })
			prevBit, prevVal = x, op.Bit != prevVal
		case OpMul:
			var zv fr.Element
			zv.Mul(&op.X, &op.Y)
			x := cs.Alloc(op.X)
			y := cs.Alloc(op.Y)
			z := cs.Alloc(zv)
			pf, hp := prevProd, haveProd
			cs.Enforce(func(a, b, c *r1cs.LC) {
				a.Add(x)
				if hp {
					a.Add(pf).Sub(pf)
				}
				b.Add(y)
				c.Add(z)
			})
			prevProd, haveProd = z, true
		}
	}
	return nil
}
