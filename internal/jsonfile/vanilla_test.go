package jsonfile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

func TestParseVanilla(t *testing.T) {
	b64 := `["` + base64.StdEncoding.EncodeToString([]byte("one")) + `", "` + base64.StdEncoding.EncodeToString([]byte("two")) + `"]`
	got, err := ParseVanilla([]byte(b64))
	if err != nil || len(got) != 2 || string(got[0]) != "one" || string(got[1]) != "two" {
		t.Fatalf("%q %v", got, err)
	}
	raw := []byte{0, 1, 2}
	if got, err := ParseVanilla(raw); err != nil || len(got) != 1 || string(got[0]) != string(raw) {
		t.Fatalf("raw: %q %v", got, err)
	}
	if _, err := ParseVanilla([]byte(`["not base64!"]`)); err == nil || !strings.Contains(err.Error(), "vanilla proof 0") {
		t.Fatal(err)
	}
}

// FuzzParseVanilla: no --vanilla file makes ParseVanilla panic,
// take long or allocate more than its size allows (fuzzcheck); a file
// that is not a JSON array of strings (null included) is the one raw
// proof, byte for byte; a rejection names the proof; an accepted array written back with
// json.Marshal parses to the same proofs. Seeds: the rustref 2 KiB
// WindowPoSt vanilla file and variants below.
func FuzzParseVanilla(f *testing.F) {
	if b, err := os.ReadFile("../../testdata/rustref/post/2KiB/window.vanilla.json"); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(bytes.Replace(b, []byte(`"]`), []byte(`=="]`), 1))
	}
	for _, s := range []string{
		`[]`, `null`, `["", "AA=="]`, `["not base64!"]`, `[1, 2]`, `[["AA=="]]`, `{"a": "AA=="}`,
		"\x01\x00\x00\x00\x00\x00\x00\x00", ` ["AAAA"] `, strings.Repeat("[", 10000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() { _, _ = ParseVanilla(data) })
		proofs, err := ParseVanilla(data)
		var strs []string
		isArray := json.Unmarshal(bytes.TrimSpace(data), &strs) == nil && strs != nil
		switch {
		case err != nil:
			if !isArray || !strings.HasPrefix(err.Error(), "vanilla proof ") {
				t.Fatalf("rejection names no proof: %v", err)
			}
			return
		case !isArray:
			if len(proofs) != 1 || !bytes.Equal(proofs[0], data) {
				t.Fatalf("raw file read as %d proofs", len(proofs))
			}
			return
		case len(proofs) != len(strs):
			t.Fatalf("%d strings read as %d proofs", len(strs), len(proofs))
		}
		enc, err := json.Marshal(proofs)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseVanilla(enc)
		if err != nil {
			t.Fatalf("proofs written back do not parse: %v", err)
		}
		if len(again) != len(proofs) {
			t.Fatalf("proofs written back: %d, want %d", len(again), len(proofs))
		}
		for i := range again {
			if !bytes.Equal(again[i], proofs[i]) {
				t.Fatalf("proof %d written back differs", i)
			}
		}
	})
}
