package groth16

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// The decoders read files and RPC payloads of unknown provenance. The fuzz
// targets below check, for any input, that decoding never panics, that an
// accepted input re-encodes to exactly its bytes (so nothing is silently
// normalised), and that a rejection is typed: the format sentinel of what
// was decoded, plus a *PointError (with a point sentinel) or a *FormatError,
// naming a byte offset inside the input. Seeds live in
// testdata/fuzz/<FuzzName>/: small valid encodings, truncations and hostile
// length prefixes.

// Each target also runs fuzzcheck.Check: no input takes over 100 ms or
// allocates more than its size allows, which go test checks on the seed
// corpus and the crafted hostile inputs below in every run.

// checkRejection asserts the error contract of the decoders.
func checkRejection(t *testing.T, err error, format error, n int) {
	t.Helper()
	if !errors.Is(err, format) {
		t.Fatalf("error %q does not wrap %q", err, format)
	}
	var pe *PointError
	var fe *FormatError
	switch {
	case errors.As(err, &pe):
		if pe.Offset < 0 || pe.Offset > int64(n) {
			t.Fatalf("point error at byte %d of %d: %v", pe.Offset, n, err)
		}
		ok := false
		for _, s := range []error{ErrTruncated, ErrInvalidEncoding, ErrNotOnCurve, ErrInfinity, ErrNotInSubgroup} {
			ok = ok || errors.Is(err, s)
		}
		if !ok {
			t.Fatalf("point error without a point sentinel: %v", err)
		}
	case errors.As(err, &fe):
		if fe.Offset < 0 || fe.Offset > int64(n) {
			t.Fatalf("format error at byte %d of %d: %v", fe.Offset, n, err)
		}
	default:
		t.Fatalf("error names no offset: %v", err)
	}
}

func FuzzDecodeParams(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Check(t, len(b), func() { _, _ = DecodeParams(b, LoadOptions{SubgroupChecks: true, Workers: 1}) })
		p, err := DecodeParams(b, LoadOptions{SubgroupChecks: true, Workers: 1})
		if err != nil {
			checkRejection(t, err, ErrParamsFormat, len(b))
			return
		}
		var buf bytes.Buffer
		if _, err := p.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), b) {
			t.Fatal("accepted params do not re-encode to their bytes")
		}
	})
}

func FuzzDecodeVerifyingKey(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Check(t, len(b), func() { _, _, _ = DecodeVerifyingKey(b) })
		vk, n, err := DecodeVerifyingKey(b)
		if err != nil {
			checkRejection(t, err, ErrVerifyingKeyFormat, len(b))
			return
		}
		if n > len(b) || !bytes.Equal(vk.Bytes(), b[:n]) {
			t.Fatal("accepted vk does not re-encode to its bytes")
		}
	})
}

func FuzzDecodeProofs(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzcheck.Check(t, len(b), func() {
			_, _ = DecodeProofs(b)
			var p Proof
			_ = p.UnmarshalBinary(b)
		})
		proofs, err := DecodeProofs(b)
		if err != nil {
			checkRejection(t, err, ErrProofFormat, len(b))
		} else if !bytes.Equal(EncodeProofs(proofs), b) {
			t.Fatal("accepted proofs do not re-encode to their bytes")
		}
		var p Proof
		err = p.UnmarshalBinary(b)
		switch {
		case err != nil:
			checkRejection(t, err, ErrProofFormat, len(b))
		case len(b) != ProofSize || len(proofs) != 1 || proofs[0] != p:
			t.Fatal("UnmarshalBinary accepted what DecodeProofs did not")
		}
	})
}

// hostile returns inputs of about 1 MB that a decoder must reject: random
// bytes, zeros, a valid vk whose IC or h length claims 2^31 points, and a
// valid encoding followed by garbage.
func hostile(t testing.TB) map[string][]byte {
	p, raw := smallParams(t)
	const size = 1 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, size)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	pad := func(b []byte) []byte { return append(b, make([]byte, size-len(b))...) }
	vk := p.VK.Bytes()
	icLen := append([]byte(nil), vk...)
	binary.BigEndian.PutUint32(icLen[vkFixedSize-4:], 1<<31)
	hLen := append([]byte(nil), raw...)
	binary.BigEndian.PutUint32(hLen[len(vk):], 1<<31)
	return map[string][]byte{
		"random":       random,
		"zeros":        make([]byte, size),
		"ic 2^31":      pad(icLen),
		"h 2^31":       pad(hLen),
		"params+junk":  pad(append([]byte(nil), raw...)),
		"vk+junk":      pad(append([]byte(nil), vk...)),
		"ic all ones":  pad(append(append([]byte(nil), vk[:vkFixedSize-4]...), 0xff, 0xff, 0xff, 0xff)),
		"params cut 1": raw[:len(raw)-1],
	}
}

// A hostile length prefix is rejected before anything is allocated for it,
// and no ~1 MB input takes long to reject.
func TestDecodersRejectHostileInputs(t *testing.T) {
	for name, b := range hostile(t) {
		decoders := map[string]func() error{
			"params": func() error { _, err := DecodeParams(b, LoadOptions{SubgroupChecks: true, Workers: 1}); return err },
			"vk":     func() error { _, _, err := DecodeVerifyingKey(b); return err },
			"proofs": func() error { _, err := DecodeProofs(b); return err },
		}
		for dec, run := range decoders {
			if dec == "vk" && (name == "vk+junk" || name == "params+junk" || name == "h 2^31" || name == "params cut 1") {
				continue // a valid vk sits at the front: DecodeVerifyingKey accepts it
			}
			start := time.Now()
			err := run()
			if elapsed := time.Since(start); elapsed > 100*time.Millisecond {
				t.Errorf("%s/%s: rejected in %v", dec, name, elapsed)
			}
			if err == nil {
				t.Errorf("%s/%s: accepted", dec, name)
				continue
			}
			// At most a few KiB: nothing proportional to a claimed length.
			allocs := testing.AllocsPerRun(3, func() { run() })
			if allocs > 64 {
				t.Errorf("%s/%s: %v allocations to reject", dec, name, allocs)
			}
		}
	}
}

// The bytes a rejection allocates stay far below what a hostile length
// claims (2^31 points would be 192 GiB).
func TestHostileLengthAllocatesNothing(t *testing.T) {
	in := hostile(t)
	for _, name := range []string{"ic 2^31", "h 2^31"} {
		b := in[name]
		var before, after runtimeMem
		before.read()
		for range 10 {
			if _, err := DecodeParams(b, LoadOptions{Workers: 1}); err == nil {
				t.Fatalf("%s accepted", name)
			}
		}
		after.read()
		if d := after.total - before.total; d > 1<<20 {
			t.Errorf("%s: %d bytes allocated over 10 rejections", name, d)
		}
	}
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// FuzzParseInputs is `cuzk verify-groth16 --inputs` (VerifyFiles): no
// file makes ParseInputs panic, take long or allocate more than its size allows
// (fuzzcheck); an accepted file has one vector per proof, and its
// elements written back as an array of arrays of hex parse to the same
// elements; a rejected element is named by its index. Seeds: the polka
// 2 KiB PoRep's 39 inputs (flat and nested), testdata/fuzz/FuzzParseInputs
// and fuzzcheck.HostileJSON.
func FuzzParseInputs(f *testing.F) {
	inputs := polkaHexInputs(f)
	flat, _ := json.Marshal(inputs)
	nested, _ := json.Marshal([][]string{inputs, inputs})
	f.Add(flat, uint8(1))
	f.Add(flat[:len(flat)/2], uint8(1))
	f.Add(nested, uint8(2))
	f.Add(nested, uint8(3))
	f.Add(bytes.Replace(flat, []byte(`"`), []byte(`"ff`), 1), uint8(1))
	f.Add([]byte(`["`+strings.Repeat("f", 64)+`"]`), uint8(1))
	for _, s := range fuzzcheck.HostileJSON() {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		nProofs := int(n % 5)
		fuzzcheck.Check(t, len(data), func() { _, _ = ParseInputs(data, nProofs) })
		in, err := ParseInputs(data, nProofs)
		if err != nil {
			if strings.Contains(err.Error(), "hex") && !strings.Contains(err.Error(), "input ") && !strings.Contains(err.Error(), "JSON") {
				t.Fatalf("rejected element not named by its index: %v", err)
			}
			return
		}
		if len(in) != nProofs {
			t.Fatalf("%d vectors for %d proofs", len(in), nProofs)
		}
		hexes := make([][]string, len(in))
		for i, v := range in {
			hexes[i] = make([]string, len(v))
			for j := range v {
				var b [32]byte
				fr.LittleEndian.PutElement(&b, v[j])
				hexes[i][j] = hex.EncodeToString(b[:])
			}
		}
		enc, _ := json.Marshal(hexes)
		again, err := ParseInputs(enc, nProofs)
		if err != nil {
			t.Fatalf("inputs written back do not parse: %v", err)
		}
		for i := range in {
			if len(again[i]) != len(in[i]) {
				t.Fatalf("vector %d written back has %d inputs, want %d", i, len(again[i]), len(in[i]))
			}
			for j := range in[i] {
				if !again[i][j].Equal(&in[i][j]) {
					t.Fatalf("input %d of vector %d written back differs", j, i)
				}
			}
		}
	})
}
