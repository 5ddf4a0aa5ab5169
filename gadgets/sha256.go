package gadgets

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/r1cs"
)

var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

var sha256IVWords = [8]uint32{
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
}

// Constant words, built once: the round constants enter every round's
// deferred additions.
var (
	sha256KWords = func() *[64]UInt32 {
		var k [64]UInt32
		for i, v := range sha256K {
			k[i] = UInt32Constant(v)
		}
		return &k
	}()
	sha256IV = func() *[8]UInt32 {
		var iv [8]UInt32
		for i, v := range sha256IVWords {
			iv[i] = UInt32Constant(v)
		}
		return &iv
	}()
)

// Sha256IV returns the SHA-256 initial hash value as constant words.
func Sha256IV() [8]UInt32 { return *sha256IV }

// Sha256 is the SHA-256 gadget (bellperson gadgets/sha256.rs) with its
// scratch space. The zero value is ready; reuse one value for many hashes to
// avoid allocation. Not safe for concurrent use.
type Sha256 struct {
	me MultiEq
	w  [64]UInt32
	// a[i+3] and e[i+3] hold round i's a and e (the lazily computed "new_a"
	// and "new_e"); indices 0..3 hold the initial hash value, so b, c, d of
	// round i are a[i+2], a[i+1], a[i] and f, g, h are e[i+2], e[i+1], e[i].
	a, e  [68]UInt32
	s1    [2]UInt32 // Σ1 and ch of rounds i (i&1) and i-1
	ch    [2]UInt32
	s0    [2]UInt32
	maj   [2]UInt32
	t, u  UInt32
	h     [8]UInt32 // the hash value entering the current block
	block []Boolean // padded message (Hash)
}

// Compress runs sha256_compression_function on one 512-bit block, with state
// as the current hash value, and writes the new hash value to state. A fresh
// MultiEq covers the call, so its last row comes after the h7 addition. It
// panics unless len(block) == 512.
func (s *Sha256) Compress(cs *r1cs.CS, block []Boolean, state *[8]UInt32) {
	if len(block) != 512 {
		panic(fmt.Sprintf("gadgets: SHA-256 block must be 512 bits, got %d", len(block)))
	}
	s.h = *state
	me := &s.me
	w := &s.w
	for i := 0; i < 16; i++ {
		w[i] = UInt32FromBitsBE(block[32*i : 32*i+32])
	}
	t, u := &s.t, &s.u
	for i := 16; i < 64; i++ {
		// σ0 = rotr7 ⊕ rotr18 ⊕ shr3 of w[i-15], σ1 = rotr17 ⊕ rotr19 ⊕ shr10
		// of w[i-2], each as two xors in this order.
		s0, s1 := &s.s0[0], &s.s1[0]
		s0.Xor(cs, t.Rotr(&w[i-15], 7), u.Rotr(&w[i-15], 18))
		s0.Xor(cs, s0, t.Shr(&w[i-15], 3))
		s1.Xor(cs, t.Rotr(&w[i-2], 17), u.Rotr(&w[i-2], 19))
		s1.Xor(cs, s1, t.Shr(&w[i-2], 10))
		w[i].AddMany(cs, me, &w[i-16], s0, &w[i-7], s1)
	}

	a, e := &s.a, &s.e
	a[3], a[2], a[1], a[0] = s.h[0], s.h[1], s.h[2], s.h[3]
	e[3], e[2], e[1], e[0] = s.h[4], s.h[5], s.h[6], s.h[7]
	k := sha256KWords
	for i := 0; i < 64; i++ {
		cur, prev := i&1, (i-1)&1
		// Deferred e of the previous round: d + temp1 with temp1 = h + Σ1 +
		// ch + K + w (upstream's Maybe::Deferred, computed here).
		if i > 0 {
			e[i+3].AddMany(cs, me, &e[i-1], &s.s1[prev], &s.ch[prev], &k[i-1], &w[i-1], &a[i-1])
		}
		newE := &e[i+3]
		s1 := &s.s1[cur]
		s1.Xor(cs, t.Rotr(newE, 6), u.Rotr(newE, 11))
		s1.Xor(cs, s1, t.Rotr(newE, 25))
		s.ch[cur].Sha256Ch(cs, newE, &e[i+2], &e[i+1])

		// Deferred a: temp1 + temp2 with temp2 = Σ0 + maj.
		if i > 0 {
			a[i+3].AddMany(cs, me, &e[i-1], &s.s1[prev], &s.ch[prev], &k[i-1], &w[i-1], &s.s0[prev], &s.maj[prev])
		}
		newA := &a[i+3]
		s0 := &s.s0[cur]
		s0.Xor(cs, t.Rotr(newA, 2), u.Rotr(newA, 13))
		s0.Xor(cs, s0, t.Rotr(newA, 22))
		s.maj[cur].Sha256Maj(cs, newA, &a[i+2], &a[i+1])
	}

	// h0 = deferred a + H0, h1..h3 = H + b/c/d, h4 = deferred e + H4,
	// h5..h7 = H + f/g/h, in this order.
	const last = 63 & 1
	h := &s.h
	state[0].AddMany(cs, me, &e[63], &s.s1[last], &s.ch[last], &k[63], &w[63], &s.s0[last], &s.maj[last], &h[0])
	state[1].AddMany(cs, me, &h[1], &a[66])
	state[2].AddMany(cs, me, &h[2], &a[65])
	state[3].AddMany(cs, me, &h[3], &a[64])
	state[4].AddMany(cs, me, &e[63], &s.s1[last], &s.ch[last], &k[63], &w[63], &a[63], &h[4])
	state[5].AddMany(cs, me, &h[5], &e[66])
	state[6].AddMany(cs, me, &h[6], &e[65])
	state[7].AddMany(cs, me, &h[7], &e[64])
	me.Finish(cs)
}

// Hash is bellperson's sha256: it pads msg (a whole number of bytes, message
// bit order: the first bit is the most significant bit of the first byte)
// with constants, compresses every block starting from the constant IV, and
// appends the 256 digest bits (each word most significant bit first) to dst.
// It panics unless len(msg) is a multiple of 8.
func (s *Sha256) Hash(cs *r1cs.CS, dst, msg []Boolean) []Boolean {
	if len(msg)%8 != 0 {
		panic(fmt.Sprintf("gadgets: SHA-256 message of %d bits is not whole bytes", len(msg)))
	}
	s.block = append(s.block[:0], msg...)
	s.block = append(s.block, Constant(true))
	for (len(s.block)+64)%512 != 0 {
		s.block = append(s.block, Constant(false))
	}
	n := uint64(len(msg))
	for i := 63; i >= 0; i-- {
		s.block = append(s.block, Constant(n>>uint(i)&1 == 1))
	}
	state := *sha256IV
	for off := 0; off < len(s.block); off += 512 {
		s.Compress(cs, s.block[off:off+512], &state)
	}
	for i := range state {
		dst = state[i].AppendBitsBE(dst)
	}
	return dst
}

// Sha256Hash is a one-off Sha256.Hash with fresh scratch space.
func Sha256Hash(cs *r1cs.CS, msg []Boolean) []Boolean {
	var s Sha256
	return s.Hash(cs, make([]Boolean, 0, 256), msg)
}

// Sha256Compress is a one-off sha256_compression_function: it returns the
// hash value after compressing block into iv.
func Sha256Compress(cs *r1cs.CS, block []Boolean, iv [8]UInt32) [8]UInt32 {
	var s Sha256
	s.Compress(cs, block, &iv)
	return iv
}
