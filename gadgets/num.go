package gadgets

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// AllocatedNum is a field element held by one variable (bellpepper-core
// AllocatedNum). Val is its witness value.
type AllocatedNum struct {
	V   r1cs.Variable
	Val fr.Element
}

// AllocNum allocates an auxiliary number; it emits no row.
func AllocNum(cs *r1cs.CS, val fr.Element) AllocatedNum {
	return AllocatedNum{V: cs.Alloc(val), Val: val}
}

// AllocInputNum allocates a public input number; it emits no row.
func AllocInputNum(cs *r1cs.CS, val fr.Element) AllocatedNum {
	return AllocatedNum{V: cs.AllocInput(val), Val: val}
}

// Inputize exposes x as a new public input: alloc_input x'; (x')·(ONE) = (x).
func (x AllocatedNum) Inputize(cs *r1cs.CS) AllocatedNum {
	in := cs.AllocInput(x.Val)
	v := x.V
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(in); b.AddOne(); c.Add(v) })
	return AllocatedNum{V: in, Val: x.Val}
}

// AllocBitsLE is field_into_allocated_bits_le: the 255 bits of v's canonical
// integer, least significant first, each an AllocatedBit with its boolean
// row, appended to dst as Booleans (field_into_boolean_vec_le).
func AllocBitsLE(cs *r1cs.CS, dst []Boolean, v *fr.Element) []Boolean {
	limbs := v.Bits()
	for i := 0; i < NumBits; i++ {
		dst = append(dst, AllocBit(cs, limbs[i/64]>>(uint(i)%64)&1 == 1).Boolean())
	}
	return dst
}

// ToBitsLE is AllocatedNum::to_bits_le: AllocBitsLE, then the unpacking row
// (0)·(0) = (Σ 2^i·b_i − x). It is not strict: nothing forces the bits below
// the modulus (Filecoin never uses to_bits_le_strict). The 255 bits are
// appended to dst.
func (x AllocatedNum) ToBitsLE(cs *r1cs.CS, dst []Boolean) []Boolean {
	start := len(dst)
	dst = AllocBitsLE(cs, dst, &x.Val)
	bits := dst[start:]
	v := x.V
	cs.Enforce(func(_, _, c *r1cs.LC) {
		for i := range bits {
			bits[i].AddLC(c, &pow2[i])
		}
		c.Sub(v)
	})
	return dst
}

// Mul is AllocatedNum::mul: alloc xy; (x)·(y) = (xy).
func (x AllocatedNum) Mul(cs *r1cs.CS, y AllocatedNum) AllocatedNum {
	var val fr.Element
	val.Mul(&x.Val, &y.Val)
	r := cs.Alloc(val)
	xv, yv := x.V, y.V
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(xv); b.Add(yv); c.Add(r) })
	return AllocatedNum{V: r, Val: val}
}

// Square is AllocatedNum::square: alloc x²; (x)·(x) = (x²).
func (x AllocatedNum) Square(cs *r1cs.CS) AllocatedNum {
	var val fr.Element
	val.Square(&x.Val)
	r := cs.Alloc(val)
	xv := x.V
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(xv); b.Add(xv); c.Add(r) })
	return AllocatedNum{V: r, Val: val}
}

// Add is rust-fil-proofs constraint::add (and AllocatedNum::add, which emits
// the same row): alloc s; (x + y)·(ONE) = (s). The PoRep encoding
// (encode.rs) is this gadget with x = key, y = data.
func Add(cs *r1cs.CS, x, y AllocatedNum) AllocatedNum {
	var val fr.Element
	val.Add(&x.Val, &y.Val)
	s := cs.Alloc(val)
	xv, yv := x.V, y.V
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(xv).Add(yv); b.AddOne(); c.Add(s) })
	return AllocatedNum{V: s, Val: val}
}

// Equal is rust-fil-proofs constraint::equal: (x)·(ONE) = (y). The PoR root
// check passes the computed root as x and the given root as y.
func Equal(cs *r1cs.CS, x, y AllocatedNum) {
	xv, yv := x.V, y.V
	cs.Enforce(func(a, b, c *r1cs.LC) { a.Add(xv); b.AddOne(); c.Add(yv) })
}

// Pick is rust-fil-proofs insertion::pick, cond ? x : y: alloc r;
// (y − x)·(cond) = (y − r).
func Pick(cs *r1cs.CS, cond Boolean, x, y AllocatedNum) AllocatedNum {
	val := y.Val
	if cond.val {
		val = x.Val
	}
	r := cs.Alloc(val)
	xv, yv := x.V, y.V
	cs.Enforce(func(a, b, c *r1cs.LC) {
		a.Add(yv).Sub(xv)
		cond.addTo(b)
		c.Add(yv).Sub(r)
	})
	return AllocatedNum{V: r, Val: val}
}
