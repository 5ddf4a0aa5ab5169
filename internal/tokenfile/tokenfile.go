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
// MinTokenLen characters of printable ASCII without spaces (what
// `openssl rand -hex 32` prints); a name is up to 64 letters, digits or
// ".-_@". One name may have several tokens (the old and the new one while
// a token is rotated); one token may not have two names. A client's file
// holds a single line, with or without a name, so the daemon's file of a
// one-token setup serves its clients too.
package tokenfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// MinTokenLen is the shortest token accepted: 32 characters carry at least
// 128 bits when they come from hex or base64 of random bytes.
const MinTokenLen = 32

// MaxTokenLen bounds a token (and so the metadata a client sends).
const MaxTokenLen = 4096

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
		return nil, fmt.Errorf("%w: no token in it (want a line with at least %d characters, e.g. from `openssl rand -hex 32`)", ErrInvalid, MinTokenLen)
	}
	return out, nil
}

// CheckToken checks a token's length and characters; the error does not
// repeat the token.
func CheckToken(tok string) error {
	if len(tok) < MinTokenLen {
		return fmt.Errorf("token is %d characters, want at least %d (e.g. `openssl rand -hex 32`)", len(tok), MinTokenLen)
	}
	if len(tok) > MaxTokenLen {
		return fmt.Errorf("token is %d characters, at most %d are accepted", len(tok), MaxTokenLen)
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("token has a byte 0x%02x at offset %d; only printable ASCII without spaces is accepted", c, i)
		}
	}
	return nil
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

// Read reads and parses the token file at path.
func Read(path string) ([]Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	es, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("token file %s: %w", path, err)
	}
	return es, nil
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
