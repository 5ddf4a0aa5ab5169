package main

import (
	"strings"
	"testing"
	"time"
)

// TestPhaseProgressLines: a line per phase; inside a counted phase at most
// one per interval, with the share done and the time left at the rate so
// far; a heartbeat naming the time spent in a phase that reports nothing
// of its own (the trees), so no phase is silent for longer than the
// interval.
func TestPhaseProgressLines(t *testing.T) {
	var out strings.Builder
	t0 := time.Unix(1000, 0)
	sp := &phaseProgress{w: &out, what: "seal", every: 5 * time.Second, start: t0}
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	sp.update(phase{Phase: "labels, layer 1 of 2", Total: 100}, at(0))
	sp.update(phase{Phase: "labels, layer 1 of 2", Done: 10, Total: 100}, at(1))  // too soon
	sp.beat(at(4))                                                                // too soon
	sp.update(phase{Phase: "labels, layer 1 of 2", Done: 40, Total: 100}, at(6))  // 40 in 6 s: 9 s left
	sp.update(phase{Phase: "labels, layer 1 of 2", Done: 30, Total: 100}, at(12)) // a late worker
	sp.update(phase{Phase: "tree_c"}, at(12.5))
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

// TestQuietProgress: a one-phase command says nothing in its first
// interval, then names its phase and the time spent in it.
func TestQuietProgress(t *testing.T) {
	var out strings.Builder
	t0 := time.Unix(1000, 0)
	sp := &phaseProgress{w: &out, what: "snap encode", every: 5 * time.Second, start: t0}
	sp.cur, sp.phaseAt, sp.lastAt = phase{Phase: "encoding"}, t0, t0
	sp.beat(t0.Add(4 * time.Second))
	if out.Len() != 0 {
		t.Fatalf("printed within the first interval: %q", out.String())
	}
	sp.beat(t0.Add(5 * time.Second))
	if got, want := out.String(), "[   5.0s] snap encode: encoding (5s so far)\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
