package gadgets

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// Capacity is the number of bits that always fit in a field element
// (Scalar::CAPACITY for BLS12-381's Fr): packing and MultiEq batching use it.
const Capacity = 254

// NumBits is the bit length of the field modulus (Scalar::NUM_BITS), the
// number of bits AllocatedNum.ToBitsLE allocates.
const NumBits = 255

var (
	frOne = fr.One()
	frTwo = fr.NewElement(2)
	// pow2[i] = 2^i, the coefficients of every packing and addition.
	pow2 = powersOfTwo()
)

func powersOfTwo() *[256]fr.Element {
	var p [256]fr.Element
	p[0].SetOne()
	for i := 1; i < len(p); i++ {
		p[i].Double(&p[i-1])
	}
	return &p
}

func frBool(b bool) fr.Element {
	if b {
		return frOne
	}
	return fr.Element{}
}

// AllocatedBit is an auxiliary variable constrained to be 0 or 1
// (bellpepper-core AllocatedBit).
type AllocatedBit struct {
	v   r1cs.Variable
	val bool
}

// Variable is the bit's variable.
func (b AllocatedBit) Variable() r1cs.Variable { return b.v }

// Value is the bit's witness value.
func (b AllocatedBit) Value() bool { return b.val }

// Boolean views b as the Boolean Is(b).
func (b AllocatedBit) Boolean() Boolean { return Boolean{v: b.v, kind: kindIs, val: b.val} }

// AllocBit allocates a bit: alloc b; (ONE − b)·(b) = 0.
func AllocBit(cs *r1cs.CS, val bool) AllocatedBit {
	v := cs.Alloc(frBool(val))
	cs.Enforce(func(a, b, _ *r1cs.LC) { a.AddOne().Sub(v); b.Add(v) })
	return AllocatedBit{v: v, val: val}
}

// XorBits is AllocatedBit::xor: alloc c; (a + a)·(b) = (a + b − c).
func XorBits(cs *r1cs.CS, x, y AllocatedBit) AllocatedBit {
	val := x.val != y.val
	c := cs.Alloc(frBool(val))
	xv, yv := x.v, y.v
	cs.Enforce(func(a, b, cc *r1cs.LC) {
		a.AddScaled(&frTwo, xv)
		b.Add(yv)
		cc.Add(xv).Add(yv).Sub(c)
	})
	return AllocatedBit{v: c, val: val}
}

// AndBits is AllocatedBit::and: alloc c; (a)·(b) = (c).
func AndBits(cs *r1cs.CS, x, y AllocatedBit) AllocatedBit {
	val := x.val && y.val
	c := cs.Alloc(frBool(val))
	xv, yv := x.v, y.v
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(xv); b.Add(yv); cc.Add(c) })
	return AllocatedBit{v: c, val: val}
}

// AndNotBits is AllocatedBit::and_not, x ∧ ¬y: alloc c; (a)·(ONE − b) = (c).
func AndNotBits(cs *r1cs.CS, x, y AllocatedBit) AllocatedBit {
	val := x.val && !y.val
	c := cs.Alloc(frBool(val))
	xv, yv := x.v, y.v
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(xv); b.AddOne().Sub(yv); cc.Add(c) })
	return AllocatedBit{v: c, val: val}
}

// NorBits is AllocatedBit::nor, ¬x ∧ ¬y: alloc c; (ONE − a)·(ONE − b) = (c).
func NorBits(cs *r1cs.CS, x, y AllocatedBit) AllocatedBit {
	val := !x.val && !y.val
	c := cs.Alloc(frBool(val))
	xv, yv := x.v, y.v
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.AddOne().Sub(xv); b.AddOne().Sub(yv); cc.Add(c) })
	return AllocatedBit{v: c, val: val}
}

type boolKind uint8

const (
	kindConst boolKind = iota
	kindIs
	kindNot
)

// Boolean is a constant, an allocated bit, or the negation of one
// (bellpepper-core Boolean::{Constant, Is, Not}). The zero value is the
// constant false. It is a small value type: copy it freely.
type Boolean struct {
	v    r1cs.Variable // the underlying bit (Is, Not)
	kind boolKind
	val  bool // the Boolean's own value (already negated for Not)
}

// Constant returns the constant b.
func Constant(b bool) Boolean { return Boolean{kind: kindConst, val: b} }

// Value is the Boolean's witness value.
func (b Boolean) Value() bool { return b.val }

// IsConstant reports whether b is a constant.
func (b Boolean) IsConstant() bool { return b.kind == kindConst }

// IsNegated reports whether b is Not(bit).
func (b Boolean) IsNegated() bool { return b.kind == kindNot }

// Bit returns the underlying allocated bit of Is(bit) or Not(bit); ok is
// false for constants.
func (b Boolean) Bit() (bit AllocatedBit, ok bool) {
	switch b.kind {
	case kindIs:
		return AllocatedBit{v: b.v, val: b.val}, true
	case kindNot:
		return AllocatedBit{v: b.v, val: !b.val}, true
	}
	return AllocatedBit{}, false
}

// Not returns the negation of b; it costs nothing.
func (b Boolean) Not() Boolean {
	switch b.kind {
	case kindIs:
		b.kind = kindNot
	case kindNot:
		b.kind = kindIs
	}
	b.val = !b.val
	return b
}

// bit is the allocated bit under an Is or Not Boolean.
func (b Boolean) bit() AllocatedBit {
	if b.kind == kindNot {
		return AllocatedBit{v: b.v, val: !b.val}
	}
	return AllocatedBit{v: b.v, val: b.val}
}

// AddLC adds coeff·b to lc as Boolean::lc does: a true constant is coeff·ONE,
// Is(v) is coeff·v and Not(v) is coeff·ONE − coeff·v.
func (b Boolean) AddLC(lc *r1cs.LC, coeff *fr.Element) {
	switch b.kind {
	case kindConst:
		if b.val {
			lc.AddConst(coeff)
		}
	case kindIs:
		lc.AddScaled(coeff, b.v)
	case kindNot:
		lc.AddConst(coeff)
		lc.SubScaled(coeff, b.v)
	}
}

// addTo adds 1·b to lc.
func (b Boolean) addTo(lc *r1cs.LC) {
	switch b.kind {
	case kindConst:
		if b.val {
			lc.AddOne()
		}
	case kindIs:
		lc.Add(b.v)
	case kindNot:
		lc.AddOne()
		lc.Sub(b.v)
	}
}

// subFrom adds −1·b to lc.
func (b Boolean) subFrom(lc *r1cs.LC) {
	switch b.kind {
	case kindConst:
		if b.val {
			lc.SubConst(&frOne)
		}
	case kindIs:
		lc.Sub(b.v)
	case kindNot:
		lc.SubConst(&frOne)
		lc.Add(b.v)
	}
}

// Xor is Boolean::xor. Constants cost nothing; Is ⊕ Not is computed as
// ¬(is ⊕ not's bit) with the Is operand first; Is ⊕ Is and Not ⊕ Not are
// AllocatedBit::xor of the two bits in argument order.
func Xor(cs *r1cs.CS, a, b Boolean) Boolean {
	switch {
	case a.kind == kindConst && !a.val:
		return b
	case b.kind == kindConst && !b.val:
		return a
	case a.kind == kindConst:
		return b.Not()
	case b.kind == kindConst:
		return a.Not()
	case a.kind == kindIs && b.kind == kindNot:
		return XorBits(cs, a.bit(), b.bit()).Boolean().Not()
	case a.kind == kindNot && b.kind == kindIs:
		return XorBits(cs, b.bit(), a.bit()).Boolean().Not()
	default:
		return XorBits(cs, a.bit(), b.bit()).Boolean()
	}
}

// And is Boolean::and: a false constant wins, a true constant returns the
// other side, Is ∧ Not is and_not(is, not), Not ∧ Not is nor, Is ∧ Is is and.
func And(cs *r1cs.CS, a, b Boolean) Boolean {
	switch {
	case a.kind == kindConst && !a.val, b.kind == kindConst && !b.val:
		return Constant(false)
	case a.kind == kindConst:
		return b
	case b.kind == kindConst:
		return a
	case a.kind == kindIs && b.kind == kindNot:
		return AndNotBits(cs, a.bit(), b.bit()).Boolean()
	case a.kind == kindNot && b.kind == kindIs:
		return AndNotBits(cs, b.bit(), a.bit()).Boolean()
	case a.kind == kindNot:
		return NorBits(cs, a.bit(), b.bit()).Boolean()
	default:
		return AndBits(cs, a.bit(), b.bit()).Boolean()
	}
}

// Sha256Ch is Boolean::sha256_ch, (a ∧ b) ⊕ (¬a ∧ c). The constant shortcuts
// are tried in upstream's order; the general case allocates ch and enforces
// (b − c)·(a) = (ch − c).
func Sha256Ch(cs *r1cs.CS, a, b, c Boolean) Boolean {
	val := (a.val && b.val) != (!a.val && c.val)
	ac, bc, cc := a.kind == kindConst, b.kind == kindConst, c.kind == kindConst
	switch {
	case ac && bc && cc:
		return Constant(val)
	case ac && !a.val:
		return c
	case bc && !b.val:
		return And(cs, a.Not(), c)
	case cc && !c.val:
		return And(cs, a, b)
	case cc:
		return And(cs, a, b.Not()).Not()
	case bc:
		return And(cs, a.Not(), c.Not()).Not()
	}
	ch := cs.Alloc(frBool(val))
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		b.addTo(la)
		c.subFrom(la)
		a.addTo(lb)
		lc.Add(ch)
		c.subFrom(lc)
	})
	return Boolean{v: ch, kind: kindIs, val: val}
}

// Sha256Maj is Boolean::sha256_maj, (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c). The constant
// shortcuts are tried in upstream's order; the general case allocates maj
// first, then bc = b ∧ c, then enforces (2·bc − b − c)·(a) = (bc − maj).
func Sha256Maj(cs *r1cs.CS, a, b, c Boolean) Boolean {
	val := (a.val && b.val) != (a.val && c.val) != (b.val && c.val)
	ac, bc, cc := a.kind == kindConst, b.kind == kindConst, c.kind == kindConst
	switch {
	case ac && bc && cc:
		return Constant(val)
	case ac && !a.val:
		return And(cs, b, c)
	case bc && !b.val:
		return And(cs, a, c)
	case cc && !c.val:
		return And(cs, a, b)
	case cc:
		return And(cs, a.Not(), b.Not()).Not()
	case bc:
		return And(cs, a.Not(), c.Not()).Not()
	case ac:
		return And(cs, b.Not(), c.Not()).Not()
	}
	maj := cs.Alloc(frBool(val))
	bAndC := And(cs, b, c)
	cs.Enforce(func(la, lb, lc *r1cs.LC) {
		bAndC.AddLC(la, &frTwo)
		b.subFrom(la)
		c.subFrom(la)
		a.addTo(lb)
		bAndC.addTo(lc)
		lc.Sub(maj)
	})
	return Boolean{v: maj, kind: kindIs, val: val}
}
