package tokenfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const (
	tokA = "0123456789abcdef0123456789abcdef"
	tokB = "fedcba9876543210fedcba9876543210ff"
)

func TestParse(t *testing.T) {
	got, err := Parse([]byte("# keys\n\n  " + tokA + "  \ncurio-a " + tokB + "\r\ncurio-a " + tokA + "x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{DefaultName, tokA}, {"curio-a", tokB}, {"curio-a", tokA + "x"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "no token"},
		{"\n  \n# only a comment\n", "no token"},
		{"short", "line 1: token is 5 characters, want at least 32"},
		{"# c\nname " + tokA[:31], "line 2: token is 31 characters"},
		{"a b c", "line 1 has 3 fields"},
		{"bad/name " + tokA, `name "bad/name" has '/'`},
		{tokA + "\x01", "byte 0x01 at offset 32"},
		{"a " + tokA + "\nb " + tokA, `line 2: the same token is named both "a" and "b"`},
		{strings.Repeat("x", MaxTokenLen+1), "at most 4096"},
	} {
		_, err := Parse([]byte(tc.src))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%.40q) = %v, want ErrInvalid with %q", tc.src, err, tc.want)
		}
		if err != nil && len(tc.src) >= MinTokenLen && strings.Contains(err.Error(), tokA) {
			t.Errorf("Parse(%.40q) error repeats the token: %v", tc.src, err)
		}
	}
}

func TestReadOne(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one")
	two := filepath.Join(dir, "two")
	os.WriteFile(one, []byte("curio "+tokA+"\n"), 0o600)
	os.WriteFile(two, []byte(tokA+"\n"+tokB+"\n"), 0o600)
	if tok, err := ReadOne(one); err != nil || tok != tokA {
		t.Errorf("ReadOne(one) = %q, %v", tok, err)
	}
	if _, err := ReadOne(two); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "holds 2 tokens") {
		t.Errorf("ReadOne(two) = %v", err)
	}
	if _, err := ReadOne(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadOne(missing) = %v", err)
	}
}
