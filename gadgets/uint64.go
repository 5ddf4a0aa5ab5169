package gadgets

import "github.com/cuzk-dev/cuzk/r1cs"

// UInt64 is 64 Booleans read as an unsigned integer, least significant bit
// first (rust-fil-proofs gadgets/uint64.rs). PoRep allocates the challenge
// node this way and exposes it with PackIntoInput.
type UInt64 struct {
	bits [64]Boolean
	val  uint64
}

// UInt64Constant is UInt64::constant: 64 constant bits.
func UInt64Constant(v uint64) UInt64 {
	var u UInt64
	u.val = v
	for i := range u.bits {
		u.bits[i] = Constant(v>>uint(i)&1 == 1)
	}
	return u
}

// AllocUInt64 is UInt64::alloc: 64 AllocatedBits, least significant first.
func AllocUInt64(cs *r1cs.CS, v uint64) UInt64 {
	var u UInt64
	u.val = v
	for i := range u.bits {
		u.bits[i] = AllocBit(cs, v>>uint(i)&1 == 1).Boolean()
	}
	return u
}

// Value is the witness value.
func (u *UInt64) Value() uint64 { return u.val }

// Bit returns bit i, 0 being the least significant.
func (u *UInt64) Bit(i int) Boolean { return u.bits[i] }

// AppendBitsBE appends the bits most significant first (to_bits_be).
func (u *UInt64) AppendBitsBE(dst []Boolean) []Boolean {
	for i := 63; i >= 0; i-- {
		dst = append(dst, u.bits[i])
	}
	return dst
}

// AppendBitsLE appends the bits least significant first (to_bits_le).
func (u *UInt64) AppendBitsLE(dst []Boolean) []Boolean { return append(dst, u.bits[:]...) }

// PackIntoInput is UInt64::pack_into_input: one public input holding the
// value, (Σ 2^i·bit_i)·(ONE) = (input).
func (u *UInt64) PackIntoInput(cs *r1cs.CS) { PackIntoInputs(cs, u.bits[:]) }
