package groth16

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// polkaDir holds the real 2 KiB PoRep proof made by rust-fil-proofs
// (bellperson) with its own parameters, its key and its 39 public inputs.
var polkaDir = filepath.Join("..", "testdata", "polka-2kib-porep")

// polkaHexInputs are the polka proof's public inputs as its public.json
// writes them: 64-hex little-endian field elements.
func polkaHexInputs(t testing.TB) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(polkaDir, "public.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pub struct {
		Derived struct {
			Inputs []string `json:"public_inputs_fr_le_hex"`
		} `json:"derived"`
	}
	if err := json.Unmarshal(raw, &pub); err != nil {
		t.Fatal(err)
	}
	return pub.Derived.Inputs
}

// loadPolka checks the vk reader, proof decoding and the verifier against
// Rust output.
func loadPolka(t *testing.T) (*VerifyingKey, []byte, []fr.Element) {
	t.Helper()
	vk, err := ReadVerifyingKeyFile(filepath.Join(polkaDir, "vk.bin"))
	if err != nil {
		t.Fatal(err)
	}
	proof, err := os.ReadFile(filepath.Join(polkaDir, "proof.bin"))
	if err != nil {
		t.Fatal(err)
	}
	hexInputs := polkaHexInputs(t)
	inputs := make([]fr.Element, len(hexInputs))
	for i, h := range hexInputs {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 32 {
			t.Fatalf("input %d: bad hex %q", i, h)
		}
		if inputs[i], err = fr.LittleEndian.Element((*[32]byte)(b)); err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
	}
	return vk, proof, inputs
}

func TestPolkaProofVerifies(t *testing.T) {
	vk, proofBytes, inputs := loadPolka(t)
	if len(vk.IC) != 40 || len(inputs) != 39 {
		t.Fatalf("vk has %d IC points, %d inputs", len(vk.IC), len(inputs))
	}
	if got := vk.Bytes(); string(got) != string(mustRead(t, "../testdata/polka-2kib-porep/vk.bin")) {
		t.Fatal("vk does not re-encode to the same bytes")
	}
	var proof Proof
	if err := proof.UnmarshalBinary(proofBytes); err != nil {
		t.Fatal(err)
	}
	if b := proof.Bytes(); string(b[:]) != string(proofBytes) {
		t.Fatal("proof does not re-encode to the same bytes")
	}
	pvk, err := Prepare(vk)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := Verify(pvk, &proof, inputs)
	if err != nil || !ok {
		t.Fatalf("real proof rejected: ok=%v err=%v", ok, err)
	}
	// Any changed input must be rejected.
	for i := range inputs {
		bad := append([]fr.Element(nil), inputs...)
		one := fr.One()
		bad[i].Add(&bad[i], &one)
		if ok, err := Verify(pvk, &proof, bad); err != nil || ok {
			t.Errorf("input %d changed: ok=%v err=%v", i, ok, err)
		}
	}
	if _, err := Verify(pvk, &proof, inputs[:38]); !errors.Is(err, ErrInputCount) {
		t.Errorf("short inputs: err=%v, want ErrInputCount", err)
	}
	// The same proof twice through the batch verifier, then with one bad.
	ok, err = VerifyBatch(pvk, []Proof{proof, proof}, [][]fr.Element{inputs, inputs}, nil)
	if err != nil || !ok {
		t.Fatalf("batch of valid proofs rejected: %v %v", ok, err)
	}
	bad := append([]fr.Element(nil), inputs...)
	bad[2].SetUint64(5)
	if ok, _ := VerifyBatch(pvk, []Proof{proof, proof}, [][]fr.Element{inputs, bad}, nil); ok {
		t.Fatal("batch with a bad member accepted")
	}
}

func TestProofDecodeRejects(t *testing.T) {
	_, proofBytes, _ := loadPolka(t)
	var p Proof
	if err := p.UnmarshalBinary(proofBytes[:191]); !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v", err)
	}
	for _, off := range []int{5, 60, 150} { // inside A, B, C
		b := append([]byte(nil), proofBytes...)
		b[off] ^= 0x01
		err := p.UnmarshalBinary(b)
		if err == nil {
			// A flipped x coordinate can land on another valid point;
			// then the proof must fail verification instead.
			vk, _, inputs := loadPolka(t)
			pvk, _ := Prepare(vk)
			if ok, _ := Verify(pvk, &p, inputs); ok {
				t.Errorf("flip at %d: still verifies", off)
			}
			continue
		}
		var pe *PointError
		if !errors.As(err, &pe) {
			t.Errorf("flip at %d: error %v does not say which point", off, err)
		}
	}
	inf := append([]byte(nil), proofBytes...)
	inf[0] = 0xc0
	for i := 1; i < 48; i++ {
		inf[i] = 0
	}
	if err := p.UnmarshalBinary(inf); !errors.Is(err, ErrInfinity) {
		t.Errorf("A at infinity: %v", err)
	}
}

func TestVerifyingKeyDecodeRejects(t *testing.T) {
	raw := mustRead(t, "../testdata/polka-2kib-porep/vk.bin")
	for _, n := range []int{0, 95, 500, len(raw) - 1} {
		if _, _, err := DecodeVerifyingKey(raw[:n]); !errors.Is(err, ErrTruncated) {
			t.Errorf("truncated to %d: %v", n, err)
		}
	}
	b := append([]byte(nil), raw...)
	b[vkFixedSize+96*3+40] ^= 0x04 // y of IC[3]
	_, _, err := DecodeVerifyingKey(b)
	var pe *PointError
	if !errors.As(err, &pe) || pe.Vector != "vk.ic" || pe.Index != 3 || !errors.Is(err, ErrNotOnCurve) {
		t.Errorf("corrupt IC[3]: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVerifyingKeyDecodeICChunks: the IC points are decoded in chunks on
// several workers; a bad point is still named by its own index and offset,
// and of two bad points the first is reported, whichever chunk finishes
// first.
func TestVerifyingKeyDecodeICChunks(t *testing.T) {
	full := mustRead(t, "../testdata/fullsize/window-post-64GiB/v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk")
	const n = 3*icChunk + 7 // four chunks, the last one short
	raw := append([]byte(nil), full[:vkFixedSize+n*G1Uncompressed]...)
	binary.BigEndian.PutUint32(raw[vkFixedSize-4:], n)
	vk, used, err := DecodeVerifyingKey(raw)
	if err != nil || used != len(raw) || len(vk.IC) != n {
		t.Fatalf("%d points: %v, %d of %d bytes used", n, err, used, len(raw))
	}
	for _, i := range []int{0, icChunk, n - 1} {
		var want bls.G1Affine
		if err := decodeG1Uncompressed(&want, raw[vkFixedSize+i*G1Uncompressed:], true); err != nil || !vk.IC[i].Equal(&want) {
			t.Fatalf("IC[%d] decoded as %v, one at a time %v (%v)", i, vk.IC[i], want, err)
		}
	}
	corrupt := func(idx ...int) []byte {
		b := append([]byte(nil), raw...)
		for _, i := range idx {
			b[vkFixedSize+i*G1Uncompressed+40] ^= 0x04 // a bit of x: off the curve
		}
		return b
	}
	for _, tc := range []struct {
		bad  []int
		want int
	}{
		{[]int{n - 1}, n - 1},
		{[]int{2*icChunk + 5, icChunk + 1}, icChunk + 1},
		{[]int{3*icChunk + 1, 0}, 0},
	} {
		_, _, err := DecodeVerifyingKey(corrupt(tc.bad...))
		var pe *PointError
		if !errors.As(err, &pe) || pe.Vector != "vk.ic" || pe.Index != tc.want || pe.Offset != int64(vkFixedSize+tc.want*G1Uncompressed) || !errors.Is(err, ErrNotOnCurve) {
			t.Errorf("IC %v corrupt: %v, want IC[%d] off the curve", tc.bad, err, tc.want)
		}
	}
}
