package tokenfile

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// FuzzParse: no token file makes Parse panic, take long or allocate more
// than its size allows (fuzzcheck); a rejection wraps ErrInvalid and
// repeats no field that could be a token (one of MinTokenLen characters
// or more that is not a valid name); an accepted file's entries, written
// back as "NAME TOKEN" lines, parse to the same entries. Seeds:
// testdata/fuzz/FuzzParse and the lines of the package's tests.
func FuzzParse(f *testing.F) {
	tok := "a54d96af99dbddfe2cc195472a3ef8b7e9deaa0b968681adb282baff0b85058c"
	for _, s := range []string{
		tok,
		tok + "\n",
		"# daemon tokens\n\ncurio-a " + tok + "\ncurio-a " + tok + "x\n" + tok + "y\r\n",
		"a " + tok + "\nb " + tok,
		"bad/name " + tok,
		"dGhpcyBpcyBhIGJhc2U2NCB0b2tlbiB3aXRoICsgYW5kIC8+/== old",
		tok + " trailing words here",
		tok[:31],
		tok + "\x01",
		strings.Repeat("x", MaxTokenLen+1),
		strings.Repeat("n", 65) + " " + tok,
		strings.Repeat("\n", 1000),
		strings.Repeat("3f0c", 16),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() { _, _ = Parse(data) })
		es, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("rejection does not wrap ErrInvalid: %v", err)
			}
			for _, w := range strings.Fields(string(data)) {
				if len(w) >= MinTokenLen && checkName(w) != nil && strings.Contains(err.Error(), w) {
					t.Fatalf("rejection repeats a possible token %.10q…: %v", w, err)
				}
			}
			return
		}
		var b strings.Builder
		for _, e := range es {
			if CheckToken(e.Token) != nil || (e.Name != DefaultName && checkName(e.Name) != nil) {
				t.Fatalf("accepted entry %q does not check", e)
			}
			b.WriteString(e.Name + " " + e.Token + "\n")
		}
		again, err := Parse([]byte(b.String()))
		if err != nil {
			t.Fatalf("entries written back do not parse: %v", err)
		}
		if !reflect.DeepEqual(again, es) {
			t.Fatalf("entries written back parse to %q, want %q", again, es)
		}
	})
}
