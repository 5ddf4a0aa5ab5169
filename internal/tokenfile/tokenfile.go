// Package tokenfile reads the bearer-token files shared by the daemon
// ([daemon] token_file) and its clients (cuzk bench --token-file, the
// client package's Credentials).
//
// A token file holds one token per line, optionally named:
//
//	# comment
//	3f0c…64 hex characters…        a token; its caller is named "default"
//	curio-a 9b1d…64 hex characters… a token whose caller is named curio-a
//
// Blank lines and lines starting with '#' are ignored. A token is at least
// MinTokenLen characters of printable ASCII without spaces that carry at
// least MinTokenBits bits by the estimate of CheckToken (what `head -c 32
// /dev/urandom | base64` or `openssl rand -hex 32` prints); a name is up
// to 64 letters, digits or ".-_@". One name may have several tokens (the old and the new one while
// a token is rotated); one token may not have two names. A client's file
// holds a single line, with or without a name, so the daemon's file of a
// one-token setup serves its clients too.
package tokenfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"

	"github.com/cuzk-dev/cuzk/internal/regfile"
)

// MinTokenLen is the shortest token accepted: 32 characters carry at least
// 128 bits when they come from hex or base64 of random bytes.
const MinTokenLen = 32

// MaxTokenLen bounds a token (and so the metadata a client sends).
const MaxTokenLen = 4096

// MinTokenBits is the least randomness a token may carry, as CheckToken
// estimates it: guessing one then takes 2^127 tries on average.
const MinTokenBits = 128

// maxFileSize bounds a token file: thousands of tokens fit.
const maxFileSize = 1 << 20

// HowToMake is how an operator makes a token, for error messages.
const HowToMake = "make one with `head -c 32 /dev/urandom | base64`"

// DefaultName is the caller name of a token written without a name.
const DefaultName = "default"

// ErrInvalid is returned when a token file is empty, unreadable as a
// token file, or holds a token that is too short or not printable.
var ErrInvalid = errors.New("invalid token file")

// Entry is one line of a token file.
type Entry struct {
	Name  string
	Token string
}

// Parse reads a token file's contents. Errors name the line, never the
// token.
func Parse(data []byte) ([]Entry, error) {
	var out []Entry
	names := map[string]string{} // token -> name
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		f := strings.Fields(s)
		var e Entry
		switch len(f) {
		case 1:
			e = Entry{Name: DefaultName, Token: f[0]}
		case 2:
			e = Entry{Name: f[0], Token: f[1]}
			if err := checkName(e.Name); err != nil {
				return nil, fmt.Errorf("%w: line %d: %w", ErrInvalid, i+1, err)
			}
		default:
			return nil, fmt.Errorf("%w: line %d has %d fields, want TOKEN or NAME TOKEN", ErrInvalid, i+1, len(f))
		}
		if err := CheckToken(e.Token); err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrInvalid, i+1, err)
		}
		if other, ok := names[e.Token]; ok && other != e.Name {
			return nil, fmt.Errorf("%w: line %d: the same token is named both %q and %q", ErrInvalid, i+1, other, e.Name)
		}
		names[e.Token] = e.Name
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no token in it (want a line with at least %d characters: %s)", ErrInvalid, MinTokenLen, HowToMake)
	}
	return out, nil
}

// CheckToken checks a token's length, characters and randomness; the
// error does not repeat the token.
func CheckToken(tok string) error {
	if len(tok) < MinTokenLen {
		return fmt.Errorf("token is %d characters, want at least %d: %s", len(tok), MinTokenLen, HowToMake)
	}
	if len(tok) > MaxTokenLen {
		return fmt.Errorf("token is %d characters, at most %d are accepted", len(tok), MaxTokenLen)
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("token has a byte 0x%02x at offset %d; only printable ASCII without spaces is accepted", c, i)
		}
	}
	if bits, why := strength(tok); bits < MinTokenBits {
		return fmt.Errorf("token carries at most %d bits of randomness (%s), want at least %d: %s", int(bits), why, MinTokenBits, HowToMake)
	}
	return nil
}

// strength bounds from above the bits of randomness in tok, a string of
// printable ASCII, and says what limits it. It cannot tell a random token
// from a well-chosen phrase; it refuses what is certainly weak:
//
//   - a repeated unit ("ab" × 16, the hex digits twice) carries no more
//     than its unit; a unit must repeat (be at most half the token) to
//     count, so that a random token, whose last characters often equal
//     its first, is not mistaken for one;
//   - each character carries at most what its alphabet allows: 4 bits
//     when the token is all hex digits, 6 when it is all base64 (either
//     alphabet, padding included), log2(94) otherwise;
//   - the characters' own frequencies bound it too: n times their
//     empirical entropy is 0 for "a" × 32 and 6 for "a" × 31 + "b". A
//     random token of 32 hex digits scores about 110 here, so this bound
//     must only reach MinTokenBits/2 (the other two carry the 128).
func strength(tok string) (float64, string) {
	n := len(tok)
	unit := n
	for p := 1; p <= n/2; p++ {
		if tok[p:] == tok[:n-p] {
			unit = p
			break
		}
	}
	perChar, alphabet := math.Log2(94), "printable ASCII"
	switch {
	case strings.Trim(tok, "0123456789abcdefABCDEF") == "":
		perChar, alphabet = 4, "hex digits"
	case strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=") == "":
		perChar, alphabet = 6, "base64"
	}
	var counts [256]int
	for i := 0; i < n; i++ {
		counts[tok[i]]++
	}
	var h float64
	for _, c := range counts {
		if c > 0 {
			f := float64(c) / float64(n)
			h -= f * math.Log2(f)
		}
	}
	switch empirical := float64(n) * h; {
	case unit == 1:
		return perChar, "one character repeated"
	case unit < n && float64(unit)*perChar < MinTokenBits:
		return float64(unit) * perChar, fmt.Sprintf("a unit of %d characters repeated", unit)
	case empirical < MinTokenBits/2:
		return empirical, "too few different characters"
	default:
		return float64(unit) * perChar, fmt.Sprintf("%d characters of %s", unit, alphabet)
	}
}

func checkName(n string) error {
	if len(n) > 64 {
		return fmt.Errorf("name is %d characters, at most 64 are accepted", len(n))
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_@", c) >= 0) {
			// A field this long may be a token followed by a stray word
			// (base64 tokens have '+' and '/'), so it is not repeated.
			if len(n) >= MinTokenLen {
				return fmt.Errorf("name of %d characters has %q at offset %d; names use letters, digits and .-_@", len(n), c, i)
			}
			return fmt.Errorf("name %q has %q; names use letters, digits and .-_@", n, c)
		}
	}
	return nil
}

// Read reads and parses the token file at path: a regular file (a FIFO
// is refused without waiting for a writer) of at most 1 MiB.
func Read(path string) ([]Entry, error) {
	es, _, err := read(path)
	return es, err
}

func read(path string) ([]Entry, fs.FileInfo, error) {
	data, fi, err := regfile.ReadFile(path, maxFileSize)
	if err != nil {
		return nil, nil, fmt.Errorf("token file: %w", err)
	}
	es, err := Parse(data)
	if err != nil {
		return nil, nil, fmt.Errorf("token file %s: %w", path, err)
	}
	return es, fi, nil
}

// ErrWritable is returned by ReadServer for a token file that users other
// than its owner may write.
var ErrWritable = errors.New("token file is writable by other users")

// ReadServer reads the daemon's token file as Read does, and also
// refuses one that is group- or world-writable: whoever may write it may
// add a token of their own. It returns the file's information as read
// (from the open file, not a second stat).
func ReadServer(path string) ([]Entry, fs.FileInfo, error) {
	es, fi, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return nil, nil, fmt.Errorf("token file %s: %w (mode %s): chmod go-w it (0600, or 0640 for a group that reads it)", path, ErrWritable, m)
	}
	return es, fi, nil
}

// ReadOne reads a client's token file: exactly one token, named or not.
func ReadOne(path string) (string, error) {
	es, err := Read(path)
	if err != nil {
		return "", err
	}
	if len(es) != 1 {
		return "", fmt.Errorf("token file %s: %w: it holds %d tokens; a client's token file holds one", path, ErrInvalid, len(es))
	}
	return es[0].Token, nil
}
