package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummary: skips are counted by reason, in the order first seen, into
// one line that names the package.
func TestSummary(t *testing.T) {
	if got := summary("p"); got != "" {
		t.Fatalf("summary before any skip: %q", got)
	}
	for i, r := range []string{ReasonE2E, ReasonFullSize, ReasonE2E} {
		t.Run(strings.Repeat("x", i+1), func(t *testing.T) { Skip(t, r, "because") })
	}
	want := "p: skipped 3 tests (end-to-end, set CUZK_E2E=1: 2; full size, set CUZK_FULLSIZE=1: 1)"
	if got := summary("p"); got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	if got, want := packagePath(), "github.com/cuzk-dev/cuzk/internal/testenv"; got != want {
		t.Errorf("packagePath = %q, want %q", got, want)
	}
}

// TestSummaryInRedirectedLog: `go test` of a package that skips, its
// output redirected the way `go test ./... > log 2>&1` does (one file at
// an offset, not appending), leaves the package's line in the log before
// its ok line, and the go command's own line is not written over it.
func TestSummaryInRedirectedLog(t *testing.T) {
	Short(t, "runs go test on a package of its testdata")
	if f := parentFD(os.Getppid(), 2); f == nil {
		Skip(t, "pidfd_getfd refused", "the kernel refuses pidfd_getfd towards the parent process (Yama ptrace_scope, or before Linux 5.6)")
	} else {
		f.Close()
	}
	log, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command("go", "test", "-count=1", "./testdata/skipper")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		t.Fatalf("go test ./testdata/skipper: %v", err)
	}
	out, err := os.ReadFile(log.Name())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	const pkg = "github.com/cuzk-dev/cuzk/internal/testenv/testdata/skipper"
	if len(lines) != 2 || lines[0] != pkg+": skipped 1 test (on purpose: 1)" || !strings.HasPrefix(lines[1], "ok  \t"+pkg+"\t") {
		t.Errorf("the log:\n%s\nwant the package's skip line, then its ok line", out)
	}
}
