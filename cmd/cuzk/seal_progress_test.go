package main

import (
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

// TestSealProgressLines: a line per phase, the counted phase's share and
// time left, and a heartbeat naming the time spent in a phase that reports
// nothing of its own (the trees), so no phase is silent for long.
func TestSealProgressLines(t *testing.T) {
	var out testkit.SyncBuffer
	progress, stop := newSealProgress(&out, "seal", 50*time.Millisecond)
	progress(seal.Progress{Phase: "labels, layer 1 of 2", Total: 100})
	time.Sleep(60 * time.Millisecond)
	progress(seal.Progress{Phase: "labels, layer 1 of 2", Done: 40, Total: 100})
	progress(seal.Progress{Phase: "tree_c"})
	for end := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "so far)"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no heartbeat for tree_c:\n%s", out.String())
		}
	}
	stop()
	got := out.String()
	for _, want := range []string{"seal: labels, layer 1 of 2   0% (0 of 100)\n", "seal: labels, layer 1 of 2  40% (40 of 100), about ", " left in this phase\n", "seal: tree_c\n", "seal: tree_c ("} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
