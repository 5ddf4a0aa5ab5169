package main

import (
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/porep/seal"
)

// TestSealProgressLines: a line per phase; inside a counted phase at most
// one per interval, with the share done and the time left at the rate so
// far; a heartbeat naming the time spent in a phase that reports nothing
// of its own (the trees), so no phase is silent for longer than the
// interval.
func TestSealProgressLines(t *testing.T) {
	var out strings.Builder
	t0 := time.Unix(1000, 0)
	sp := &sealProgress{w: &out, what: "seal", every: 5 * time.Second, start: t0}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	sp.update(seal.Progress{Phase: "labels, layer 1 of 2", Total: 100}, at(0))
	sp.update(seal.Progress{Phase: "labels, layer 1 of 2", Done: 10, Total: 100}, at(1))  // too soon
	sp.beat(at(4))                                                                        // too soon
	sp.update(seal.Progress{Phase: "labels, layer 1 of 2", Done: 40, Total: 100}, at(6))  // 40 in 6 s: 9 s left
	sp.update(seal.Progress{Phase: "labels, layer 1 of 2", Done: 30, Total: 100}, at(12)) // a late worker
	sp.update(seal.Progress{Phase: "tree_c"}, at(12.5))
	sp.beat(at(15))
	sp.beat(at(17.5))
	sp.beat(at(23))
	want := `[   0.0s] seal: labels, layer 1 of 2   0% (0 of 100)
[   6.0s] seal: labels, layer 1 of 2  40% (40 of 100), about 9s left in this phase
[  12.0s] seal: labels, layer 1 of 2  40% (40 of 100), about 18s left in this phase
[  12.5s] seal: tree_c
[  17.5s] seal: tree_c (5s so far)
[  23.0s] seal: tree_c (11s so far)
`
	if got := out.String(); got != want {
		t.Fatalf("progress lines:\n%s\nwant:\n%s", got, want)
	}
}
