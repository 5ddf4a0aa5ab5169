package groth16

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// randomAssignment returns an assignment whose a, b, c rows are random
// field elements (an unsatisfied witness: H is then not a true quotient,
// and must still equal bellperson's), with some zeros, ones and q−1.
func randomAssignment(rows, capacity int, seed uint64) *r1cs.ProvingAssignment {
	rng := rand.New(rand.NewPCG(seed, 1))
	mk := func() []fr.Element {
		v := make([]fr.Element, rows, max(rows, capacity))
		for i := range v {
			switch rng.IntN(8) {
			case 0:
			case 1:
				v[i].SetOne()
			case 2:
				v[i].SetOne()
				v[i].Neg(&v[i])
			default:
				v[i] = fr.Element{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() >> 3}
			}
		}
		return v
	}
	return &r1cs.ProvingAssignment{A: mk(), B: mk(), C: mk()}
}

func equalH(t *testing.T, name string, got, want []fr.Element) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d coefficients, want %d", name, len(got), len(want))
	}
	for i := range want {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("%s: coefficient %d differs", name, i)
		}
	}
}

// TestQuotientMatchesReference: the six-transform H equals the seven-
// transform computation through gnark-crypto's FFTs (computeHWith, the
// path the golden proofs were pinned with), for random unsatisfied rows of
// many sizes, padded in place or not, and for a satisfied circuit.
func TestQuotientMatchesReference(t *testing.T) {
	for _, rows := range []int{1, 2, 3, 5, 64, 100, 1000, 4097, 1<<13 - 1, 1 << 14} {
		m, _ := DomainSize(rows)
		for _, workers := range []int{1, 2, 3} {
			for _, capacity := range []int{rows, m} {
				name := fmt.Sprintf("rows=%d/workers=%d/cap=%d", rows, workers, capacity)
				want, _ := computeHWith(randomAssignment(rows, capacity, uint64(rows)), workers, true, nil)
				got, err := quotient(randomAssignment(rows, capacity, uint64(rows)), workers, nil)
				if err != nil {
					t.Fatal(err)
				}
				equalH(t, name, got, want)
			}
		}
	}
	c := testcircuits.Mixed{Constraints: 3000, Inputs: 2, Seed: 5}
	want, _ := computeHWith(testcircuits.Assignment(t, c), 2, true, nil)
	got, err := quotient(testcircuits.Assignment(t, c), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	equalH(t, "Mixed", got, want)
}

// TestQuotientYield: the yield function is called between the steps and
// its error stops the computation.
func TestQuotientYield(t *testing.T) {
	calls := 0
	if _, err := quotient(randomAssignment(100, 0, 1), 2, func() error { calls++; return nil }); err != nil {
		t.Fatal(err)
	}
	if calls < 6 {
		t.Fatalf("%d yields, want one per transform", calls)
	}
	stop := fmt.Errorf("stop")
	n := 0
	if _, err := quotient(randomAssignment(100, 0, 1), 2, func() error {
		if n++; n == 3 {
			return stop
		}
		return nil
	}); err != stop {
		t.Fatalf("err = %v, want the yield's", err)
	}
}

// TestQuotientPoRepSize compares at the 2 KiB PoRep partition's size
// (2,687,961 rows, domain 2^22): tens of CPU-seconds, end to end only.
func TestQuotientPoRepSize(t *testing.T) {
	testenv.E2E(t, "two H computations at 2^22")
	const rows = 2687961
	m, _ := DomainSize(rows)
	want, _ := computeHWith(randomAssignment(rows, m, 9), 2, true, nil)
	got, err := quotient(randomAssignment(rows, m, 9), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	equalH(t, "2^22", got, want)
}

// BenchmarkQuotientAB alternates the reference H (seven gnark-crypto
// transforms, its tables built per call as the prover did) and quotient on
// the same random rows of the 2 KiB PoRep partition's size, one pair per
// iteration, and logs wall and CPU medians [min–max] and the per-pair
// ratios new/old. Run with -benchtime Nx for N pairs:
//
//	go test -run '^$' -bench QuotientAB -benchtime 5x ./groth16
func BenchmarkQuotientAB(b *testing.B) {
	const rows = 2687961
	m, _ := DomainSize(rows)
	workers := runtime.GOMAXPROCS(0)
	var oldWall, newWall, oldCPU, newCPU, rWall, rCPU []float64
	measure := func(f func()) (wall, cpu float64) {
		runtime.GC()
		c0, w0 := cpuTime(), time.Now()
		f()
		return time.Since(w0).Seconds(), (cpuTime() - c0).Seconds()
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		pa1 := randomAssignment(rows, m, uint64(i))
		pa2 := randomAssignment(rows, m, uint64(i))
		ow, oc := measure(func() { computeHWith(pa1, workers, true, nil) })
		nw, nc := measure(func() { quotient(pa2, workers, nil) })
		b.StartTimer()
		oldWall, newWall, oldCPU, newCPU = append(oldWall, ow), append(newWall, nw), append(oldCPU, oc), append(newCPU, nc)
		rWall, rCPU = append(rWall, nw/ow), append(rCPU, nc/oc)
	}
	b.Logf("%d pairs, GOMAXPROCS %d: old wall %s s, new wall %s s, ratio %s; old CPU %s s, new CPU %s s, ratio %s",
		len(rWall), workers, medRange(oldWall), medRange(newWall), medRange(rWall), medRange(oldCPU), medRange(newCPU), medRange(rCPU))
}

// medRange formats the median [min–max] of v.
func medRange(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.3g [%.3g–%.3g]", s[(len(s)-1)/2], s[0], s[len(s)-1])
}

// cpuTime is the process's user+system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestPointwiseBlocks: pointwise visits every index once, in blocks of
// pointwiseBlock with the yield function between them, and stops at the
// yield's error.
func TestPointwiseBlocks(t *testing.T) {
	m := 3*pointwiseBlock + 5
	seen := make([]uint8, m)
	yields := 0
	if err := pointwise(m, 3, func() error { yields++; return nil }, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			seen[i]++
		}
	}); err != nil {
		t.Fatal(err)
	}
	for i, v := range seen {
		if v != 1 {
			t.Fatalf("index %d visited %d times", i, v)
		}
	}
	if yields != 3 {
		t.Fatalf("%d yields, want 3", yields)
	}
	stop := errors.New("stop")
	visited := 0
	if err := pointwise(m, 1, func() error { return stop }, func(lo, hi int) { visited += hi - lo }); !errors.Is(err, stop) || visited != pointwiseBlock {
		t.Fatalf("stopped with %v after %d elements", err, visited)
	}
	if err := pointwise(m, 2, nil, func(lo, hi int) {}); err != nil {
		t.Fatal(err)
	}
}

// gapRecorder is a yield function that records the longest time between
// two calls (and from the start to the first, and from the last to stop).
type gapRecorder struct {
	mu    sync.Mutex
	last  time.Time
	calls int
	gaps  []time.Duration
	// worstAt is the index of the call that ended the longest gap.
	worst   time.Duration
	worstAt int
}

func newGapRecorder() *gapRecorder { return &gapRecorder{last: time.Now()} }

func (g *gapRecorder) yield() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := time.Now()
	g.gaps = append(g.gaps, now.Sub(g.last))
	if d := now.Sub(g.last); d > g.worst {
		g.worst, g.worstAt = d, g.calls
	}
	g.last, g.calls = now, g.calls+1
	return nil
}

// stop ends the recording and returns the longest gap and the median.
func (g *gapRecorder) stop() (longest, median time.Duration) {
	g.yield()
	s := slices.Clone(g.gaps)
	slices.Sort(s)
	return s[len(s)-1], s[len(s)/2]
}

// BenchmarkYieldGaps measures how long the prover runs between two yield
// (and cancellation) points: H of 2^$CUZK_BENCH_LOG rows (default 22) and
// a G1 MSM of 2^19 and a G2 MSM of 2^18 random points and scalars, on
// GOMAXPROCS workers. The longest gap is the most a cancel or an urgent
// job waits for this work; each step between two points is of fixed size
// (a transform's base block or layer segment of 2^14 butterflies, a
// pointwise block of 2^20 elements, a bit-reversal piece of 2^16, a scan
// stretch of 2^14 scalars, an MSM piece of 2^16 points) except the
// butterfly pass over one of the top recursive blocks, 1/8 of the domain
// on two cores.
//
//	CUZK_BENCH_LOG=24 go test -run '^$' -bench YieldGaps -benchtime 1x -v ./groth16
func BenchmarkYieldGaps(b *testing.B) {
	lg := 22
	if v, err := strconv.Atoi(os.Getenv("CUZK_BENCH_LOG")); err == nil {
		lg = v
	}
	workers := runtime.GOMAXPROCS(0)
	m := 1 << lg
	for b.Loop() {
		pa := randomAssignment(m-1, m, 1)
		g := newGapRecorder()
		t0 := time.Now()
		if _, err := quotient(pa, workers, g.yield); err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		longest, median := g.stop()
		b.Logf("H of 2^%d: %v, %d yield points, longest gap %v (before point %d), median %v", lg, d.Round(time.Millisecond), g.calls, longest.Round(time.Millisecond), g.worstAt, median)
		b.ReportMetric(longest.Seconds(), "h-longest-gap-s")

		// 2^12 distinct points, repeated (making 2^19 takes minutes); the
		// scalars are all distinct and general.
		scalars, s1, s2, _ := msmInputs(1<<12, 0, 0, 3)
		scalars = make([]fr.Element, 1<<19)
		p1, p2 := make([]bls.G1Affine, 1<<19), make([]bls.G2Affine, 1<<18)
		for i := range scalars {
			scalars[i].SetUint64(uint64(i)*0x9e3779b97f4a7c15 + 1)
			scalars[i].Square(&scalars[i])
			p1[i] = s1[i%len(s1)]
			if i < len(p2) {
				p2[i] = s2[i%len(s2)]
			}
		}
		for _, c := range []struct {
			name string
			run  func(y func() error) error
		}{
			{"G1 2^19", func(y func() error) error { _, err := msmG1(p1, scalars, nil, workers, y); return err }},
			{"G2 2^18", func(y func() error) error { _, err := msmG2(p2, scalars[:1<<18], nil, workers, y); return err }},
		} {
			g := newGapRecorder()
			t0 := time.Now()
			if err := c.run(g.yield); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			longest, median := g.stop()
			b.Logf("MSM %s: %v, %d yield points, longest gap %v, median %v", c.name, d.Round(time.Millisecond), g.calls, longest.Round(time.Millisecond), median.Round(time.Millisecond))
		}
	}
}
