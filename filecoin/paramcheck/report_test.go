package paramcheck

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/blake2b"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// Progress lines name the file, the bytes so far and the share; a file
// hashed faster than the interval gets none.
func TestHashProgress(t *testing.T) {
	var b bytes.Buffer
	r := &Result{Entry: Entry{Name: "big.params"}, Size: 8 << 30}
	p := HashProgress(&b, 0)
	p(r, 0)
	p(r, 2<<30)
	p(r, 8<<30)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !regexp.MustCompile(`^hashing big\.params: 2GiB of 8GiB \(25%\), \S+/s$`).MatchString(lines[0]) ||
		!strings.HasPrefix(lines[1], "hashing big.params: 8GiB of 8GiB (100%)") {
		t.Errorf("%q", lines)
	}
	b.Reset()
	p = HashProgress(&b, time.Hour)
	small := &Result{Entry: Entry{Name: "small.vk"}, Size: 100}
	p(small, 0)
	p(small, 100)
	if b.Len() != 0 {
		t.Errorf("progress for a quick file: %q", b.String())
	}
}

// fakeDir holds the 2 KiB files of a manifest it writes, one of them with
// another body than its digest says.
func fakeDir(t *testing.T) (dir, manifest string, n int) {
	t.Helper()
	dir = t.TempDir()
	entries := map[string]map[string]any{}
	for _, e := range Official().Select(2 << 10) {
		body := []byte("fake " + e.Name)
		if err := os.WriteFile(filepath.Join(dir, e.Name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := blake2b.Sum512(body)
		entries[e.Name] = map[string]any{"cid": e.CID, "digest": hex.EncodeToString(sum[:16]), "sector_size": e.SectorSize}
		n++
	}
	raw, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	manifest = filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(manifest, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, manifest, n
}

// Run tallies the files, writes a line (or a JSON object) per file and a
// summary, and tells a check it could not make from a finished one.
func TestDirCheckRun(t *testing.T) {
	dir, manifest, n := fakeDir(t)
	var out, log bytes.Buffer
	tally, err := DirCheck{Dir: dir, ManifestPath: manifest, ProgressEvery: time.Hour}.Run(context.Background(), &out, &log)
	if err != nil || tally[OK] != n || tally.Bad() != 0 || tally.Unreadable() != 0 {
		t.Fatalf("%v %v", tally, err)
	}
	if got := strings.Count(out.String(), "\nok "); got != n-1 || !strings.HasPrefix(out.String(), "ok ") {
		t.Errorf("%d ok lines:\n%s", got+1, out.String())
	}
	if want := fmt.Sprintf("%d files for all sector sizes in %s (", n, dir); !strings.HasPrefix(log.String(), want) ||
		!strings.HasSuffix(log.String(), fmt.Sprintf("): %d ok, 0 missing, 0 wrong digest, 0 INSECURE test parameters, 0 unreadable\n", n)) {
		t.Errorf("summary %q", log.String())
	}

	var vk string
	for _, e := range Official().Select(2 << 10) {
		if strings.HasSuffix(e.Name, filecoin.VerifyingKeyExt) {
			vk = e.Name
		}
	}
	if err := os.Remove(filepath.Join(dir, vk)); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	log.Reset()
	tally, err = DirCheck{Dir: dir, ManifestPath: manifest, JSON: true, SectorSize: filecoin.SectorSize2KiB, ProgressEvery: time.Hour}.Run(context.Background(), &out, &log)
	if err != nil || tally[Missing] != 1 || tally.Bad() != 1 || tally[OK] != n-1 {
		t.Fatalf("%v %v", tally, err)
	}
	var res []struct {
		Name  string `json:"name"`
		State string `json:"state"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res) != n {
		t.Fatalf("%v: %s", err, out.String())
	}
	if !strings.Contains(log.String(), "for 2KiB sectors") || !strings.Contains(log.String(), ", 1 missing,") {
		t.Errorf("summary %q", log.String())
	}

	for name, c := range map[string]DirCheck{
		"no .params for the size": {Dir: dir, ManifestPath: manifest, SectorSize: filecoin.SectorSize8MiB},
		"no manifest":             {Dir: dir, ManifestPath: filepath.Join(dir, "none.json")},
		"not a manifest":          {Dir: dir, ManifestPath: filepath.Join(dir, Official().Select(2 << 10)[0].Name)},
	} {
		if tally, err := c.Run(context.Background(), io.Discard, io.Discard); err == nil {
			t.Errorf("%s: %v, no error", name, tally)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (DirCheck{Dir: dir, ManifestPath: manifest}).Run(ctx, io.Discard, io.Discard); !errors.Is(err, context.Canceled) ||
		!strings.HasPrefix(err.Error(), "interrupted after 0 of ") {
		t.Errorf("cancelled: %v", err)
	}
}
