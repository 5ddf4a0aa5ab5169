package gadgets

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// packValue is Σ 2^i·bits[i] for at most Capacity bits.
func packValue(bits []Boolean) fr.Element {
	var le [32]byte
	for i, b := range bits {
		if b.val {
			le[i/8] |= 1 << (uint(i) % 8)
		}
	}
	v, err := fr.LittleEndian.Element(&le)
	if err != nil {
		panic("gadgets: packed value above the modulus") // < 2^254 < r: cannot happen
	}
	return v
}

// PackBits is bellperson multipack::pack_bits: the first min(len, 254) bits,
// least significant first, become one number. alloc n;
// (Σ 2^i·bit_i)·(ONE) = (n). Bits past Capacity are ignored, as upstream.
func PackBits(cs *r1cs.CS, bits []Boolean) AllocatedNum {
	if len(bits) > Capacity {
		bits = bits[:Capacity]
	}
	val := packValue(bits)
	n := cs.Alloc(val)
	cs.Enforce(func(a, b, c *r1cs.LC) {
		for i := range bits {
			bits[i].AddLC(a, &pow2[i])
		}
		b.AddOne()
		c.Add(n)
	})
	return AllocatedNum{V: n, Val: val}
}

// PackIntoInputs is bellperson multipack::pack_into_inputs: every chunk of
// 254 bits becomes a public input: alloc_input x; (Σ 2^i·bit_i)·(ONE) = (x).
func PackIntoInputs(cs *r1cs.CS, bits []Boolean) {
	for len(bits) > 0 {
		chunk := bits[:min(len(bits), Capacity)]
		bits = bits[len(chunk):]
		in := cs.AllocInput(packValue(chunk))
		cs.Enforce(func(a, b, c *r1cs.LC) {
			for i := range chunk {
				chunk[i].AddLC(a, &pow2[i])
			}
			b.AddOne()
			c.Add(in)
		})
	}
}

// ReverseBitNumbering is rust-fil-proofs util::reverse_bit_numbering: pad
// bits with constant false to whole bytes, then reverse the bit order inside
// every byte. The result is appended to dst (which must not overlap bits).
func ReverseBitNumbering(dst, bits []Boolean) []Boolean {
	n := len(bits)
	for byteStart := 0; byteStart < n; byteStart += 8 {
		for i := byteStart + 7; i >= byteStart; i-- {
			if i < n {
				dst = append(dst, bits[i])
			} else {
				dst = append(dst, Constant(false))
			}
		}
	}
	return dst
}

// AllocBytesBE is rust-fil-proofs util::bytes_into_boolean_vec_be: one
// AllocatedBit per bit, each byte most significant bit first, appended to
// dst.
func AllocBytesBE(cs *r1cs.CS, dst []Boolean, data []byte) []Boolean {
	for _, by := range data {
		for i := 7; i >= 0; i-- {
			dst = append(dst, AllocBit(cs, by>>uint(i)&1 == 1).Boolean())
		}
	}
	return dst
}

// AllocBytesLE is rust-fil-proofs util::bytes_into_boolean_vec: one
// AllocatedBit per bit, each byte least significant bit first.
func AllocBytesLE(cs *r1cs.CS, dst []Boolean, data []byte) []Boolean {
	for _, by := range data {
		for i := 0; i < 8; i++ {
			dst = append(dst, AllocBit(cs, by>>uint(i)&1 == 1).Boolean())
		}
	}
	return dst
}
