package bench

import (
	"slices"
	"testing"
	"time"
)

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestPercentileNearestRank(t *testing.T) {
	var one20 []int
	for i := 20; i >= 1; i-- { // unsorted on purpose
		one20 = append(one20, i)
	}
	for _, tc := range []struct {
		name                  string
		in                    []time.Duration
		min, med, p95, p99, x time.Duration
	}{
		{"empty", nil, 0, 0, 0, 0, 0},
		{"one", ms(7), 7e6, 7e6, 7e6, 7e6, 7e6},
		{"two: lower median", ms(3, 1), 1e6, 1e6, 3e6, 3e6, 3e6},
		{"1..20", ms(one20...), 1e6, 10e6, 19e6, 20e6, 20e6},
		{"1..5", ms(5, 4, 3, 2, 1), 1e6, 3e6, 5e6, 5e6, 5e6},
	} {
		in := slices.Clone(tc.in)
		d := NewDist(tc.in)
		if d.N != len(tc.in) || d.Min != tc.min || d.Median != tc.med || d.P95 != tc.p95 || d.P99 != tc.p99 || d.Max != tc.x {
			t.Errorf("%s: %+v", tc.name, d)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("%s: NewDist reordered its input", tc.name)
		}
	}
	if d := NewDist(ms(1, 2, 6)); d.Mean != 3*time.Millisecond {
		t.Errorf("mean %v", d.Mean)
	}
}

func TestThroughput(t *testing.T) {
	tp := NewThroughput(6, 2*time.Minute)
	if tp.ProofsPerMinute != 3 || tp.SecondsPerProof != 20 {
		t.Fatalf("%+v", tp)
	}
	if z := NewThroughput(0, time.Second); z.ProofsPerMinute != 0 || z.SecondsPerProof != 0 {
		t.Fatalf("%+v", z)
	}
}

func TestSummarizeCountsAndSpans(t *testing.T) {
	t0 := time.Unix(1000, 0)
	rs := []Result{
		{Index: 0, Status: StatusCompleted, Start: t0, End: t0.Add(3 * time.Second), Wall: 3 * time.Second, Total: 2 * time.Second, Prove: time.Second},
		{Index: 1, Status: StatusFailed, Start: t0, End: t0.Add(time.Second), Wall: time.Second},
		{Index: 2, Status: StatusCompleted, Start: t0, End: t0.Add(5 * time.Second), Wall: 5 * time.Second, Total: 4 * time.Second, Prove: 3 * time.Second},
	}
	s := Summarize(rs, 6*time.Second)
	if s.Requested != 3 || s.Completed != 2 || s.Failed != 1 {
		t.Fatalf("%+v", s)
	}
	if s.Wall.Min != 3*time.Second || s.Wall.Max != 5*time.Second || s.Prove.Median != time.Second {
		t.Fatalf("wall %+v prove %+v", s.Wall, s.Prove)
	}
	// Daemon span: earliest acceptance (5 s - 4 s = +1 s) to the last end
	// (+5 s).
	if s.Daemon.Span != 4*time.Second || s.Client.Span != 6*time.Second || s.Client.Proofs != 2 {
		t.Fatalf("daemon %+v client %+v", s.Daemon, s.Client)
	}
}
