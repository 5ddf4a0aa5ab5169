package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/snap"
)

// seedFiles adds each file that exists, whole and cut in half.
func seedFiles(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
}

// hasKey reports whether the JSON object data has key set to a value
// other than null, matching keys as encoding/json does (without regard
// to case, so "Registered_Proof" counts).
func hasKey(data []byte, key string) bool {
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for k, v := range m {
		if strings.EqualFold(k, key) && v != nil {
			return true
		}
	}
	return false
}

// hostileJSON are documents every JSON reader here must reject or
// accept quickly: wrong types, huge numbers, deep nesting, long strings.
var hostileJSON = []string{
	``, `null`, `[]`, `{}`, `"x"`,
	`{"registered_proof": "8", "randomness": 1, "sectors": {}}`,
	`{"registered_proof": 99999999999999999999, "randomness": "00", "sectors": [{}]}`,
	`{"registered_proof": -1, "randomness": "x", "sectors": [{"sector_id": -1, "comm_r": 5}]}`,
	`{"registered_proof": null, "randomness": "x", "sectors": [{}]}`,
	strings.Repeat(`{"a":`, 5000),
	strings.Repeat(`[`, 5000),
	`{"randomness": "` + strings.Repeat(`\u0041`, 2000) + `"}`,
}

// FuzzParsePoStPublic is `cuzk verify-post --public`: no file makes
// post.ParsePublicFile, or the randomness and sector parsing verify-post runs
// on what it returns, panic, take long or allocate more than the file's
// size allows (fuzzcheck); an accepted file has its registered_proof,
// randomness and sectors, and written back as JSON it parses to the same
// values. Seeds: the 32 GiB WindowPoSt public.json, the rustref 2 KiB one,
// testdata/fuzz/FuzzParsePoStPublic and hostileJSON.
func FuzzParsePoStPublic(f *testing.F) {
	seedFiles(f, "../../testdata/fullsize/window-post-32GiB/public.json", "../../testdata/rustref/post/outside-window-2k/public.json")
	for _, s := range hostileJSON {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		use := func(pub *post.PublicFile) {
			ids := make([]string, len(pub.Sectors))
			for i, s := range pub.Sectors {
				ids[i] = fmt.Sprintf("%d:%s", s.SectorID, s.CommR)
			}
			_, _ = parseRandomness(pub.Randomness)
			_, _ = parseSectors(strings.Join(ids, ","))
		}
		fuzzcheck.Check(t, len(data), func() {
			if pub, err := post.ParsePublicFile(data); err == nil {
				use(pub)
			}
		})
		pub, err := post.ParsePublicFile(data)
		if err != nil {
			return
		}
		if pub.Randomness == "" || len(pub.Sectors) == 0 || !hasKey(data, "registered_proof") {
			t.Fatalf("accepted without its required values: %+v", pub)
		}
		enc, err := json.Marshal(pub)
		if err != nil {
			t.Fatal(err)
		}
		again, err := post.ParsePublicFile(enc)
		if err != nil {
			t.Fatalf("public values written back do not parse: %v\n%s", err, enc)
		}
		if enc2, _ := json.Marshal(again); !bytes.Equal(enc2, enc) {
			t.Fatalf("public values written back differ:\n%s\n%s", enc, enc2)
		}
	})
}

// FuzzParseUpdateFile is `cuzk verify-update --update`: no file makes
// snap.ParseUpdateFile, or the commitment parsing verify-update runs on what
// it returns, panic, take long or allocate more than the file's size
// allows (fuzzcheck); an accepted file has its registered_proof, and
// written back as JSON it parses to the same values. Seeds: the rustref
// 2 KiB and 8 MiB update.json, testdata/fuzz/FuzzParseUpdateFile and
// hostileJSON.
func FuzzParseUpdateFile(f *testing.F) {
	seedFiles(f, "../../testdata/rustref/update/2KiB/update.json", "../../testdata/rustref/update/8MiB/update.json")
	for _, s := range hostileJSON {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() {
			if u, err := snap.ParseUpdateFile(data); err == nil {
				var h hex32
				for _, v := range []string{u.CommROld, u.CommRNew, u.CommDNew} {
					_ = h.Set(v)
				}
			}
		})
		u, err := snap.ParseUpdateFile(data)
		if err != nil {
			return
		}
		if !hasKey(data, "registered_proof") {
			t.Fatalf("accepted without registered_proof: %+v", u)
		}
		enc, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		again, err := snap.ParseUpdateFile(enc)
		if err != nil {
			t.Fatalf("update written back does not parse: %v\n%s", err, enc)
		}
		if enc2, _ := json.Marshal(again); !bytes.Equal(enc2, enc) {
			t.Fatalf("update written back differs:\n%s\n%s", enc, enc2)
		}
	})
}

// FuzzParseInputs is `cuzk verify-groth16 --inputs`: no file makes
// parseInputs panic, take long or allocate more than its size allows
// (fuzzcheck); an accepted file has one vector per proof, and its
// elements written back as an array of arrays of hex parse to the same
// elements; a rejected element is named by its index. Seeds: the polka
// 2 KiB PoRep's 39 inputs (flat and nested), testdata/fuzz/FuzzParseInputs
// and hostileJSON.
func FuzzParseInputs(f *testing.F) {
	raw, err := os.ReadFile("../../testdata/polka-2kib-porep/public.json")
	if err != nil {
		f.Fatal(err)
	}
	var pub struct {
		Derived struct {
			Inputs []string `json:"public_inputs_fr_le_hex"`
		} `json:"derived"`
	}
	if err := json.Unmarshal(raw, &pub); err != nil {
		f.Fatal(err)
	}
	flat, _ := json.Marshal(pub.Derived.Inputs)
	nested, _ := json.Marshal([][]string{pub.Derived.Inputs, pub.Derived.Inputs})
	f.Add(flat, uint8(1))
	f.Add(flat[:len(flat)/2], uint8(1))
	f.Add(nested, uint8(2))
	f.Add(nested, uint8(3))
	f.Add(bytes.Replace(flat, []byte(`"`), []byte(`"ff`), 1), uint8(1))
	f.Add([]byte(`["`+strings.Repeat("f", 64)+`"]`), uint8(1))
	for _, s := range hostileJSON {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		nProofs := int(n % 5)
		fuzzcheck.Check(t, len(data), func() { _, _ = parseInputs(data, nProofs) })
		in, err := parseInputs(data, nProofs)
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
		again, err := parseInputs(enc, nProofs)
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
