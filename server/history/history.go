// Package history keeps the daemon's own recent past for the status page:
// per-minute buckets over the last hour of proofs completed by kind, the
// duration quantiles of each pipeline stage, and samples of the queue
// depth and the memory in use. It answers "what was the throughput and
// latency over the last hour" without Prometheus; it is not a metrics
// store (nothing survives a restart, nothing is older than an hour).
//
// It imports only the standard library; the clock is injected, so tests
// move time instead of sleeping.
package history

import (
	"math"
	"slices"
	"sync"
	"time"
)

// The window the history covers, in Buckets steps of Step.
const (
	Step    = time.Minute
	Buckets = 60
	Window  = Buckets * Step
	// MinBuckets is the shortest window a Snapshot gives: a daemon up for
	// less has its lifetime charted in at least this many columns, so its
	// first minute is not one bar the width of the chart.
	MinBuckets = 5
)

// histPerOctave is the resolution of the stage histograms: bucket bounds
// 2^(1/8) apart, so a quantile is within about 4.5% of the true value
// whatever the stage's scale (microseconds for test circuits, minutes for
// 32 GiB PoRep partitions), in a few dozen counters per stage and minute.
const histPerOctave = 8

// Sample is a reading of the daemon's gauges.
type Sample struct {
	QueueDepth   int   // jobs queued and not started
	Running      int   // jobs running
	BudgetUsed   int64 // bytes reserved from the memory budget
	BudgetTotal  int64 // the budget
	ResidentAnon int64 // the process's anonymous resident memory
}

// History is safe for concurrent use.
type History struct {
	now   func() time.Time
	start int64 // the minute New ran in: Snapshot shows nothing before it

	mu   sync.Mutex
	ring [Buckets]bucket
}

type bucket struct {
	minute    int64 // Unix minutes; a bucket of an older minute is stale
	used      bool
	completed map[string]uint64
	stages    map[string]map[int]uint64 // stage -> histogram bucket -> count
	samples   int
	max       Sample // the highest reading of each gauge in the minute
}

// New returns an empty history reading time from now (time.Now in the
// daemon); its snapshots start no earlier than now's minute (the daemon's
// start), but cover at least MinBuckets minutes.
func New(now func() time.Time) *History {
	return &History{now: now, start: minute(now())}
}

// at returns the bucket of the current minute, cleared if it last held an
// older one.
func (h *History) at() *bucket {
	m := minute(h.now())
	b := &h.ring[mod(m, Buckets)]
	if !b.used || b.minute != m {
		*b = bucket{minute: m, used: true}
	}
	return b
}

func minute(t time.Time) int64 {
	return int64(math.Floor(float64(t.UnixNano()) / float64(Step)))
}

func mod(a, n int64) int64 { return ((a % n) + n) % n }

// Completed counts one proof of kind completed now.
func (h *History) Completed(kind string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.at()
	if b.completed == nil {
		b.completed = make(map[string]uint64)
	}
	b.completed[kind]++
}

// Stage records one pipeline stage that ended now after d.
func (h *History) Stage(stage string, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.at()
	if b.stages == nil {
		b.stages = make(map[string]map[int]uint64)
	}
	hist := b.stages[stage]
	if hist == nil {
		hist = make(map[int]uint64)
		b.stages[stage] = hist
	}
	hist[histIndex(d)]++
}

// Record keeps the reading s, taken now.
func (h *History) Record(s Sample) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b := h.at()
	b.samples++
	b.max.QueueDepth = max(b.max.QueueDepth, s.QueueDepth)
	b.max.Running = max(b.max.Running, s.Running)
	b.max.BudgetUsed = max(b.max.BudgetUsed, s.BudgetUsed)
	b.max.BudgetTotal = max(b.max.BudgetTotal, s.BudgetTotal)
	b.max.ResidentAnon = max(b.max.ResidentAnon, s.ResidentAnon)
}

// histIndex is the histogram bucket of d: bucket i holds durations in
// [2^(i/histPerOctave), 2^((i+1)/histPerOctave)) nanoseconds; anything
// under 1 ns falls in bucket 0.
func histIndex(d time.Duration) int {
	if d < 1 {
		return 0
	}
	return int(math.Floor(math.Log2(float64(d)) * histPerOctave))
}

// histValue is the estimate for bucket i: its geometric middle.
func histValue(i int) time.Duration {
	return time.Duration(math.Round(math.Exp2((float64(i) + 0.5) / histPerOctave)))
}

// Quantiles are a stage's duration quantiles in one minute (N stages).
type Quantiles struct {
	N   uint64
	P50 time.Duration
	P95 time.Duration
}

// Point is one minute of history.
type Point struct {
	Start     time.Time
	Completed map[string]uint64 // by proof kind
	Stages    map[string]Quantiles
	// Samples is the number of gauge readings in the minute; Max holds
	// the highest of each (meaningful only when Samples > 0).
	Samples int
	Max     Sample
}

// Series is the last hour, or the minutes since the history started
// when fewer (at least MinBuckets), one Point per minute, oldest first;
// minutes with nothing recorded are there, empty.
type Series struct {
	End    time.Time // the end of the last minute
	Points []Point
}

// Kinds are the proof kinds that completed proofs in s, sorted.
func (s Series) Kinds() []string {
	return keys(s.Points, func(p Point) map[string]uint64 { return p.Completed })
}

// StageNames are the stages s has durations of, sorted.
func (s Series) StageNames() []string {
	return keys(s.Points, func(p Point) map[string]Quantiles { return p.Stages })
}

func keys[V any](ps []Point, m func(Point) map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range ps {
		for k := range m(p) {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Snapshot returns the last hour up to now, or the time since New when
// that is shorter: a chart of a fresh daemon spreads its few minutes over
// the whole width instead of leaving them a sliver at the end of an hour.
func (h *History) Snapshot() Series {
	h.mu.Lock()
	defer h.mu.Unlock()
	last := minute(h.now())
	n := min(max(last-h.start+1, MinBuckets), Buckets)
	s := Series{End: time.Unix(0, (last+1)*int64(Step)), Points: make([]Point, 0, n)}
	for m := last - n + 1; m <= last; m++ {
		p := Point{Start: time.Unix(0, m*int64(Step))}
		if b := &h.ring[mod(m, Buckets)]; b.used && b.minute == m {
			if len(b.completed) > 0 {
				p.Completed = make(map[string]uint64, len(b.completed))
				for k, v := range b.completed {
					p.Completed[k] = v
				}
			}
			if len(b.stages) > 0 {
				p.Stages = make(map[string]Quantiles, len(b.stages))
				for st, hist := range b.stages {
					p.Stages[st] = quantiles(hist)
				}
			}
			p.Samples, p.Max = b.samples, b.max
		}
		s.Points = append(s.Points, p)
	}
	return s
}

// quantiles reads p50 and p95 off a histogram: the value of the bucket
// holding the ceil(q·n)-th smallest duration (the nearest-rank quantile).
func quantiles(hist map[int]uint64) Quantiles {
	idx := make([]int, 0, len(hist))
	var n uint64
	for i, c := range hist {
		idx = append(idx, i)
		n += c
	}
	slices.Sort(idx)
	rank := func(q float64) time.Duration {
		r := uint64(math.Ceil(q * float64(n)))
		var cum uint64
		for _, i := range idx {
			cum += hist[i]
			if cum >= r {
				return histValue(i)
			}
		}
		return histValue(idx[len(idx)-1])
	}
	return Quantiles{N: n, P50: rank(0.50), P95: rank(0.95)}
}
