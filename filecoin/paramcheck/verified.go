package paramcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/internal/regfile"
)

// RecordFile is the name of the file, in a parameter directory, where a
// Verifier records the digests it computed, so that a restarted daemon
// does not hash 47 GB again.
const RecordFile = ".cuzk-verified.json"

// recordVersion is the layout of RecordFile; a file of another version is
// ignored (and rewritten).
const recordVersion = 1

// record is what is known of one file: the digest of its contents when it
// had this size and modification time.
type record struct {
	Size    int64  `json:"size"`
	MTimeNS int64  `json:"mtime_ns"`
	Digest  string `json:"digest"`
	// HashedAt is when the digest was computed (for the operator).
	HashedAt time.Time `json:"hashed_at"`
}

type recordFile struct {
	Version int               `json:"version"`
	Files   map[string]record `json:"files"` // by file name
}

// Outcome is what Verifier.Verify found.
type Outcome int

// Outcomes.
const (
	// Verified: the file's digest is the manifest's.
	Verified Outcome = iota
	// WrongDigest: the name is in the manifest, the contents are not the
	// file it names.
	WrongDigest
	// NotListed: the manifest has no file of this name.
	NotListed
)

func (o Outcome) String() string {
	switch o {
	case Verified:
		return "digest-verified"
	case WrongDigest:
		return "wrong digest"
	case NotListed:
		return "not in the manifest"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Verdict is one file's outcome.
type Verdict struct {
	Outcome Outcome
	// Cached says the digest came from a record of the file at the same
	// size and modification time (in RecordFile or in memory), not from
	// hashing it now.
	Cached bool
	Digest string // the file's (empty when NotListed)
	Want   string // the manifest's (empty when NotListed)
}

// Verifier checks files under official names against a manifest's
// digests, hashing each file once per (path, size, modification time):
// the digest is recorded in RecordFile beside the file and in memory, and
// a later Verify of the unchanged file (in this process or after a
// restart) reads the record instead of the file. A file whose size or
// modification time differ from the record is hashed again. Where
// RecordFile cannot be written (a read-only directory) the record lives
// in memory only, for the life of the process. It is safe for concurrent
// use.
type Verifier struct {
	digests map[string]string // manifest: file name -> digest
	log     *slog.Logger

	mu  sync.Mutex
	mem map[string]record // by cleaned path
}

// NewVerifier returns a verifier against m (Official() for the daemon).
func NewVerifier(m Manifest, log *slog.Logger) *Verifier {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := make(map[string]string, len(m))
	for _, e := range m {
		d[e.Name] = e.Digest
	}
	return &Verifier{digests: d, log: log, mem: map[string]record{}}
}

// Verify says whether the file at path has the digest the manifest gives
// its name, hashing it unless a record of it at its current size and
// modification time exists. The error is ctx's, or the file's (a missing
// file wraps os.ErrNotExist).
func (v *Verifier) Verify(ctx context.Context, path string) (Verdict, error) {
	path = filepath.Clean(path)
	want, ok := v.digests[filepath.Base(path)]
	if !ok {
		return Verdict{Outcome: NotListed}, nil
	}
	st, err := statRegular(path)
	if err != nil {
		return Verdict{}, err
	}
	verdict := func(digest string, cached bool) Verdict {
		o := Verified
		if digest != want {
			o = WrongDigest
		}
		return Verdict{Outcome: o, Cached: cached, Digest: digest, Want: want}
	}
	if r, ok := v.lookup(path); ok && r.Size == st.Size() && r.MTimeNS == st.ModTime().UnixNano() {
		return verdict(r.Digest, true), nil
	}

	// The file may have been swapped for a FIFO since the stat.
	f, _, err := regfile.Open(path)
	if err != nil {
		return Verdict{}, err
	}
	defer f.Close()
	t := time.Now()
	v.log.Info("hashing parameter file against the official manifest (once per size and mtime)", "params", path, "bytes", st.Size())
	digest, err := Digest(ctx, f, nil)
	if err != nil {
		if ctx.Err() != nil {
			return Verdict{}, ctx.Err()
		}
		return Verdict{}, fmt.Errorf("%s: %w", path, err)
	}
	v.log.Info("parameter file hashed", "params", path, "digest", digest, "official", digest == want, "duration", time.Since(t).Round(time.Millisecond))
	v.remember(path, st, digest)
	return verdict(digest, false), nil
}

// remember records digest for the file at path, which was st when its
// hashing began. Only what is still true is recorded: a file rewritten
// while it was read is hashed again next time.
func (v *Verifier) remember(path string, st os.FileInfo, digest string) {
	path = filepath.Clean(path)
	after, err := os.Stat(path)
	if err != nil || after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		return
	}
	v.store(path, record{Size: st.Size(), MTimeNS: st.ModTime().UnixNano(), Digest: digest, HashedAt: time.Now().UTC()})
}

func statRegular(path string) (os.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return st, nil
}

// lookup returns the record of path: the in-memory one, else the one in
// its directory's RecordFile.
func (v *Verifier) lookup(path string) (record, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.mem[path]; ok {
		return r, true
	}
	rf, err := readRecords(filepath.Join(filepath.Dir(path), RecordFile))
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			v.log.Warn("ignoring the parameter digest record", "file", filepath.Join(filepath.Dir(path), RecordFile), "err", err)
		}
		return record{}, false
	}
	r, ok := rf.Files[filepath.Base(path)]
	return r, ok
}

// store records r for path in memory and in its directory's RecordFile
// (rewritten whole, by rename, so a reader never sees half of it).
func (v *Verifier) store(path string, r record) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.mem[path] = r
	name := filepath.Join(filepath.Dir(path), RecordFile)
	rf, err := readRecords(name)
	if err != nil {
		rf = &recordFile{}
	}
	rf.Version = recordVersion
	if rf.Files == nil {
		rf.Files = map[string]record{}
	}
	rf.Files[filepath.Base(path)] = r
	if err := writeRecords(name, rf); err != nil {
		v.log.Info("cannot write the parameter digest record; it is kept in memory until the daemon exits, and the file is hashed again after a restart",
			"file", name, "err", err)
	}
}

func readRecords(name string) (*recordFile, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var rf recordFile
	if err := json.Unmarshal(b, &rf); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if rf.Version != recordVersion {
		return nil, fmt.Errorf("%s: version %d, want %d", name, rf.Version, recordVersion)
	}
	return &rf, nil
}

func writeRecords(name string, rf *recordFile) error {
	b, err := json.MarshalIndent(rf, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), RecordFile+".tmp*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
