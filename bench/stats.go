package bench

import (
	"math"
	"slices"
	"time"
)

// Dist summarises durations with nearest-rank percentiles: every figure
// but the mean is one of the observations, so a summary can be checked
// against the per-proof lines it was computed from.
type Dist struct {
	N      int           `json:"n"`
	Min    time.Duration `json:"min_ns"`
	Median time.Duration `json:"median_ns"`
	P95    time.Duration `json:"p95_ns"`
	P99    time.Duration `json:"p99_ns"`
	Max    time.Duration `json:"max_ns"`
	Mean   time.Duration `json:"mean_ns"`
}

// NewDist summarises ds (which it does not modify). The zero Dist stands
// for an empty sample.
func NewDist(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Dist{
		N: len(s), Min: s[0], Max: s[len(s)-1],
		Median: Percentile(s, 50), P95: Percentile(s, 95), P99: Percentile(s, 99),
		Mean: sum / time.Duration(len(s)),
	}
}

// Percentile is the nearest-rank p-th percentile of sorted: the smallest
// observation with at least p% of the sample at or below it (the median of
// an even-sized sample is the lower middle value). It is 0 for an empty
// sample.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// Throughput is proofs per unit of time over a span.
type Throughput struct {
	Proofs          int           `json:"proofs"`
	Span            time.Duration `json:"span_ns"`
	ProofsPerMinute float64       `json:"proofs_per_minute"`
	SecondsPerProof float64       `json:"seconds_per_proof"`
}

// NewThroughput is n proofs over span.
func NewThroughput(n int, span time.Duration) Throughput {
	t := Throughput{Proofs: n, Span: span}
	if n > 0 && span > 0 {
		t.ProofsPerMinute = float64(n) / span.Minutes()
		t.SecondsPerProof = span.Seconds() / float64(n)
	}
	return t
}
