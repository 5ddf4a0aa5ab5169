package daemon

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/srs"
)

// Progress of the one-shot commands' proofs (prove-c2, demo): a 2 KiB
// proof spends 20 s and more in one stage, a 32 GiB one minutes, so a line
// goes to stderr whenever the job moves on and at least every
// progressHeartbeat while it stays put. The heartbeat is params gen's
// interval (5 s): with the 1 s poll no silence is longer than 6 s, under
// the 10 s an operator watching a terminal or a log should ever wait.
const (
	progressPoll      = time.Second
	progressHeartbeat = 5 * time.Second
)

// watchProgress writes one line per change of the engine's job summary,
// and the same line again after heartbeat without change, saying how long
// it has not changed, until ctx ends.
func watchProgress(ctx context.Context, w io.Writer, label string, status func() engine.Status, poll, heartbeat time.Duration) {
	start := time.Now()
	last, lastAt, since := "", time.Time{}, time.Time{}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		now := time.Now()
		if s := summarize(status()); s != "" && (s != last || now.Sub(lastAt) >= heartbeat) {
			line := s
			if s == last {
				line += fmt.Sprintf(" [unchanged for %s]", now.Sub(since).Round(time.Second))
			} else {
				since = now
			}
			fmt.Fprintf(w, "[%6.1fs] %s: %s\n", now.Sub(start).Seconds(), label, line)
			last, lastAt = s, now
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// summarize says where the engine's jobs are: the job's state and its
// partitions counted by stage ("running: 1 proving, 9 queued"), or the
// parameters being loaded. "" when no job is in flight.
func summarize(st engine.Status) string {
	var parts []string
	for _, j := range st.Jobs {
		s := j.State.String()
		switch j.State {
		case engine.StatePlanning:
			s += " (decoding and checking the request)"
		case engine.StateQueued, engine.StateRunning:
			var counts []string
			seen := map[string]int{}
			var order []string
			for _, p := range j.Partitions {
				if seen[p.State] == 0 {
					order = append(order, p.State)
				}
				seen[p.State]++
			}
			for _, k := range order {
				counts = append(counts, fmt.Sprintf("%d %s", seen[k], k))
			}
			if len(counts) > 0 {
				s += ": partitions " + strings.Join(counts, ", ")
			}
		}
		parts = append(parts, s)
	}
	for _, p := range st.Params {
		if p.Tier == srs.TierLoading {
			parts = append(parts, "loading parameters "+p.CircuitID)
		}
	}
	return strings.Join(parts, "; ")
}
