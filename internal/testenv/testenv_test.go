package testenv

import (
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
