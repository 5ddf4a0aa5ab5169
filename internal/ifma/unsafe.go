package ifma

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// groups is the n groups starting at z.
func groups(z *Fp8, n int) []Fp8 { return unsafe.Slice(z, n) }

// strided is element i of a sequence of elements stride 64-bit words apart.
func strided(base *fp.Element, stride, i int) *fp.Element {
	return (*fp.Element)(unsafe.Add(unsafe.Pointer(base), 8*stride*i))
}

// modulusWords is p as six little-endian words.
var modulusWords = wordsOf(fp.Modulus())

func wordsOf(b *big.Int) fp.Element {
	var buf [48]byte
	b.FillBytes(buf[:])
	var e fp.Element
	for i := range e {
		e[i] = binary.BigEndian.Uint64(buf[40-8*i:])
	}
	return e
}

func bigOf(e *fp.Element) *big.Int {
	var buf [48]byte
	for i, w := range e {
		binary.BigEndian.PutUint64(buf[40-8*i:], w)
	}
	return new(big.Int).SetBytes(buf[:])
}

// belowModulus reports whether the integer a (not its field value) is below p.
func belowModulus(a *fp.Element) bool {
	for i := 5; i >= 0; i-- {
		if a[i] != modulusWords[i] {
			return a[i] < modulusWords[i]
		}
	}
	return false
}

// reduced is a mod p for any 384-bit a (gnark-crypto's arithmetic wants
// its operands below p; the multiplication kernel accepts one that is not).
func reduced(a *fp.Element) *fp.Element {
	if belowModulus(a) {
		return a
	}
	r := wordsOf(new(big.Int).Mod(bigOf(a), fp.Modulus()))
	return &r
}

// randomElement is a uniformly random integer below p (seeded tests and
// the known-answer check).
func randomElement(rng *rand.Rand) fp.Element {
	var b [48]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return wordsOf(new(big.Int).Mod(new(big.Int).SetBytes(b[:]), fp.Modulus()))
}
