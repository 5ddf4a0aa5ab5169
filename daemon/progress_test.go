package daemon

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestWatchProgress: a line for every change of the job's stage, the same
// line again after each heartbeat without change, nothing while idle.
func TestWatchProgress(t *testing.T) {
	running := func(states ...string) engine.Status {
		js := engine.JobStatus{State: engine.StateRunning}
		for i, s := range states {
			js.Partitions = append(js.Partitions, engine.PartitionStatus{Index: i, State: s})
		}
		return engine.Status{Jobs: []engine.JobStatus{js}}
	}
	// One status per poll.
	seq := []engine.Status{
		{},
		{Jobs: []engine.JobStatus{{State: engine.StatePlanning}}},
		{Jobs: []engine.JobStatus{{State: engine.StateQueued}}, Params: []srs.EntryStatus{{CircuitID: "porep-2k", Tier: srs.TierLoading}}},
		running("synthesizing", "queued"),
		running("proving", "synthesizing"),
		running("proving", "synthesizing"),
		running("proving", "synthesizing"),
		running("proving", "synthesizing"),
		running("done", "finishing"),
	}
	var mu sync.Mutex
	i := 0
	status := func() engine.Status {
		mu.Lock()
		defer mu.Unlock()
		s := seq[min(i, len(seq)-1)]
		i++
		return s
	}
	var out testkit.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		watchProgress(ctx, &out, "prove", status, 10*time.Millisecond, 15*time.Millisecond)
		close(done)
	}()
	for {
		mu.Lock()
		n := i
		mu.Unlock()
		if n > len(seq) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var got []string
	for _, l := range lines {
		_, rest, _ := strings.Cut(l, "] prove: ")
		if line, _, repeat := strings.Cut(rest, " [unchanged for "); repeat {
			if !strings.HasSuffix(rest, "s]") {
				t.Errorf("heartbeat line without its duration: %q", l)
			}
			rest = line
		}
		got = append(got, rest)
	}
	want := []string{
		"planning (decoding and checking the request)",
		"queued; loading parameters porep-2k",
		"running: partitions 1 synthesizing, 1 queued",
		"running: partitions 1 proving, 1 synthesizing",
		"running: partitions 1 done, 1 finishing",
	}
	// The unchanged "proving" status lasts four polls (40 ms and more on
	// a busy machine; at least 20 ms between the first and the last poll, by
	// the ticker) against a 15 ms heartbeat: it is repeated at least
	// once; everything else appears once, in order.
	var dedup []string
	repeats := 0
	for _, g := range got {
		if len(dedup) > 0 && dedup[len(dedup)-1] == g {
			repeats++
			continue
		}
		dedup = append(dedup, g)
	}
	if strings.Join(dedup, "\n") != strings.Join(want, "\n") {
		t.Fatalf("progress lines:\n%s\nwant (without repeats):\n%s", out.String(), strings.Join(want, "\n"))
	}
	if repeats == 0 {
		t.Fatalf("no heartbeat line while the job stayed in one stage:\n%s", out.String())
	}
}
