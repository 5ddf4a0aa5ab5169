package paramcheck_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
)

// verifierFixture writes a 2 KiB file under a name the manifest lists with
// the file's digest, and returns the manifest and the path.
func verifierFixture(t *testing.T) (paramcheck.Manifest, string, []byte) {
	t.Helper()
	dir := t.TempDir()
	data := bytes.Repeat([]byte("cuzk"), 512)
	path := filepath.Join(dir, "v28-test.params")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := paramcheck.Digest(context.Background(), bytes.NewReader(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := paramcheck.ParseManifest([]byte(fmt.Sprintf(`{"v28-test.params": {"cid": "x", "digest": %q, "sector_size": 2048}}`, d)))
	if err != nil {
		t.Fatal(err)
	}
	return m, path, data
}

// rewrite replaces the file's bytes with others of the same length and
// puts its modification time back (plus shift): unless the verifier
// hashes the file again, it cannot tell.
func rewrite(t *testing.T, path string, shift time.Duration) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte("evil"), int(st.Size())/4), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime().Add(shift)); err != nil {
		t.Fatal(err)
	}
}

func verify(t *testing.T, v *paramcheck.Verifier, path string, want paramcheck.Outcome, cached bool) {
	t.Helper()
	got, err := v.Verify(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Outcome != want || got.Cached != cached {
		t.Fatalf("verdict %+v, want %v with cached=%v", got, want, cached)
	}
}

// The record beside the file is honoured by a new verifier (a restart)
// while size and mtime match: swapping the bytes under the same mtime goes
// unseen, which shows no hashing happened; a changed mtime is hashed again
// and the swap is found.
func TestVerifierRecord(t *testing.T) {
	m, path, _ := verifierFixture(t)
	verify(t, paramcheck.NewVerifier(m, nil), path, paramcheck.Verified, false)
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), paramcheck.RecordFile)); err != nil {
		t.Fatalf("no record written: %v", err)
	}

	rewrite(t, path, 0)
	verify(t, paramcheck.NewVerifier(m, nil), path, paramcheck.Verified, true)

	rewrite(t, path, time.Second)
	v := paramcheck.NewVerifier(m, nil)
	verify(t, v, path, paramcheck.WrongDigest, false)
	// The wrong digest is recorded too: the next look needs no hashing.
	verify(t, v, path, paramcheck.WrongDigest, true)
	verify(t, paramcheck.NewVerifier(m, nil), path, paramcheck.WrongDigest, true)
}

// Where the record cannot be written, the verifier remembers in memory
// only: the same verifier skips the hash, a new one hashes again.
func TestVerifierRecordUnwritable(t *testing.T) {
	m, path, _ := verifierFixture(t)
	// A directory under the record's name: neither readable as a record
	// nor replaceable by one (what a read-only directory does, and
	// root's tests cannot make a directory read-only).
	if err := os.Mkdir(filepath.Join(filepath.Dir(path), paramcheck.RecordFile), 0o755); err != nil {
		t.Fatal(err)
	}
	v := paramcheck.NewVerifier(m, nil)
	verify(t, v, path, paramcheck.Verified, false)
	rewrite(t, path, 0)
	verify(t, v, path, paramcheck.Verified, true)
	verify(t, paramcheck.NewVerifier(m, nil), path, paramcheck.WrongDigest, false)
}

// A name the manifest does not list is not hashed; a missing file is an
// error.
func TestVerifierNotListed(t *testing.T) {
	m, path, data := verifierFixture(t)
	other := filepath.Join(filepath.Dir(path), "v28-other.params")
	if err := os.WriteFile(other, data, 0o644); err != nil {
		t.Fatal(err)
	}
	verify(t, paramcheck.NewVerifier(m, nil), other, paramcheck.NotListed, false)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := paramcheck.NewVerifier(m, nil).Verify(context.Background(), path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// Check records the digests it computes: a verifier started later (the
// daemon) reads them instead of hashing.
func TestCheckRecords(t *testing.T) {
	m, path, _ := verifierFixture(t)
	res, err := paramcheck.Check(context.Background(), filepath.Dir(path), m, paramcheck.Options{Record: paramcheck.NewVerifier(m, nil)})
	if err != nil || len(res) != 1 || res[0].State != paramcheck.OK {
		t.Fatalf("check: %v %+v", err, res)
	}
	rewrite(t, path, 0)
	verify(t, paramcheck.NewVerifier(m, nil), path, paramcheck.Verified, true)
}
