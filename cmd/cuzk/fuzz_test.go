package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

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
	// Raw values: a field the parser skips may hold a number no float64
	// holds (4e864), which decoding into any would refuse.
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for k, v := range m {
		if strings.EqualFold(k, key) && string(v) != "null" {
			return true
		}
	}
	return false
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
	for _, s := range fuzzcheck.HostileJSON() {
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
	for _, s := range fuzzcheck.HostileJSON() {
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
