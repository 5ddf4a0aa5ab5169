package hash

import (
	"crypto/sha256"

	"github.com/cuzk-dev/cuzk/fr32"
)

// Sha254 returns SHA-256 over the concatenation of parts with the top two bits
// of the digest cleared (Sha256Function::hash upstream).
func Sha254(parts ...[]byte) [32]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
	}
	var d [32]byte
	h.Sum(d[:0])
	fr32.TrimToFr32(&d)
	return d
}

// Sha254Pair returns Sha254(left || right), the tree_d node function
// (Sha256Function::node upstream). It does not allocate.
func Sha254Pair(left, right *[32]byte) [32]byte {
	var buf [64]byte
	copy(buf[:32], left[:])
	copy(buf[32:], right[:])
	d := sha256.Sum256(buf[:])
	fr32.TrimToFr32(&d)
	return d
}
