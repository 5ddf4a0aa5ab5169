package paramcheck

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/crypto/blake2b"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/regfile"
)

//go:embed parameters.json
var officialJSON []byte

// DigestLen is the length of a manifest digest in hex characters.
const DigestLen = 32

// ErrManifest is returned when a manifest does not parse or an entry is
// malformed.
var ErrManifest = errors.New("invalid parameter manifest")

// Entry is one file of a manifest.
type Entry struct {
	Name       string `json:"name"`
	CID        string `json:"cid"`
	Digest     string `json:"digest"`
	SectorSize uint64 `json:"sector_size"`
}

// Manifest is a parameter manifest's entries, sorted by name.
type Manifest []Entry

// Official is the embedded official manifest.
func Official() Manifest {
	m, err := ParseManifest(officialJSON)
	if err != nil {
		panic(err) // the embedded file is checked by the tests
	}
	return m
}

// ParseManifest reads a manifest in paramfetch's format: a JSON object
// from file name to {"cid", "digest", "sector_size"}. Every name must be a
// plain .params or .vk file name and every digest 32 lower-case hex
// characters; fields it does not know are ignored, as paramfetch does.
func ParseManifest(data []byte) (Manifest, error) {
	var raw map[string]Entry
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrManifest, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the JSON object", ErrManifest)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: no entries", ErrManifest)
	}
	m := make(Manifest, 0, len(raw))
	for name, e := range raw {
		switch {
		case name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, "."):
			return nil, fmt.Errorf("%w: %q is not a plain file name", ErrManifest, name)
		case !strings.HasSuffix(name, filecoin.ParamsExt) && !strings.HasSuffix(name, filecoin.VerifyingKeyExt):
			return nil, fmt.Errorf("%w: %q is neither a %s nor a %s file", ErrManifest, name, filecoin.ParamsExt, filecoin.VerifyingKeyExt)
		case !isDigest(e.Digest):
			return nil, fmt.Errorf("%w: %s: digest %q is not %d lower-case hex characters", ErrManifest, name, e.Digest, DigestLen)
		}
		e.Name = name
		m = append(m, e)
	}
	slices.SortFunc(m, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return m, nil
}

func isDigest(s string) bool {
	if len(s) != DigestLen {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Select returns the entries a prover of sectorSize needs: that size's
// .params and .vk files. 0 selects everything.
func (m Manifest) Select(sectorSize uint64) Manifest {
	if sectorSize == 0 {
		return slices.Clone(m)
	}
	var out Manifest
	for _, e := range m {
		if e.SectorSize == sectorSize {
			out = append(out, e)
		}
	}
	return out
}

// chunk is how much Digest reads at a time: big enough for the disk,
// small enough that a cancel is noticed at once.
const chunk = 4 << 20

// Digest returns the manifest digest of what r yields: the first 16
// bytes of its BLAKE2b-512 hash, in hex. It checks ctx between chunks and
// calls progress (when not nil) with the bytes read so far after each.
func Digest(ctx context.Context, r io.Reader, progress func(done int64)) (string, error) {
	h, err := blake2b.New512(nil)
	if err != nil {
		return "", err
	}
	buf := make([]byte, chunk)
	var done int64
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := io.ReadFull(r, buf)
		h.Write(buf[:n])
		done += int64(n)
		if progress != nil && n > 0 {
			progress(done)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("at byte %d: %w", done, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:DigestLen/2]), nil
}

// State is what Check found for one file.
type State int

// States, as Check reports them.
const (
	OK         State = iota // present, digest as the manifest says
	Missing                 // no such file
	Mismatch                // present, another digest
	Insecure                // another digest, and cuzk's INSECURE test-parameter marker beside it
	Unreadable              // could not be read (Result.Err says why)
)

func (s State) String() string {
	switch s {
	case OK:
		return "ok"
	case Missing:
		return "missing"
	case Mismatch:
		return "wrong digest"
	case Insecure:
		return "INSECURE test parameters"
	case Unreadable:
		return "unreadable"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// MarshalText writes the state as String does.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Result is one file's outcome.
type Result struct {
	Entry
	Path  string `json:"path"`
	State State  `json:"state"`
	Size  int64  `json:"size,omitempty"` // bytes, when present
	// Got is the file's digest (OK, Mismatch, Insecure).
	Got string `json:"got,omitempty"`
	// Marker is the INSECURE-TEST-PARAMETERS marker beside the file, when
	// there is one (with an OK file it is stale: the file is official).
	Marker string `json:"marker,omitempty"`
	Err    error  `json:"-"`
}

// Options tune Check.
type Options struct {
	// SectorSize, when not 0, checks only that size's files; see
	// Manifest.Select.
	SectorSize uint64
	// Progress, when not nil, is called while a file is read, with the
	// bytes read so far (r.Size is its length).
	Progress func(r *Result, done int64)
	// Record, when not nil, records every digest computed (as its Verify
	// would, in RecordFile beside the file), so that a daemon reading the
	// directory later, even without the right to write it, need not hash
	// the files again.
	Record *Verifier
}

// Check verifies the files of m (as opt selects them) in dir, one after
// the other, in m's order. The error is not nil only when ctx ended: the
// results of the files finished so far come with it.
func Check(ctx context.Context, dir string, m Manifest, opt Options) ([]Result, error) {
	sel := m.Select(opt.SectorSize)
	out := make([]Result, 0, len(sel))
	for _, e := range sel {
		r := Result{Entry: e, Path: filepath.Join(dir, e.Name)}
		if err := checkFile(ctx, &r, opt.Progress, opt.Record); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// checkFile fills r; it returns an error only when ctx ended.
func checkFile(ctx context.Context, r *Result, progress func(*Result, int64), record *Verifier) error {
	marker := markerPath(r.Path)
	if _, err := os.Stat(marker); err == nil {
		r.Marker = marker
	}
	// A FIFO or device under a parameter's name is reported, not waited on.
	f, st, err := regfile.Open(r.Path)
	if errors.Is(err, os.ErrNotExist) {
		r.State = Missing
		return nil
	}
	if errors.Is(err, regfile.ErrNotRegular) {
		r.State, r.Err = Unreadable, fmt.Errorf("%s is not a regular file", r.Path)
		return nil
	}
	if err != nil {
		r.State, r.Err = Unreadable, err
		return nil
	}
	defer f.Close()
	r.Size = st.Size()
	var report func(int64)
	if progress != nil {
		progress(r, 0)
		report = func(done int64) { progress(r, done) }
	}
	got, err := Digest(ctx, f, report)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		r.State, r.Err = Unreadable, fmt.Errorf("%s: %w", r.Path, err)
		return nil
	}
	r.Got = got
	if record != nil {
		record.remember(r.Path, st, got)
	}
	switch {
	case got == r.Digest:
		r.State = OK
	case r.Marker != "":
		r.State = Insecure
	default:
		r.State = Mismatch
	}
	return nil
}

// markerPath is where package testparams puts the marker of the
// parameter set a .params or .vk file belongs to.
func markerPath(path string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(path, filecoin.ParamsExt), filecoin.VerifyingKeyExt)
	return base + filecoin.ParamsExt + filecoin.TestMarkerSuffix
}
