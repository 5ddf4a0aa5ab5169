package graph

import (
	"encoding/binary"

	"golang.org/x/crypto/blake2b"
)

// feistelRounds is FEISTEL_ROUNDS: only the first 3 of the 4 keys are used.
const feistelRounds = 3

// feistel is the keyed permutation of storage-proofs-core crypto/feistel.rs
// over [0, n): a balanced Feistel network on the smallest even bit width
// 2*halfBits with 4^halfBits >= n (at least 4), made to stay inside [0, n)
// by cycle walking.
type feistel struct {
	n         uint64
	keys      [4]uint64
	rightMask uint64
	halfBits  uint
}

func newFeistel(n uint64, keys [4]uint64) feistel {
	// precompute: log4 starts at 1, so the domain is never smaller than 4.
	halfBits := uint(1)
	for pow4 := uint64(4); pow4 < n; pow4 *= 4 {
		halfBits++
	}
	return feistel{n: n, keys: keys, rightMask: 1<<halfBits - 1, halfBits: halfBits}
}

// permute maps index (< n) to its image in [0, n).
func (f *feistel) permute(index uint64) uint64 {
	u := f.encode(index)
	for u >= f.n {
		u = f.encode(u)
	}
	return u
}

// invert is the inverse of permute; tests use it to prove bijectivity.
func (f *feistel) invert(index uint64) uint64 {
	u := f.decode(index)
	for u >= f.n {
		u = f.decode(u)
	}
	return u
}

func (f *feistel) encode(index uint64) uint64 {
	left := (index >> f.halfBits) & f.rightMask
	right := index & f.rightMask
	for _, key := range f.keys[:feistelRounds] {
		left, right = right, left^f.round(right, key)
	}
	return left<<f.halfBits | right
}

func (f *feistel) decode(index uint64) uint64 {
	left := (index >> f.halfBits) & f.rightMask
	right := index & f.rightMask
	for i := feistelRounds - 1; i >= 0; i-- {
		left, right = right^f.round(left, f.keys[i]), left
	}
	return left<<f.halfBits | right
}

// round is F(right, key): the first 8 bytes (BE) of blake2b-512 over
// right (u64 BE) || key (u64 BE), masked to the half width.
func (f *feistel) round(right, key uint64) uint64 {
	var data [16]byte
	binary.BigEndian.PutUint64(data[0:8], right)
	binary.BigEndian.PutUint64(data[8:16], key)
	h := blake2b.Sum512(data[:])
	return binary.BigEndian.Uint64(h[0:8]) & f.rightMask
}
