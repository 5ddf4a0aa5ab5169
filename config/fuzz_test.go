package config

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzParse: no TOML file makes Parse panic, take long or allocate more
// than its size allows (fuzzcheck); a rejection is TOML the decoder
// refuses (toml.ParseError, which names the line), a value of the wrong
// type (naming the key) or wraps ErrUnknownKey or ErrInvalidValue; an accepted config written back by
// the TOML encoder parses to the same values. Seeds: the reference
// config/cuzk.example.toml, docs/cuzk-operator.toml,
// testdata/fuzz/FuzzParse and variants below.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"cuzk.example.toml", "../docs/cuzk-operator.toml"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	for _, s := range []string{
		"",
		"[daemon]\nlisen = \"x\"\n",
		"[daemon]\nlisten = 1\n",
		"[memory]\ntotal_budget = \"99999999999PiB\"\nsafety_margin = \"-1GiB\"\n",
		"[memory]\neviction_min_idle = 9223372036854775807\n",
		"[srs]\npreload = \"x\"\n[synthesis]\npartition_workers = 4\n",
		"[gpus]\ndevices = [0, 1, 4294967296]\n",
		"[a.b.c.d.e.f]\nx = 1\n",
		"x = " + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + "\n",
		"[logging]\nlevel = \"\\u0000\"\n",
		"[daemon]\nLISTEN = \"unix:///x\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() { _, _ = Parse(data) })
		c, err := Parse(data)
		if err != nil {
			// The decoder's type mismatches are plain errors, but they
			// name the key ("last key"), as Parse promises.
			var pe toml.ParseError
			if !errors.As(err, &pe) && !errors.Is(err, ErrUnknownKey) && !errors.Is(err, ErrInvalidValue) &&
				!strings.Contains(err.Error(), "(last key ") {
				t.Fatalf("rejection names no line or key and wraps no sentinel: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(values(*c)); err != nil {
			t.Fatalf("accepted config does not encode: %v", err)
		}
		back, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("accepted config written back does not parse: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(values(*back), values(*c)) {
			t.Fatalf("round trip changed the config\nencoded:\n%s\ngot  %+v\nwant %+v", buf.String(), values(*back), values(*c))
		}
	})
}
