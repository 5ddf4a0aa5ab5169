//go:build cuda

package gpu

import (
	"math/big"
	"testing"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
)

// TestLayout is how we know the Go values handed to the kernels need no
// conversion: the sizes and offsets the C++ compiler gave supraseal's and
// sppark's types (reported by the translation unit that holds the kernels)
// equal those of gnark-crypto's types and of the C structs cgo fills.
func TestLayout(t *testing.T) {
	l := cppLayout()
	var proof groth16.Proof
	var g1 bls.G1Affine
	for _, c := range []struct {
		name      string
		cpp, goes uintptr
	}{
		{"sizeof(fr_t) vs fr.Element", l[sizeofFr], unsafe.Sizeof(fr.Element{})},
		{"alignof(fr_t) vs fr.Element", l[alignofFr], unsafe.Alignof(fr.Element{})},
		{"sizeof(fp_t) vs fp.Element", l[sizeofFp], unsafe.Sizeof(fp.Element{})},
		{"sizeof(affine_t) vs G1Affine", l[sizeofG1], unsafe.Sizeof(bls.G1Affine{})},
		{"sizeof(fp_t) vs offsetof(G1Affine.Y)", l[sizeofFp], unsafe.Offsetof(g1.Y)},
		{"sizeof(affine_fp2_t) vs G2Affine", l[sizeofG2], unsafe.Sizeof(bls.G2Affine{})},
		{"sizeof(groth16_proof) vs groth16.Proof", l[sizeofProof], unsafe.Sizeof(proof)},
		{"offsetof(groth16_proof, a)", l[offProofA], unsafe.Offsetof(proof.A)},
		{"offsetof(groth16_proof, b)", l[offProofB], unsafe.Offsetof(proof.B)},
		{"offsetof(groth16_proof, c)", l[offProofC], unsafe.Offsetof(proof.C)},
		{"sizeof(Assignment<fr_t>) vs cuzk_assignment", l[sizeofAssignment], cgoSizeofAssignment()},
	} {
		if c.cpp != c.goes {
			t.Errorf("%s: C++ %d, Go %d", c.name, c.cpp, c.goes)
		}
	}
	for _, f := range assignmentFields() {
		if l[f.index] != f.offset {
			t.Errorf("Assignment<fr_t>::%s at %d in C++, %d in the cgo struct", f.name, l[f.index], f.offset)
		}
	}
	// 4 limbs of 64 bits, as blst's vec256; a Bitset word is a uint64_t.
	if unsafe.Sizeof(fr.Element{}) != 32 || unsafe.Sizeof(fr.Element{}[0]) != 8 {
		t.Errorf("fr.Element is not 4×uint64")
	}
}

func randomFr(t *testing.T) fr.Element {
	var e fr.Element
	if _, err := e.SetRandom(); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestMontgomeryAgreement checks that a gnark-crypto element means the same
// number to blst: same limb order, same Montgomery radix, same modulus.
func TestMontgomeryAgreement(t *testing.T) {
	for _, v := range []uint64{0, 1, 2, 7, 1 << 63} {
		if got, want := cFrFromU64(v), fr.NewElement(v); got != want {
			t.Errorf("fr_t(%d) = %v, gnark %v", v, got, want)
		}
	}
	one := fr.One()
	if !cFrIsOne(&one) {
		t.Error("blst: gnark's one is not one")
	}
	two := fr.NewElement(2)
	if cFrIsOne(&two) {
		t.Error("blst: two is one")
	}
	var minusOne fr.Element
	minusOne.Neg(&one)
	for i := 0; i < 64; i++ {
		a, b := randomFr(t), randomFr(t)
		if i == 0 {
			a = minusOne
		}
		var want fr.Element
		want.Mul(&a, &b)
		if got := cFrMul(&a, &b); got != want {
			t.Fatalf("blst a·b = %v, gnark %v", got.String(), want.String())
		}
		// Round trip: blst's canonical value is gnark's, little-endian.
		canon := cFrCanonical(&a)
		var le [32]byte
		fr.LittleEndian.PutElement(&le, a)
		if canon != le {
			t.Fatalf("blst canonical %x, gnark %x", canon, le)
		}
		back, err := fr.LittleEndian.Element(&canon)
		if err != nil || back != a {
			t.Fatalf("round trip: %v, %v", back.String(), err)
		}
	}
}

// TestPointDecoding decodes .params-style uncompressed points with blst,
// as supraseal's SRS reader does, straight into gnark-crypto points: the
// Fp limbs and Montgomery form agree too, and infinity is (0, 0) in both.
func TestPointDecoding(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	for i := 0; i < 8; i++ {
		var k fr.Element
		if i > 0 {
			k = randomFr(t)
		}
		var p1 bls.G1Affine
		var p2 bls.G2Affine
		if i > 0 {
			p1.ScalarMultiplication(&g1, k.BigInt(new(big.Int)))
			p2.ScalarMultiplication(&g2, k.BigInt(new(big.Int)))
		} // i == 0: both at infinity
		raw1 := p1.RawBytes()
		got1, code := cG1Deserialize(&raw1)
		if code != 0 || got1 != p1 {
			t.Fatalf("G1 %d: blst %v (code %d), gnark %v", i, got1, code, p1)
		}
		raw2 := p2.RawBytes()
		got2, code := cG2Deserialize(&raw2)
		if code != 0 || got2 != p2 {
			t.Fatalf("G2 %d: blst %v (code %d), gnark %v", i, got2, code, p2)
		}
	}
	// A point off the curve is refused by blst too.
	p := g1
	raw := p.RawBytes()
	raw[95] ^= 1
	if _, code := cG1Deserialize(&raw); code == 0 {
		t.Fatal("blst accepted a point off the curve")
	}
}
