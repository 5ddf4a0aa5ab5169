package fr32

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func filled(v byte, last byte) [32]byte {
	var b [32]byte
	for i := range b {
		b[i] = v
	}
	b[31] = last
	return b
}

// The cases are rust-fil-proofs' test_bytes_into_fr_into_bytes plus the
// modulus itself and r-1.
func TestToElement(t *testing.T) {
	var seq [32]byte
	for i := range seq {
		seq[i] = byte(i)
	}
	// r = 0x73eda753...00000001, written little-endian.
	r := [32]byte{0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
		0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73}
	rMinus1 := r
	rMinus1[0] = 0x00
	cases := []struct {
		name string
		in   [32]byte
		ok   bool
	}{
		{"sequence", seq, true},
		{"all ff top 0x73", filled(0xff, 115), false},
		{"all ff top 0x72", filled(0xff, 114), true},
		{"ff.. ec 73", func() [32]byte { b := filled(0xff, 115); b[30] = 236; return b }(), true},
		{"ff.. ed 73", func() [32]byte { b := filled(0xff, 115); b[30] = 237; return b }(), false},
		{"r-1", rMinus1, true},
		{"r", r, false},
		{"zero", [32]byte{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := ToElement(c.in)
			if !c.ok {
				if !errors.Is(err, ErrNonCanonical) {
					t.Fatalf("ToElement: got err %v, want ErrNonCanonical", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ToElement: %v", err)
			}
			if got := FromElement(&e); got != c.in {
				t.Fatalf("round trip: got %x want %x", got, c.in)
			}
		})
	}
}

func TestToElementValue(t *testing.T) {
	// 0x0102 little-endian is 513.
	e, err := ToElement([32]byte{0x01, 0x02})
	if err != nil {
		t.Fatal(err)
	}
	want := fr.NewElement(0x0201)
	if !e.Equal(&want) {
		t.Fatalf("got %s want %s", e.String(), want.String())
	}
	// -1 = r-1 must encode as the canonical LE bytes of r-1.
	var m1 fr.Element
	m1.SetOne().Neg(&m1)
	b := FromElement(&m1)
	if b[0] != 0x00 || b[1] != 0x00 || b[4] != 0xff || b[31] != 0x73 {
		t.Fatalf("FromElement(-1) = %x", b)
	}
}

func TestTrimToFr32(t *testing.T) {
	b := filled(0xff, 0xff)
	TrimToFr32(&b)
	if b[31] != 0x3f || b[30] != 0xff {
		t.Fatalf("got %x", b)
	}
	if _, err := ToElement(b); err != nil {
		t.Fatalf("trimmed bytes must be canonical: %v", err)
	}
}

// padBitwise is an independent, bit-by-bit statement of fr32 padding: copy the
// LE bit stream, inserting two zero bits after every 254 data bits.
func padBitwise(src []byte) []byte {
	out := make([]byte, len(src)/UnpaddedChunkSize*PaddedChunkSize)
	o := 0
	for i := 0; i < len(src)*8; i++ {
		if i > 0 && i%dataBits == 0 {
			o += 2
		}
		if src[i/8]>>(i%8)&1 == 1 {
			out[o/8] |= 1 << (o % 8)
		}
		o++
	}
	return out
}

func TestPadVectors(t *testing.T) {
	// All ones: every element is 254 one bits followed by two zero bits.
	src := bytes.Repeat([]byte{0xff}, 127)
	want := make([]byte, 128)
	for q := 0; q < 4; q++ {
		for i := 0; i < 31; i++ {
			want[32*q+i] = 0xff
		}
		want[32*q+31] = 0x3f
	}
	got := make([]byte, 128)
	if err := Pad(got, src); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("all ones:\n got %x\nwant %x", got, want)
	}

	// Single set bits land where the 2-bit gaps push them.
	for _, c := range []struct{ rawBit, paddedBit int }{
		{0, 0}, {253, 253}, {254, 256}, {507, 509}, {508, 512}, {762, 768}, {1015, 1021},
	} {
		src := make([]byte, 127)
		src[c.rawBit/8] = 1 << (c.rawBit % 8)
		want := make([]byte, 128)
		want[c.paddedBit/8] = 1 << (c.paddedBit % 8)
		got := make([]byte, 128)
		if err := Pad(got, src); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("raw bit %d:\n got %x\nwant %x", c.rawBit, got, want)
		}
	}
}

func TestPadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, chunks := range []int{1, 2, 8, 33} {
		src := make([]byte, chunks*UnpaddedChunkSize)
		for i := range src {
			src[i] = byte(rng.Uint32())
		}
		padded := make([]byte, chunks*PaddedChunkSize)
		if err := Pad(padded, src); err != nil {
			t.Fatal(err)
		}
		if want := padBitwise(src); !bytes.Equal(padded, want) {
			t.Fatalf("%d chunks: Pad differs from the bitwise reference", chunks)
		}
		for q := 0; q < len(padded); q += 32 {
			var b [32]byte
			copy(b[:], padded[q:])
			if _, err := ToElement(b); err != nil {
				t.Fatalf("padded element %d not canonical", q/32)
			}
		}
		back := make([]byte, len(src))
		if err := Unpad(back, padded); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, src) {
			t.Fatalf("%d chunks: round trip mismatch", chunks)
		}
		// Pad bits are ignored on the way back.
		for q := 31; q < len(padded); q += 32 {
			padded[q] |= 0xc0
		}
		if err := Unpad(back, padded); err != nil || !bytes.Equal(back, src) {
			t.Fatalf("%d chunks: unpad must ignore pad bits", chunks)
		}
	}
}

func TestPadLengthErrors(t *testing.T) {
	cases := []struct {
		name     string
		dst, src int
		unpad    bool
	}{
		{"pad partial chunk", 128, 126, false},
		{"pad short dst", 127, 127, false},
		{"pad long dst", 256, 127, false},
		{"unpad partial chunk", 127, 127, true},
		{"unpad short dst", 126, 128, true},
	}
	for _, c := range cases {
		var err error
		if c.unpad {
			err = Unpad(make([]byte, c.dst), make([]byte, c.src))
		} else {
			err = Pad(make([]byte, c.dst), make([]byte, c.src))
		}
		if !errors.Is(err, ErrChunkLength) {
			t.Errorf("%s: got %v, want ErrChunkLength", c.name, err)
		}
	}
	if err := Pad(nil, nil); err != nil {
		t.Errorf("empty Pad: %v", err)
	}
}

func TestSizes(t *testing.T) {
	cases := []struct{ unpadded, padded uint64 }{
		{0, 0},
		{127, 128},
		{254, 256},
		{2032, 2048},
		{1016, 1024},
		{8323072, 8388608},         // 8 MiB sector
		{34091302912, 34359738368}, // 32 GiB sector
	}
	for _, c := range cases {
		if got := PaddedSize(c.unpadded); got != c.padded {
			t.Errorf("PaddedSize(%d) = %d, want %d", c.unpadded, got, c.padded)
		}
		if got := UnpaddedSize(c.padded); got != c.unpadded {
			t.Errorf("UnpaddedSize(%d) = %d, want %d", c.padded, got, c.unpadded)
		}
	}
	// Partial elements: 40 raw bytes = 254 bits in one element + 66 bits, which
	// need 9 more bytes (the example in padding.rs).
	if got := PaddedSize(40); got != 41 {
		t.Errorf("PaddedSize(40) = %d, want 41", got)
	}
	if got := UnpaddedSize(41); got != 40 {
		t.Errorf("UnpaddedSize(41) = %d, want 40", got)
	}
}

func BenchmarkPad(b *testing.B) {
	src := make([]byte, 1<<20/PaddedChunkSize*UnpaddedChunkSize)
	dst := make([]byte, 1<<20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if err := Pad(dst, src); err != nil {
			b.Fatal(err)
		}
	}
}
