package r1cs

import "math/bits"

// Bitset is a growable bit vector, used for density bitmaps.
type Bitset struct {
	words []uint64
	n     int
}

// NewBitset returns an empty bitset with room for n bits.
func NewBitset(n int) Bitset {
	return Bitset{words: make([]uint64, 0, (n+63)/64)}
}

// Append adds one clear bit at the end.
func (s *Bitset) Append() {
	if s.n&63 == 0 {
		s.words = append(s.words, 0)
	}
	s.n++
}

// Len is the number of bits.
func (s *Bitset) Len() int { return s.n }

// Set sets bit i, which must be < Len.
func (s *Bitset) Set(i int) { s.words[i>>6] |= 1 << (uint(i) & 63) }

// Get reports bit i.
func (s *Bitset) Get(i int) bool { return s.words[i>>6]&(1<<(uint(i)&63)) != 0 }

// Count is the number of set bits.
func (s *Bitset) Count() int {
	c := 0
	for _, w := range s.words {
		c += bits.OnesCount64(w)
	}
	return c
}

// Words exposes the backing words (bit i is word i/64, bit i%64).
func (s *Bitset) Words() []uint64 { return s.words }

// Equal reports whether s and o hold the same bits.
func (s *Bitset) Equal(o *Bitset) bool {
	if s.n != o.n {
		return false
	}
	for i := range s.words {
		if s.words[i] != o.words[i] {
			return false
		}
	}
	return true
}

// Or sets every bit that is set in o (same length required).
func (s *Bitset) Or(o *Bitset) {
	for i := range s.words {
		s.words[i] |= o.words[i]
	}
}
