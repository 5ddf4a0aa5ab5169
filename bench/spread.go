package bench

import (
	"github.com/cuzk-dev/cuzk/client"
)

// DaemonStats is one daemon's share of a run against several daemons.
type DaemonStats struct {
	Addr string `json:"addr"`
	// Jobs ran (or were last sent) here; Completed of them completed.
	Jobs      int `json:"jobs"`
	Completed int `json:"completed"`
	// MovedAway counts the jobs this daemon refused or lost (it answered
	// Unavailable or ResourceExhausted, or stopped holding them) that went
	// on to another daemon; they are counted again there.
	MovedAway int `json:"moved_away"`
	// PeakRSS is the daemon's largest resident memory sampled in a stress
	// run (0 when not sampled).
	PeakRSS uint64 `json:"peak_rss_bytes,omitempty"`
}

// Spread counts results per daemon, listing the client's daemons first
// (in its order, those without a job included) and then any other daemon
// a result names.
func Spread(c *client.Client, results []Result) []DaemonStats {
	var out []DaemonStats
	at := map[string]int{}
	add := func(addr string) *DaemonStats {
		i, ok := at[addr]
		if !ok {
			i = len(out)
			at[addr] = i
			out = append(out, DaemonStats{Addr: addr})
		}
		return &out[i]
	}
	if c != nil {
		for _, d := range c.Daemons() {
			add(d.Addr)
		}
	}
	for _, r := range results {
		for _, a := range r.Moved {
			add(a).MovedAway++
		}
		if r.Daemon == "" {
			continue
		}
		d := add(r.Daemon)
		d.Jobs++
		if r.OK() {
			d.Completed++
		}
	}
	return out
}

// MaxShare is the largest fraction of the jobs any one daemon got (0 for
// no jobs).
func MaxShare(s []DaemonStats) float64 {
	total, most := 0, 0
	for _, d := range s {
		total += d.Jobs
		most = max(most, d.Jobs)
	}
	if total == 0 {
		return 0
	}
	return float64(most) / float64(total)
}

// place fills r's daemon fields from the client's placement of id. A
// daemon already last in r.Moved is not listed again: a job lost with a
// daemon that drains is submitted again, and the daemon may refuse that
// too (draining) before the client sees it go; the job moved away once.
func place(c *client.Client, r *Result, id string) {
	if pl, ok := c.Placement(id); ok {
		r.Daemon = pl.Daemon
		r.Moved = addMoved(r.Moved, pl.Tried)
	}
}

// addMoved appends tried to moved, leaving out a daemon that would repeat
// the one before it.
func addMoved(moved, tried []string) []string {
	for _, a := range tried {
		if n := len(moved); n == 0 || moved[n-1] != a {
			moved = append(moved, a)
		}
	}
	return moved
}
