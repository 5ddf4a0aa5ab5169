package r1cs_test

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// cubic proves knowledge of x with x³ + x + 5 = out, out public: three rows.
type cubic struct{ x, out uint64 }

func (c cubic) Synthesize(cs *r1cs.CS) error {
	var xv, x2v, x3v fr.Element
	xv.SetUint64(c.x)
	x2v.Square(&xv)
	x3v.Mul(&x2v, &xv)

	out := cs.AllocInput(fr.NewElement(c.out))
	x := cs.Alloc(xv)
	x2 := cs.Alloc(x2v)
	x3 := cs.Alloc(x3v)
	five := fr.NewElement(5)

	cs.Push("cube")
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x); b.Add(x); cc.Add(x2) })  // x·x = x²
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x2); b.Add(x); cc.Add(x3) }) // x²·x = x³
	cs.Pop()
	cs.Push("sum")
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x3).Add(x).AddConst(&five); b.Add(r1cs.One); cc.Add(out) })
	cs.Pop()
	return nil
}

// A circuit is synthesised into a Sink: the counting one for sizes, the test
// system to check a witness row by row.
func Example() {
	counted, err := r1cs.Synthesize(cubic{x: 3, out: 35}, r1cs.Counter{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", counted.Size()) // inputs include ONE

	for _, out := range []uint64{35, 36} {
		ts := r1cs.NewTestSystem()
		if _, err := r1cs.Synthesize(cubic{x: 3, out: out}, ts); err != nil {
			panic(err)
		}
		if ts.IsSatisfied() {
			fmt.Printf("out = %d: satisfied\n", out)
			continue
		}
		u := ts.Unsatisfied()[0]
		fmt.Printf("out = %d: %d row fails, row %d at %q\n", out, ts.NumUnsatisfied(), u.Index, u.Path)
	}
	// Output:
	// {Constraints:3 Inputs:2 Aux:3}
	// out = 35: satisfied
	// out = 36: 1 row fails, row 2 at "sum"
}
