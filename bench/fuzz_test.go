package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzParseVanillaFile: no --vanilla file makes ParseVanillaFile panic,
// take long or allocate more than its size allows (fuzzcheck); a file
// that is not a JSON array of strings (null included) is the one raw
// proof, byte for byte; a rejection names the proof; an accepted array written back with
// json.Marshal parses to the same proofs. Seeds: the rustref 2 KiB
// WindowPoSt vanilla file and variants below.
func FuzzParseVanillaFile(f *testing.F) {
	if b, err := os.ReadFile("../testdata/rustref/post/2KiB/window.vanilla.json"); err == nil {
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
		fuzzcheck.Check(t, len(data), func() { _, _ = ParseVanillaFile(data) })
		proofs, err := ParseVanillaFile(data)
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
		again, err := ParseVanillaFile(enc)
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

// FuzzParseMetrics: no metrics text makes ParseMetrics panic, take long
// or allocate more than its size allows (fuzzcheck); what parses has
// families in strict name order, of a known type, and encodes as JSON
// (no NaN or infinity left in it: bench writes the families to its
// report). Seeds: the package's sample exposition and variants below.
func FuzzParseMetrics(f *testing.F) {
	f.Add(sampleMetrics)
	f.Add(sampleMetrics[:len(sampleMetrics)/2])
	f.Add(strings.ReplaceAll(sampleMetrics, " 5\n", " NaN\n"))
	f.Add(strings.ReplaceAll(sampleMetrics, "0.5", "+Inf"))
	f.Add(sampleMetrics + sampleMetrics)
	for _, s := range []string{
		"# TYPE s summary\ns{quantile=\"0.5\"} NaN\ns_sum -Inf\ns_count 3\n",
		"# TYPE u untyped\nu{a=\"\\\"\\n\\\\\"} 1e309\n",
		"m{" + strings.Repeat(`a="b",`, 1000) + "} 1\n",
		"m 1 99999999999999999999\n",
		"not metrics {",
		"# TYPE g gauge\n# TYPE g counter\ng 1\n",
	} {
		f.Add(s)
	}
	types := map[string]bool{"counter": true, "gauge": true, "untyped": true, "summary": true, "histogram": true, "gauge_histogram": true}
	f.Fuzz(func(t *testing.T, text string) {
		fuzzcheck.Check(t, len(text), func() { _, _ = ParseMetrics(text) })
		fams, err := ParseMetrics(text)
		if err != nil {
			return
		}
		if !sort.SliceIsSorted(fams, func(i, j int) bool { return fams[i].Name < fams[j].Name }) {
			t.Fatal("families out of order")
		}
		for i, fam := range fams {
			if i > 0 && fams[i-1].Name == fam.Name {
				t.Fatalf("family %q twice", fam.Name)
			}
			if !types[fam.Type] {
				t.Fatalf("family %q of type %q", fam.Name, fam.Type)
			}
		}
		if _, err := json.Marshal(fams); err != nil {
			t.Fatalf("families do not encode as JSON: %v", err)
		}
	})
}
