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
	"syscall"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/sectordir"
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
	Kinds   []engine.Kind
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
// CUZK_LANE_LOAD=porep-2k makes the load the real 2 KiB PoRep (one
// partition of 2^22 rows, engine/porepkind) over a sector sealed in
// process, with the INSECURE 2 KiB test parameters (testparams.Ensure:
// about 1.1 GB, generated once).
//
// CUZK_LANE_CRITICAL=winning-2k makes the urgent job the real 2 KiB
// WinningPoSt (engine/postkind, a CC sector sealed in process, its
// parameters generated once); with CUZK_LANE_LOAD=porep-2k both are real.
func testLatencyWorkload(b *testing.B) latencyWorkload {
	if os.Getenv("CUZK_LANE_CRITICAL") == "winning-2k" {
		w := porepLoad(b, 0)
		winning(b, &w)
		return w
	}
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
		Kinds:    []engine.Kind{engine.Builtin(proofkind.Test, testkind.New())},
		Locator:  testkind.Locator(dir),
		Circuits: []string{testkind.CircuitID(crit), testkind.CircuitID(load)},
		Critical: func(i int) *engine.Request {
			q := testReq(fmt.Sprintf("critical-%d", i), crit, testkind.Options{})
			q.Priority = proofkind.PriorityCritical
			return q
		},
		Load: func(i int) *engine.Request { return testReq(fmt.Sprintf("load-%d", i), load, testkind.Options{}) },
	}
}

// winning replaces w's urgent job by the real 2 KiB WinningPoSt.
func winning(b *testing.B, w *latencyWorkload) {
	p := filecoin.StackedDrgWinning2KiBV1
	dir := testparams.DefaultDir(os.LookupEnv)
	t := time.Now()
	if _, gen, err := testparams.EnsureCircuit(context.Background(), p.CircuitID(), dir, testparams.Options{}); err != nil {
		b.Fatal(err)
	} else if gen {
		b.Logf("generated 2 KiB WinningPoSt test parameters in %v", time.Since(t).Round(time.Second))
	}
	rnd := testkit.Randomness(1)
	vanilla := testkit.PoStVanilla(b, p, rnd, []*sectordir.Sector{testkit.CCSector(b, filecoin.StackedDrg2KiBV1_1, 7)}, 0)
	w.Name = strings.Replace(w.Name, "test-k0", "winning-2k", 1)
	w.Kinds = append(w.Kinds, engine.Builtin(proofkind.WinningPoSt, postkind.Winning()))
	w.Circuits[0] = string(p.CircuitID())
	w.Critical = func(i int) *engine.Request {
		return &engine.Request{RequestID: fmt.Sprintf("winning-%d", i), Kind: proofkind.WinningPoSt,
			RegisteredProof: uint64(p), MinerID: seal.DefaultMinerID, Randomness: rnd[:], VanillaProofs: vanilla}
	}
}

// porepLoad is testLatencyWorkload with the 2 KiB PoRep as the load (and
// test-k<crit> as the urgent job; crit 0: none yet, the caller sets it).
func porepLoad(b *testing.B, crit int) latencyWorkload {
	dir := testparams.DefaultDir(os.LookupEnv)
	if crit > 0 {
		if err := testkind.WriteParams(dir, crit); err != nil {
			b.Fatal(err)
		}
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
		Kinds: []engine.Kind{
			engine.Builtin(proofkind.Test, testkind.New()),
			engine.Builtin(proofkind.PoRep, &porepkind.Planner{}),
		},
		Locator:  srs.Chain(srs.FilecoinLocator(dir), testkind.Locator(dir)),
		Circuits: []string{testkind.CircuitID(crit), string(cid)},
		Critical: func(i int) *engine.Request {
			q := testReq(fmt.Sprintf("critical-%d", i), crit, testkind.Options{})
			q.Priority = proofkind.PriorityCritical
			return q
		},
		Load: func(i int) *engine.Request {
			return &engine.Request{RequestID: fmt.Sprintf("porep-%d", i), Kind: proofkind.PoRep, RegisteredProof: uint64(p),
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
// stream of ordinary jobs runs (loaded), in pairs (idle, then loaded, the
// loaded one submitted at a random moment of the ordinary work), and the
// ordinary stream's throughput alone. Run it with -benchtime=1x -v; knobs
// (environment): CUZK_LANE_CRITICAL and CUZK_LANE_LOAD (log2 rows of the
// two test circuits; CUZK_LANE_LOAD=porep-2k for the real 2 KiB PoRep,
// CUZK_LANE_CRITICAL=winning-2k for the real 2 KiB WinningPoSt against it),
// CUZK_LANE_SAMPLES (pairs per round, default 5), CUZK_LANE_ROUNDS
// (default 1; rounds alternate the modes), CUZK_LANE_MODES (default
// "preempt,lane,baseline").
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
		b.Logf("workload %s, %d pairs per round, %d round(s), GOMAXPROCS %d", w.Name, samples, rounds, runtimeProcs())
		b.Logf("%-9s %-24s %-24s %-22s %-22s %-18s", "mode", "idle latency", "loaded latency", "loaded/idle (pairs)", "same, process CPU", "ordinary jobs/min")
		for _, m := range modes {
			r := res[m.name]
			b.Logf("%-9s %-24s %-24s %-22s %-22s %-18s", m.name, durStats(r.idle), durStats(r.loaded), floatStats(r.ratio), floatStats(r.cpuRatio),
				rateStats(r.aloneRate))
			if m.name == modes[0].name {
				b.ReportMetric(float64(medianDur(r.idle).Milliseconds()), "idle-ms")
				b.ReportMetric(float64(medianDur(r.loaded).Milliseconds()), "loaded-ms")
				b.ReportMetric(medianF(r.ratio), "loaded/idle")
			}
		}
		b.Logf("median [min–max] over all pairs (latencies, ratios) and over rounds (jobs/min, the ordinary stream alone)")
	}
}

type latencyResult struct {
	idle, loaded []time.Duration
	ratio        []float64 // loaded/idle of each pair
	// cpuRatio is the process's CPU time during the loaded job over that
	// during the idle one: on a machine shared with other processes (as
	// here) it estimates the wall-time ratio a dedicated machine would
	// show, since it does not depend on the share of the cores the
	// process gets.
	cpuRatio  []float64
	aloneRate []float64 // ordinary jobs per minute, one per round
}

// runLatencyRound runs the three phases of one mode on a fresh engine:
// urgent jobs alone, urgent jobs during the ordinary stream, the stream
// alone.
func runLatencyRound(b *testing.B, w latencyWorkload, m latencyMode, samples int, seed uint64, r *latencyResult) {
	b.Helper()
	te := testkit.NewEngine(b, testkit.EngineOptions{Config: m.cfg, Kinds: w.Kinds, Locator: w.Locator, Budget: 12 << 30, TrustParams: true,
		UrgentBackend: &cpu.Backend{}})
	defer te.Close()
	e, params := te.Engine, te.Params
	ctx := context.Background()
	for _, c := range w.Circuits {
		if _, _, err := params.Preload(ctx, c, 0); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	var lastUrgent string
	var lastCPU time.Duration // process CPU time over the last urgent job
	urgent := func() time.Duration {
		q := w.Critical(int(seed)*1000 + n)
		q.RequestID = fmt.Sprintf("%s-%s-%d", q.RequestID, m.name, seed)
		lastUrgent = q.RequestID
		n++
		c := processCPU()
		t := time.Now()
		res, err := e.Prove(ctx, q)
		d := time.Since(t)
		lastCPU = processCPU() - c
		if err != nil || res.State != engine.StateCompleted {
			b.Fatalf("%s: urgent job: %v %v %v", m.name, err, res.State, res.Err)
		}
		return d
	}
	// A first urgent job, and a first ordinary one, warm the density
	// templates and the FFT tables; the ordinary one also says how long
	// ordinary work takes.
	urgent()
	t := time.Now()
	q := w.Load(0)
	q.RequestID = fmt.Sprintf("%s-warm-%s-%d", q.RequestID, m.name, seed)
	if res, err := e.Prove(ctx, q); err != nil || res.State != engine.StateCompleted {
		b.Fatalf("%s: ordinary job: %v %v %v", m.name, err, res.State, res.Err)
	}
	typ := time.Since(t)

	// Pairs: an urgent job alone, then one while two ordinary jobs are in
	// flight (one proving, one synthesised or waiting), submitted at a
	// random moment of the ordinary work. A pair takes seconds to minutes,
	// so the machine's load (shared here) is about the same for both.
	rng := rand.New(rand.NewPCG(seed, 7))
	for i := range samples {
		waitQuiet(b, e)
		idle := urgent()
		idleCPU := lastCPU
		s := startStream(e, w, m.name, seed*1000+uint64(i))
		s.waitProving(b)
		time.Sleep(time.Duration(rng.Int64N(int64(typ))))
		loaded := urgent()
		s.stop()
		r.cpuRatio = append(r.cpuRatio, float64(lastCPU)/float64(idleCPU))
		if testing.Verbose() {
			b.Logf("%s pair %d: idle %v (CPU %v), loaded %v (CPU %v): %s", m.name, i, idle.Round(time.Millisecond), idleCPU.Round(time.Millisecond),
				loaded.Round(time.Millisecond), lastCPU.Round(time.Millisecond), stagesOf(e, lastUrgent))
		}
		r.idle, r.loaded = append(r.idle, idle), append(r.loaded, loaded)
		r.ratio = append(r.ratio, float64(loaded)/float64(idle))
	}
	pauses, paused := e.Status().Urgent.Pauses, e.Status().Urgent.PausedTime

	// The ordinary stream's throughput, alone.
	waitQuiet(b, e)
	s := startStream(e, w, m.name, seed*1000+999)
	from := time.Now()
	s.waitDone(b, from, 3)
	r.aloneRate = append(r.aloneRate, s.rate(from, time.Now()))
	s.stop()
	b.Logf("%s round %d: ordinary job alone %v; idle %s, loaded %s, loaded/idle per pair %s (process CPU %s); ordinary jobs/min %.2f; pauses %d (%v)",
		m.name, seed, typ.Round(time.Millisecond), durStats(r.idle[len(r.idle)-samples:]), durStats(r.loaded[len(r.loaded)-samples:]),
		floatStats(r.ratio[len(r.ratio)-samples:]), floatStats(r.cpuRatio[len(r.cpuRatio)-samples:]), r.aloneRate[len(r.aloneRate)-1],
		pauses, paused.Round(time.Millisecond))
}

// stagesOf lists a recent job's stages and their workers.
func stagesOf(e *engine.Engine, id string) string {
	for _, j := range e.Status().RecentJobs {
		if j.ID != id {
			continue
		}
		var parts []string
		for _, st := range j.Stages {
			parts = append(parts, fmt.Sprintf("%s@%v+%v", st.Stage, st.Start.Sub(j.Submitted).Round(time.Millisecond), st.Duration.Round(time.Millisecond)))
		}
		return strings.Join(parts, " ") + fmt.Sprintf(" total %v", j.Timings.Total.Round(time.Millisecond))
	}
	return "?"
}

// waitQuiet waits until no job is in the engine.
func waitQuiet(b *testing.B, e *engine.Engine) {
	deadline := time.Now().Add(30 * time.Minute)
	for time.Now().Before(deadline) {
		st := e.Status()
		p := st.Pipeline
		if len(st.Jobs) == 0 && p.SynthesisQueued+p.Synthesizing+p.Ready+p.Proving+p.Finishing == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("the engine did not become quiet")
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

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
