package paramcheck

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzParseManifest: no manifest makes ParseManifest panic, take long or
// allocate more than its size allows (fuzzcheck); a rejection wraps
// ErrManifest; an accepted manifest has unique plain .params/.vk names in
// order and well-formed digests, and written back in paramfetch's format
// it parses to the same entries. Seeds: the official manifest (also
// testdata/upstream/parameters.json), testdata/fuzz/FuzzParseManifest and
// hostile variants below.
func FuzzParseManifest(f *testing.F) {
	f.Add(officialJSON)
	s := string(officialJSON)
	f.Add([]byte(s[:len(s)/2]))
	f.Add([]byte(strings.Replace(s, `"sector_size": 2048`, `"sector_size": "2048"`, 1)))
	f.Add([]byte(strings.Replace(s, `"sector_size": 2048`, `"sector_size": 99999999999999999999999`, 1)))
	f.Add([]byte(s + s))
	f.Add([]byte(`{"../x.params": {"digest": "00000000000000000000000000000000"}}`))
	f.Add([]byte(`{"a.vk": {"digest": "00000000000000000000000000000000", "name": "b.vk", "x": [[[[[[[[[]]]]]]]]]}}`))
	f.Add([]byte(strings.Repeat(`{"a.vk":`, 1000)))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() { _, _ = ParseManifest(data) })
		m, err := ParseManifest(data)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("rejection does not wrap ErrManifest: %v", err)
			}
			return
		}
		raw := map[string]Entry{}
		for i, e := range m {
			if i > 0 && m[i-1].Name >= e.Name {
				t.Fatalf("entries %q and %q out of order or repeated", m[i-1].Name, e.Name)
			}
			if !isDigest(e.Digest) || strings.ContainsAny(e.Name, `/\`) {
				t.Fatalf("accepted entry %+v", e)
			}
			raw[e.Name] = e
		}
		enc, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseManifest(enc)
		if err != nil {
			t.Fatalf("manifest written back does not parse: %v", err)
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("manifest written back parses to %+v, want %+v", again, m)
		}
	})
}
