package gadgets

import (
	"fmt"
	"math/bits"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// UInt32 is 32 Booleans read as an unsigned integer, least significant bit
// first (bellperson gadgets/uint32.rs). It is a value type of fixed size;
// methods set the receiver and return it so that callers reuse storage.
type UInt32 struct {
	bits [32]Boolean
	val  uint32
}

// UInt32Constant is UInt32::constant: 32 constant bits, no rows.
func UInt32Constant(v uint32) UInt32 {
	var u UInt32
	u.val = v
	for i := range u.bits {
		u.bits[i] = Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// AllocUInt32 is UInt32::alloc: 32 AllocatedBits, least significant first.
func AllocUInt32(cs *r1cs.CS, v uint32) UInt32 {
	var u UInt32
	u.val = v
	for i := range u.bits {
		u.bits[i] = AllocBit(cs, v>>uint(i)&1 == 1).Boolean()
	}
	return u
}

// UInt32FromBitsBE is UInt32::from_bits_be: bits[0] is the most significant.
// It panics unless len(bits) == 32.
func UInt32FromBitsBE(bits []Boolean) UInt32 {
	if len(bits) != 32 {
		panic(fmt.Sprintf("gadgets: UInt32FromBitsBE needs 32 bits, got %d", len(bits)))
	}
	var u UInt32
	for i, b := range bits {
		u.bits[31-i] = b
		u.val = u.val<<1 | b2u(b.val)
	}
	return u
}

// UInt32FromBits is UInt32::from_bits: bits[0] is the least significant.
func UInt32FromBits(bits []Boolean) UInt32 {
	if len(bits) != 32 {
		panic(fmt.Sprintf("gadgets: UInt32FromBits needs 32 bits, got %d", len(bits)))
	}
	var u UInt32
	for i, b := range bits {
		u.bits[i] = b
		u.val |= b2u(b.val) << uint(i)
	}
	return u
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Value is the word's witness value.
func (u *UInt32) Value() uint32 { return u.val }

// Bit returns bit i, 0 being the least significant.
func (u *UInt32) Bit(i int) Boolean { return u.bits[i] }

// AppendBitsBE appends the bits most significant first (into_bits_be).
func (u *UInt32) AppendBitsBE(dst []Boolean) []Boolean {
	for i := 31; i >= 0; i-- {
		dst = append(dst, u.bits[i])
	}
	return dst
}

// AppendBits appends the bits least significant first (into_bits).
func (u *UInt32) AppendBits(dst []Boolean) []Boolean { return append(dst, u.bits[:]...) }

// Rotr sets z to x rotated right by `by` bits (a relabelling, no rows).
func (z *UInt32) Rotr(x *UInt32, by int) *UInt32 {
	by &= 31
	var r UInt32
	for i := range r.bits {
		r.bits[i] = x.bits[(i+by)&31]
	}
	r.val = bits.RotateLeft32(x.val, -by)
	*z = r
	return z
}

// Shr sets z to x shifted right by `by` bits, filling with constant false.
func (z *UInt32) Shr(x *UInt32, by int) *UInt32 {
	by &= 31
	var r UInt32
	copy(r.bits[:], x.bits[by:])
	r.val = x.val >> uint(by)
	*z = r
	return z
}

// Xor sets z = x ⊕ y bit by bit (Boolean::xor for bit 0 up to bit 31).
func (z *UInt32) Xor(cs *r1cs.CS, x, y *UInt32) *UInt32 {
	val := x.val ^ y.val
	for i := range z.bits {
		z.bits[i] = Xor(cs, x.bits[i], y.bits[i])
	}
	z.val = val
	return z
}

// Sha256Ch sets z = (a ∧ b) ⊕ (¬a ∧ c) bit by bit (UInt32::sha256_ch).
func (z *UInt32) Sha256Ch(cs *r1cs.CS, a, b, c *UInt32) *UInt32 {
	val := (a.val & b.val) ^ (^a.val & c.val)
	for i := range z.bits {
		z.bits[i] = Sha256Ch(cs, a.bits[i], b.bits[i], c.bits[i])
	}
	z.val = val
	return z
}

// Sha256Maj sets z = (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c) bit by bit
// (UInt32::sha256_maj).
func (z *UInt32) Sha256Maj(cs *r1cs.CS, a, b, c *UInt32) *UInt32 {
	val := (a.val & b.val) ^ (a.val & c.val) ^ (b.val & c.val)
	for i := range z.bits {
		z.bits[i] = Sha256Maj(cs, a.bits[i], b.bits[i], c.bits[i])
	}
	z.val = val
	return z
}

// MaxAddOperands is the most operands UInt32::addmany accepts.
const MaxAddOperands = 10

// AddMany sets z to the sum of ops modulo 2^32 (UInt32::addmany). If every
// bit of every operand is constant the result is a constant and nothing is
// emitted. Otherwise it allocates bitlen(len(ops)·(2^32−1)) result bits (33
// for two operands, 34 for 3–4, 35 for 5–8), each an AllocatedBit with its
// boolean row, and hands Σ 2^i·op_bits = Σ 2^i·result_bits to me, which may
// first flush its earlier equalities as one row. The carry bits are dropped.
// z may alias an operand. It panics unless 2 <= len(ops) <= 10.
func (z *UInt32) AddMany(cs *r1cs.CS, me *MultiEq, ops ...*UInt32) *UInt32 {
	if len(ops) < 2 || len(ops) > MaxAddOperands {
		panic(fmt.Sprintf("gadgets: AddMany needs 2..%d operands, got %d", MaxAddOperands, len(ops)))
	}
	var sum uint64
	allConst := true
	for _, op := range ops {
		sum += uint64(op.val)
		if allConst {
			for i := range op.bits {
				if op.bits[i].kind != kindConst {
					allConst = false
					break
				}
			}
		}
	}
	if allConst {
		*z = UInt32Constant(uint32(sum))
		return z
	}
	nbits := bits.Len64(uint64(len(ops)) * (1<<32 - 1))
	first := AllocBit(cs, sum&1 == 1).v
	for i := 1; i < nbits; i++ {
		AllocBit(cs, sum>>uint(i)&1 == 1)
	}
	me.enforceEqual(cs, nbits, first, ops)
	for i := range z.bits {
		z.bits[i] = Boolean{v: r1cs.AuxVar(first.Index() + i), kind: kindIs, val: sum>>uint(i)&1 == 1}
	}
	z.val = uint32(sum)
	return z
}
