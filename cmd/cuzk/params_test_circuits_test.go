package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/testparams"
)

// params test-circuits writes the sets the daemon's test mode loads
// (marker included), keeps existing ones, and refuses sizes it cannot
// serve before writing anything.
func TestParamsTestCircuits(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCmd(t, "params", "test-circuits", "--params", dir, "--k", "5,6,5")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, k := range []int{5, 6} {
		f := testparams.FilesAt(filepath.Join(dir, testkind.FileBase(k)))
		if !f.Complete() || !testparams.IsTest(f.Params) {
			t.Fatalf("test-k%d: incomplete or unmarked set", k)
		}
		if !strings.Contains(out, testkind.CircuitID(k)+": "+f.Params) {
			t.Errorf("output does not name %s:\n%s", f.Params, out)
		}
		// What the daemon's locator finds for the circuit id.
		files, err := testkind.Locator(dir).Locate(testkind.CircuitID(k))
		if err != nil || files.Params != f.Params {
			t.Errorf("locator: %v %v", files, err)
		}
	}
	if code, out, _ := runCmd(t, "params", "test-circuits", "--params", dir, "--k", "5"); code != exitOK || !strings.Contains(out, "already present") {
		t.Errorf("second run: exit %d, %q", code, out)
	}
	empty := t.TempDir()
	for _, bad := range []string{"3", "27", "x", "5,"} {
		if code, _, stderr := runCmd(t, "params", "test-circuits", "--params", empty, "--k", bad); code != exitError || !strings.Contains(stderr, "--k") {
			t.Errorf("--k %s: exit %d, %q", bad, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("refused runs wrote %d files", len(entries))
	}
	if code, _, stderr := runCmd(t, "params", "test-circuits", "--k", "5"); code != exitError || !strings.Contains(stderr, "--params") {
		t.Errorf("no --dir: exit %d, %q", code, stderr)
	}
}
