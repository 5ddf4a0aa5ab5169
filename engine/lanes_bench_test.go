package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// latencyWorkload is what BenchmarkUrgentLatency measures: the latency of
// an urgent job (Critical) alone and while a stream of ordinary jobs (Load)
// keeps the engine busy. The test circuits stand in for WinningPoSt and
// 2 KiB PoRep; a workload of the real kinds needs only their Kinds, a
// locator for their parameters and a request of each (a WinningPoSt with
// its vanilla proof, a PoRep C1), e.g. from `cuzk seal` and `cuzk post
// vanilla` output.
type latencyWorkload struct {
	Name    string
	Kinds   map[engine.ProofKind]engine.Kind
	Locator srs.Locator
	// Circuits are preloaded before measuring (parameter loads are not
	// what is measured).
	Circuits []string
	// Critical and Load return the i-th request of each kind; Critical's
	// must be urgent (HIGH or CRITICAL, at most UrgentMaxDomain rows).
	Critical, Load func(i int) *engine.Request
}

// testLatencyWorkload: test-k$CUZK_LANE_CRITICAL (default 17, the size of a
// 2 KiB WinningPoSt: about 90 k rows) at CRITICAL against a stream of
// test-k$CUZK_LANE_LOAD (default 20; a 2 KiB PoRep partition is 2^22 rows,
// about 16 times the work) at NORMAL. Parameters are generated once into
// testparams.DefaultDir ($CUZK_TEST_PARAMS): minutes for 2^20 on two cores.
//
// CUZK_LANE_LOAD=porep-2k makes the load the real 2 KiB PoRep (two
// partitions of 2^22 rows, engine/porepkind) over a sector sealed in
// process, with the INSECURE 2 KiB test parameters (testparams.Ensure:
// about 1.1 GB, generated once).
func testLatencyWorkload(b *testing.B) latencyWorkload {
	crit := envInt("CUZK_LANE_CRITICAL", 17)
	if os.Getenv("CUZK_LANE_LOAD") == "porep-2k" {
		return porepLoad(b, crit)
	}
	load := envInt("CUZK_LANE_LOAD", 20)
	dir := testparams.DefaultDir(os.LookupEnv)
	for _, k := range []int{crit, load} {
		t := time.Now()
		if err := testkind.WriteParams(dir, k); err != nil {
			b.Fatal(err)
		}
		if d := time.Since(t); d > time.Second {
			b.Logf("generated test-k%d parameters in %v", k, d.Round(time.Second))
		}
	}
	return latencyWorkload{
		Name:     fmt.Sprintf("test-k%d/test-k%d", crit, load),
		Kinds:    map[engine.ProofKind]engine.Kind{engine.ProofKindTest: testkind.New()},
		Locator:  testkind.Locator(dir),
		Circuits: []string{testkind.CircuitID(crit), testkind.CircuitID(load)},
		Critical: func(i int) *engine.Request {
			q := testReq(fmt.Sprintf("critical-%d", i), crit, testkind.Options{})
			q.Priority = engine.PriorityCritical
			return q
		},
		Load: func(i int) *engine.Request { return testReq(fmt.Sprintf("load-%d", i), load, testkind.Options{}) },
	}
}

// porepLoad is testLatencyWorkload with the 2 KiB PoRep as the load.
func porepLoad(b *testing.B, crit int) latencyWorkload {
	dir := testparams.DefaultDir(os.LookupEnv)
	if err := testkind.WriteParams(dir, crit); err != nil {
		b.Fatal(err)
	}
	p := filecoin.StackedDrg2KiBV1_1
	t := time.Now()
	if _, gen, err := testparams.Ensure(context.Background(), p, dir, testparams.Options{}); err != nil {
		b.Fatal(err)
	} else if gen {
		b.Logf("generated 2 KiB PoRep test parameters in %v", time.Since(t).Round(time.Second))
	}
	in := seal.DefaultInput(p)
	o, _, err := seal.Seal(context.Background(), in, seal.DefaultSeed, 2)
	if err != nil {
		b.Fatal(err)
	}
	c1json, err := c1.Wrap(o, in.Sector).MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	cid, err := filecoin.PoRepCircuitID(p.SectorSize())
	if err != nil {
		b.Fatal(err)
	}
	return latencyWorkload{
		Name: fmt.Sprintf("test-k%d/porep-2k (%d partitions)", crit, len(o.VanillaProofs)),
		Kinds: map[engine.ProofKind]engine.Kind{
			engine.ProofKindTest:  testkind.New(),
			engine.ProofKindPoRep: &porepkind.Kind{},
		},
		Locator:  srs.Chain(srs.FilecoinLocator(dir), testkind.Locator(dir)),
		Circuits: []string{testkind.CircuitID(crit), string(cid)},
		Critical: func(i int) *engine.Request {
			q := testReq(fmt.Sprintf("critical-%d", i), crit, testkind.Options{})
			q.Priority = engine.PriorityCritical
			return q
		},
		Load: func(i int) *engine.Request {
			return &engine.Request{RequestID: fmt.Sprintf("porep-%d", i), Kind: engine.ProofKindPoRep, RegisteredProof: uint64(p),
				SectorNumber: in.Sector, MinerID: seal.DefaultMinerID, VanillaProof: c1json}
		},
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// latencyMode is one engine configuration under test.
type latencyMode struct {
	name string
	cfg  engine.Config
}

var latencyModes = []latencyMode{
	// The default: reserved lane, ordinary work paused while urgent work
	// runs.
	{"preempt", engine.Config{ReservedLane: true}},
	// A reserved lane beside ordinary work: no queueing, but the two
	// share the cores.
	{"lane", engine.Config{ReservedLane: true, NoPreempt: true}},
	// The engine before lanes: the urgent job waits for the prover.
	{"baseline", engine.Config{}},
}

// BenchmarkUrgentLatency measures, per engine configuration, the latency
// (submit to proof) of an urgent job proved alone (idle) and while a
// stream of ordinary jobs runs (loaded), each urgent job submitted at a
// random moment of the ordinary work, and the ordinary stream's
// throughput alone and with the urgent jobs injected. Run it with
// -benchtime=1x -v; knobs (environment): CUZK_LANE_CRITICAL and
// CUZK_LANE_LOAD (log2 rows of the two test circuits), CUZK_LANE_SAMPLES
// (urgent jobs per phase, default 5), CUZK_LANE_ROUNDS (default 1; rounds
// alternate the modes), CUZK_LANE_MODES (default "preempt,lane,baseline").
//
// Every configuration uses the daemon's defaults on this machine: as many
// synthesis workers as cores, the prover on every core, the reserved
// lane's prover on every core.
func BenchmarkUrgentLatency(b *testing.B) {
	w := testLatencyWorkload(b)
	samples, rounds := envInt("CUZK_LANE_SAMPLES", 5), envInt("CUZK_LANE_ROUNDS", 1)
	modes := latencyModes
	if v := os.Getenv("CUZK_LANE_MODES"); v != "" {
		modes = nil
		for _, name := range strings.Split(v, ",") {
			for _, m := range latencyModes {
				if m.name == name {
					modes = append(modes, m)
				}
			}
		}
	}
	for b.Loop() {
		res := map[string]*latencyResult{}
		for round := range rounds {
			for _, m := range modes {
				r := res[m.name]
				if r == nil {
					r = &latencyResult{}
					res[m.name] = r
				}
				runLatencyRound(b, w, m, samples, uint64(round), r)
			}
		}
		b.Logf("workload %s, %d urgent jobs per phase, %d round(s), GOMAXPROCS %d", w.Name, samples, rounds, runtimeProcs())
		b.Logf("%-9s %-26s %-26s %-22s %-18s %-18s", "mode", "idle latency", "loaded latency", "loaded/idle (per job)", "load alone", "load + urgent")
		for _, m := range modes {
			r := res[m.name]
			ratio := make([]float64, len(r.loaded))
			idle := medianDur(r.idle)
			for i, d := range r.loaded {
				ratio[i] = float64(d) / float64(idle)
			}
			b.Logf("%-9s %-26s %-26s %-22s %-18s %-18s", m.name, durStats(r.idle), durStats(r.loaded), floatStats(ratio),
				rateStats(r.aloneRate), rateStats(r.loadedRate))
			if m.name == modes[0].name {
				b.ReportMetric(float64(idle.Milliseconds()), "idle-ms")
				b.ReportMetric(float64(medianDur(r.loaded).Milliseconds()), "loaded-ms")
				b.ReportMetric(medianF(ratio), "loaded/idle")
			}
		}
		b.Logf("latency: median [min–max] over the urgent jobs; loaded/idle: each loaded latency over the idle median; load: ordinary jobs per minute, median [min–max] over rounds")
	}
}

type latencyResult struct {
	idle, loaded          []time.Duration
	aloneRate, loadedRate []float64 // ordinary jobs per minute, one per round
}

// runLatencyRound runs the three phases of one mode on a fresh engine:
// urgent jobs alone, urgent jobs during the ordinary stream, the stream
// alone.
func runLatencyRound(b *testing.B, w latencyWorkload, m latencyMode, samples int, seed uint64, r *latencyResult) {
	b.Helper()
	bud := budget.New(12 << 30)
	params := srs.NewManager(srs.Options{Locator: w.Locator, Budget: bud, TrustParams: true})
	e, err := engine.New(engine.Options{
		Config: m.cfg, Kinds: w.Kinds, Backend: &cpu.Backend{}, UrgentBackend: &cpu.Backend{},
		Params: params, Budget: bud,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = e.Shutdown(context.Background())
		e.ReleaseParams()
	}()
	ctx := context.Background()
	for _, c := range w.Circuits {
		if _, _, err := params.Preload(ctx, c, 0); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	urgent := func() time.Duration {
		q := w.Critical(int(seed)*1000 + n)
		q.RequestID = fmt.Sprintf("%s-%s-%d", q.RequestID, m.name, seed)
		n++
		t := time.Now()
		res, err := e.Prove(ctx, q)
		d := time.Since(t)
		if err != nil || res.State != engine.StateCompleted {
			b.Fatalf("%s: urgent job: %v %v %v", m.name, err, res.State, res.Err)
		}
		return d
	}
	// A first urgent job warms the density template and the FFT tables.
	urgent()
	for range samples {
		r.idle = append(r.idle, urgent())
	}

	// Loaded: two ordinary jobs in flight at all times (one proving, one
	// synthesised and waiting), urgent jobs at random moments.
	s := startStream(e, w, m.name, seed)
	s.waitProving(b)
	rng := rand.New(rand.NewPCG(seed, 7))
	loadedFrom := time.Now()
	for range samples {
		time.Sleep(time.Duration(rng.Int64N(int64(s.typical()))))
		r.loaded = append(r.loaded, urgent())
	}
	// Let at least two ordinary jobs finish inside the loaded window.
	s.waitDone(b, loadedFrom, 2)
	r.loadedRate = append(r.loadedRate, s.rate(loadedFrom, time.Now()))

	aloneFrom := time.Now()
	s.waitDone(b, aloneFrom, 3)
	r.aloneRate = append(r.aloneRate, s.rate(aloneFrom, time.Now()))
	s.stop()
	b.Logf("%s round %d: idle %s, loaded %s; ordinary jobs/min alone %.2f, with urgent jobs %.2f; pauses %d (%v)",
		m.name, seed, durStats(r.idle[len(r.idle)-samples:]), durStats(r.loaded[len(r.loaded)-samples:]),
		r.aloneRate[len(r.aloneRate)-1], r.loadedRate[len(r.loadedRate)-1], e.Status().Urgent.Pauses,
		e.Status().Urgent.PausedTime.Round(time.Millisecond))
}

// stream keeps two ordinary jobs in flight until stopped.
type stream struct {
	e      *engine.Engine
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	done []time.Time // completion times
	took []time.Duration
}

func startStream(e *engine.Engine, w latencyWorkload, mode string, seed uint64) *stream {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stream{e: e, cancel: cancel}
	var next sync.Mutex
	i := 0
	for range 2 {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for ctx.Err() == nil {
				next.Lock()
				q := w.Load(i)
				q.RequestID = fmt.Sprintf("%s-%s-%d-%d", q.RequestID, mode, seed, i)
				i++
				next.Unlock()
				t := time.Now()
				res, err := e.Prove(ctx, q)
				if err == nil && res.State == engine.StateCompleted {
					s.mu.Lock()
					s.done = append(s.done, time.Now())
					s.took = append(s.took, time.Since(t))
					s.mu.Unlock()
				}
			}
		}()
	}
	return s
}

func (s *stream) stop() {
	s.cancel()
	s.wg.Wait()
}

// waitProving waits until an ordinary item is in a prover lane.
func (s *stream) waitProving(b *testing.B) {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		for _, l := range s.e.Status().Lanes {
			if l.Job != "" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("the ordinary stream never reached the prover")
}

// typical is how long one ordinary job takes to prove, as far as known
// (before the first completes: from its stage records).
func (s *stream) typical() time.Duration {
	for {
		s.mu.Lock()
		n := len(s.done)
		s.mu.Unlock()
		if n > 0 {
			break
		}
		for _, j := range s.e.Status().Jobs {
			for _, st := range j.Stages {
				if st.Stage == "synthesis" && st.Duration > 0 {
					// Proving a test circuit takes several times its
					// synthesis; a bound is all the random delay needs.
					return 8 * st.Duration
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Two jobs are in flight, so one completes every half a job's time.
	return max(time.Millisecond, medianDur(slices.Clone(s.took))/2)
}

// waitDone waits until n ordinary jobs have completed since from.
func (s *stream) waitDone(b *testing.B, from time.Time, n int) {
	deadline := time.Now().Add(60 * time.Minute)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		k := 0
		for _, t := range s.done {
			if !t.Before(from) {
				k++
			}
		}
		s.mu.Unlock()
		if k >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("fewer than %d ordinary jobs completed in an hour", n)
}

// rate is ordinary jobs per minute over [from, to]: completions after the
// first one in the window, over the time since that one.
func (s *stream) rate(from, to time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var in []time.Time
	for _, t := range s.done {
		if !t.Before(from) && !t.After(to) {
			in = append(in, t)
		}
	}
	if len(in) < 2 {
		return 0
	}
	return float64(len(in)-1) / in[len(in)-1].Sub(in[0]).Minutes()
}

func medianDur(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

func medianF(f []float64) float64 {
	if len(f) == 0 {
		return 0
	}
	f = slices.Clone(f)
	slices.Sort(f)
	return f[len(f)/2]
}

func durStats(d []time.Duration) string {
	if len(d) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fs [%.2f–%.2f]", medianDur(d).Seconds(), slices.Min(d).Seconds(), slices.Max(d).Seconds())
}

func floatStats(f []float64) string {
	if len(f) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f]", medianF(f), slices.Min(f), slices.Max(f))
}

func rateStats(f []float64) string {
	if len(f) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f [%.2f–%.2f]", medianF(f), slices.Min(f), slices.Max(f))
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
