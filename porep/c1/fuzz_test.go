package c1

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzParse requires that no input makes the decoder, the validator or the
// wrapper parser panic, take long or allocate more than its size allows,
// and that whatever decodes re-encodes to a canonical form that decodes to
// the same canonical form. Seeds: testdata/fuzz/FuzzParse (small crafted
// documents) and, below, the Rust 2 KiB C1 and variants of it; the
// megabyte worst cases run in TestWorstCasesAreRejected, where they do
// not slow the fuzzer down.
func FuzzParse(f *testing.F) {
	raw := rustC1(f, "2KiB")
	f.Add(raw)
	f.Add([]byte(strings.Replace(string(raw), `"index":1},`, `"index":1.0},`, 1)))
	f.Add([]byte(strings.Replace(string(raw), `"Single"`, `"Sub"`, 1)))
	f.Add([]byte(`{"SectorNum":1,"Phase1Out":"e30=","SectorSize":2048}`))
	f.Add([]byte(`{"registered_proof":"StackedDrg2KiBV1","vanilla_proofs":{"StackedDrg2KiBV1":[[]]}}`))
	f.Add([]byte(`"\ud800\udc00"`))
	if o, err := Unmarshal(raw); err == nil {
		w, _ := Wrap(o, 7).MarshalJSON()
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() {
			_, _, _ = ParseAny(data)
			_, _ = UnmarshalVanillaProofs(data)
			if o, err := Unmarshal(data); err == nil {
				_ = o.Validate()
			}
		})
		o, err := Unmarshal(data)
		if err != nil {
			return
		}
		_ = o.Validate()
		enc := o.AppendJSON(nil)
		o2, err := Unmarshal(enc)
		if err != nil {
			t.Fatalf("re-encoded C1 does not decode: %v", err)
		}
		if enc2 := o2.AppendJSON(nil); !bytes.Equal(enc, enc2) {
			t.Fatal("encoding is not stable")
		}
	})
}

// FuzzParseWrapped is the daemon's PoRep decoder: SubmitProofRequest's
// vanilla_proof goes to ParseWrapped (engine/porepkind). Whatever the
// input, it must not panic, take long or allocate more than its size
// allows; a rejection is a *Error naming a path; an accepted envelope
// re-encodes to an envelope that parses to the same C1. Seeds:
// testdata/fuzz/FuzzParseWrapped and the Rust 2 KiB C1 wrapped.
func FuzzParseWrapped(f *testing.F) {
	if o, err := Unmarshal(rustC1(f, "2KiB")); err == nil {
		w, _ := Wrap(o, 7).MarshalJSON()
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() { _, _, _ = ParseWrapped(data) })
		o, w, err := ParseWrapped(data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("rejection is no *c1.Error: %v", err)
			}
			return
		}
		enc, err := Wrap(o, w.SectorNum).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		o2, w2, err := ParseWrapped(enc)
		if err != nil {
			t.Fatalf("re-wrapped C1 does not parse: %v", err)
		}
		if w2.SectorNum != w.SectorNum || w2.SectorSize != w.SectorSize || !bytes.Equal(o2.AppendJSON(nil), o.AppendJSON(nil)) {
			t.Fatal("re-wrapped C1 differs")
		}
	})
}

// worstCases are inputs of about 1 MB built to be slow or costly to
// reject: long runs of escapes, of nesting, of base64, of array elements.
func worstCases() map[string][]byte {
	const n = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, n/len(s)) }
	b64 := base64.StdEncoding.EncodeToString([]byte(`{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1_1":[[` +
		rep(`{"comm_d_proofs":{}},`)))
	return map[string][]byte{
		"escapes":         []byte(`"` + rep(`\u0041`) + `"`),
		"nesting":         []byte(rep(`[`)),
		"object nesting":  []byte(rep(`{"a":`)),
		"long key":        []byte(`{"` + rep("k") + `":1}`),
		"long number":     []byte(`{"SectorNum":` + rep("9") + `}`),
		"base64 zeros":    []byte(`{"SectorNum":1,"Phase1Out":"` + rep("AAAA") + `","SectorSize":2048}`),
		"base64 elements": []byte(`{"SectorNum":1,"Phase1Out":"` + b64 + `","SectorSize":2048}`),
		"proof elements": []byte(`{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1_1":[[` +
			rep(`{"comm_d_proofs":{}},`)),
		"parents": []byte(`{"registered_proof":"StackedDrg2KiBV1_1","vanilla_proofs":{"StackedDrg2KiBV1_1":[[{"replica_column_proofs":{"c_x":{"column":{"index":0,"rows":[` +
			rep(`"0000000000000000000000000000000000000000000000000000000000000000",`)),
	}
}

// TestWorstCasesAreRejected: each crafted worst case is rejected, by every
// entry point, within the time and allocation bounds (FuzzParse runs them
// too; this names the case that fails).
func TestWorstCasesAreRejected(t *testing.T) {
	for name, b := range worstCases() {
		t.Run(name, func(t *testing.T) {
			fuzzcheck.Check(t, len(b), func() {
				if _, _, err := ParseAny(b); err == nil {
					t.Error("ParseAny accepted it")
				}
				if _, _, err := ParseWrapped(b); err == nil {
					t.Error("ParseWrapped accepted it")
				}
				if _, err := UnmarshalVanillaProofs(b); err == nil {
					t.Error("UnmarshalVanillaProofs accepted it")
				}
			})
		})
	}
}
