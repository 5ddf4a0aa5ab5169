package tokenfile

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cuzk-dev/cuzk/internal/regfile"
)

const (
	tokA = "57bf0320457c2a59fa2eab18bc934873"
	tokB = "14d73a767565ea95d6bb866527a2d83f1d"
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
		{strings.Repeat("a", 32), "one character repeated"},
		{strings.Repeat("a", 31) + "b", "too few different characters"},
		{strings.Repeat("3f0c", 16), "a unit of 4 characters repeated"},
		{strings.Repeat("0123456789abcdef", 2), "a unit of 16 characters repeated"},
		{strings.Repeat("ab", 40), "head -c 32 /dev/urandom | base64"},
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

// TestStrength: what `head -c 32 /dev/urandom | base64` and `openssl rand
// -hex 16` print is accepted, every time; weak tokens are not (issue 34
// item 6).
func TestStrength(t *testing.T) {
	for i := 0; i < 2000; i++ {
		var b [32]byte
		rand.Read(b[:])
		for _, tok := range []string{base64.StdEncoding.EncodeToString(b[:]), hex.EncodeToString(b[:16]), base64.RawURLEncoding.EncodeToString(b[:24])} {
			if err := CheckToken(tok); err != nil {
				t.Fatalf("a random token refused: %v", err)
			}
		}
	}
	for _, weak := range []string{
		strings.Repeat("a", 32), strings.Repeat("ab", 16), strings.Repeat("abc", 11), strings.Repeat("0123456789abcdef", 4),
		strings.Repeat("0", 63) + "1", strings.Repeat("Zm9v", 11),
	} {
		err := CheckToken(weak)
		if err == nil || !strings.Contains(err.Error(), "want at least 128") || !strings.Contains(err.Error(), HowToMake) {
			t.Errorf("CheckToken(%.16q…) = %v, want a refusal saying how to make one", weak, err)
		}
	}
}

// TestReadServer: the daemon's token file is refused when group- or
// world-writable or not a regular file (a FIFO is refused at once, not
// waited on); a client's Read takes the writable one (issue 34 item 6).
func TestReadServer(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tokens")
	if err := os.WriteFile(p, []byte(tokA+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o600, 0o640, 0o644, 0o400} {
		os.Chmod(p, mode)
		if es, fi, err := ReadServer(p); err != nil || len(es) != 1 || fi.Mode().Perm() != mode {
			t.Errorf("mode %v: %v %v", mode, es, err)
		}
	}
	for _, mode := range []os.FileMode{0o620, 0o602, 0o666, 0o660} {
		os.Chmod(p, mode)
		if _, _, err := ReadServer(p); !errors.Is(err, ErrWritable) || !strings.Contains(err.Error(), "chmod go-w") {
			t.Errorf("mode %v: %v, want ErrWritable", mode, err)
		}
		if _, err := Read(p); err != nil {
			t.Errorf("Read with mode %v: %v", mode, err)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := ReadServer(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("a FIFO: %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a FIFO token file blocked")
	}
	if _, _, err := ReadServer(dir); !errors.Is(err, regfile.ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
}
