package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ctxMode is how a gateKind's Plan treats its context.
type ctxMode int

const (
	// ignoreCtx plans when released, whatever ctx says.
	ignoreCtx ctxMode = iota
	// honourCtx returns ctx's error as soon as ctx ends.
	honourCtx
	// checkCtxAfter waits for the release, then returns ctx's error if
	// ctx ended meanwhile (a Kind that checks ctx between steps).
	checkCtxAfter
)

// gateKind plans like the test kind, but each Plan waits until release is
// closed, so a test can act while a job is planning.
type gateKind struct {
	inner   *testkind.Planner
	release chan struct{}
	once    sync.Once
	mode    ctxMode

	active, peak atomic.Int32
	calls        atomic.Int32
}

// newGateKind returns a gateKind; newRigWith opens it when the test ends
// (before the engine shuts down), so a failing test leaves no plan hanging.
func newGateKind(mode ctxMode) *gateKind {
	return &gateKind{inner: testkind.New(), release: make(chan struct{}), mode: mode}
}

// open lets every waiting and future Plan proceed.
func (g *gateKind) open() { g.once.Do(func() { close(g.release) }) }

func (g *gateKind) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	g.calls.Add(1)
	n := g.active.Add(1)
	defer g.active.Add(-1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	switch g.mode {
	case honourCtx:
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	default:
		<-g.release
		if g.mode == checkCtxAfter && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return g.inner.Plan(ctx, req)
}

// gatedBackend proves on the CPU, then holds Start's return until gate is
// closed (nil gate: no hold).
type gatedBackend struct {
	cpu.Backend
	gate    chan struct{}
	started chan struct{} // receives one value per Start that proved
}

func (g *gatedBackend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	pend, err := g.Backend.Start(ctx, p, parts, rnd)
	if g.started != nil {
		select {
		case g.started <- struct{}{}:
		default:
		}
	}
	if g.gate != nil {
		<-g.gate
	}
	return pend, err
}

// jobStatus finds a job that is not final in the engine's status.
func jobStatus(e *engine.Engine, id string) (engine.JobStatus, bool) {
	for _, j := range e.Status().Jobs {
		if j.ID == id {
			return j, true
		}
	}
	return engine.JobStatus{}, false
}

func waitPlanning(t *testing.T, e *engine.Engine, id string, holders int) {
	t.Helper()
	waitFor(t, id+" planning", 5*time.Second, func() bool {
		j, ok := jobStatus(e, id)
		return ok && j.State == engine.StatePlanning && j.Waiters == holders
	})
}

// TestShutdownWakesWhenPlanningJobEnds: Shutdown waits for a job that is
// still planning; when the plan ends (and the job is refused because the
// engine is closing), Shutdown must notice at once rather than at its
// deadline.
func TestShutdownWakesWhenPlanningJobEnds(t *testing.T) {
	gk := newGateKind(ignoreCtx)
	r := newRigWith(t, engine.Config{}, rigOptions{kind: gk})
	errc := make(chan error, 1)
	go func() {
		_, err := r.eng.Submit(context.Background(), testReq("planning", 10, testkind.Options{}))
		errc <- err
	}()
	waitPlanning(t, r.eng, "planning", 0)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	start := time.Now()
	go func() { shut <- r.eng.Shutdown(ctx) }()
	waitFor(t, "shutdown begun", 5*time.Second, func() bool { return strings.Contains(r.logs.String(), "engine shutting down") })
	gk.open()
	if err := <-errc; !errors.Is(err, engine.ErrShuttingDown) {
		t.Fatalf("submit planned during shutdown: %v", err)
	}
	if err := <-shut; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("shutdown took %v: it missed the wake-up when the planning job ended", el)
	}
}

// TestCancelDuringPlanning: a Cancel that arrives while the job is still
// planning is not lost: the job ends CANCELLED without running, and an
// Await that arrives during planning waits for the outcome.
func TestCancelDuringPlanning(t *testing.T) {
	gk := newGateKind(ignoreCtx)
	r := newRigWith(t, engine.Config{}, rigOptions{kind: gk})

	subc := make(chan error, 1)
	go func() {
		_, err := r.eng.Submit(context.Background(), testReq("p", 10, testkind.Options{}))
		subc <- err
	}()
	waitPlanning(t, r.eng, "p", 0)
	type awaited struct {
		res engine.Result
		err error
	}
	awc := make(chan awaited, 1)
	go func() {
		res, err := r.eng.Await(context.Background(), "p", 0)
		awc <- awaited{res, err}
	}()
	waitPlanning(t, r.eng, "p", 1) // the Await waits on the planning job
	was, err := r.eng.Cancel("p")
	if err != nil || was {
		t.Fatalf("cancel during planning: was_running=%v err=%v", was, err)
	}
	// A Prove caller attached to the planning job gets the cancellation too.
	provec := make(chan awaited, 1)
	go func() {
		res, err := r.eng.Prove(context.Background(), testReq("p", 10, testkind.Options{}))
		provec <- awaited{res, err}
	}()
	waitPlanning(t, r.eng, "p", 2)
	gk.open()
	if err := <-subc; err != nil {
		t.Fatalf("submit: %v", err)
	}
	for _, c := range []chan awaited{awc, provec} {
		a := <-c
		if a.err != nil || a.res.State != engine.StateCancelled {
			t.Fatalf("waiter: %v %v", a.res.State, a.err)
		}
	}
	if res := mustAwait(t, r.eng, "p"); res.State != engine.StateCancelled {
		t.Fatalf("await after planning: %v", res.State)
	}
	st := r.eng.Status()
	if st.Counters.Cancelled != 1 || st.Counters.Completed != 0 || len(st.Jobs) != 0 {
		t.Fatalf("counters %+v, jobs %+v", st.Counters, st.Jobs)
	}
	r.waitIdleBudget(t)
}

// TestHigherPriorityExceedsSynthesisConcurrency: with every synthesis slot
// (SynthesisConcurrency = 1) taken by a NORMAL batch, a CRITICAL job starts
// on the next free worker instead of waiting until every NORMAL partition
// has started.
func TestHigherPriorityExceedsSynthesisConcurrency(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 2, SynthesisConcurrency: 1, Lookahead: 16}, 0, 0)
	if _, _, err := r.params.Preload(context.Background(), testkind.CircuitID(10), 0); err != nil {
		t.Fatal(err)
	}
	mustSubmit(t, r.eng, testReq("normal", 10, testkind.Options{Partitions: 12, SynthesisDelayMS: 200}))
	waitFor(t, "normal synthesising on both workers", 5*time.Second, func() bool { return r.eng.Status().Pipeline.Synthesizing == 2 })
	q := testReq("critical", 10, testkind.Options{})
	q.Priority = proofkind.PriorityCritical
	mustSubmit(t, r.eng, q)
	queued := -1
	waitFor(t, "critical job started", 10*time.Second, func() bool {
		st := r.eng.Status()
		var crit, normal *engine.JobStatus
		for i := range st.Jobs {
			switch st.Jobs[i].ID {
			case "critical":
				crit = &st.Jobs[i]
			case "normal":
				normal = &st.Jobs[i]
			}
		}
		if crit != nil && crit.State == engine.StateQueued {
			return false
		}
		queued = 0
		if normal != nil {
			for _, p := range normal.Partitions {
				if p.State == "queued" {
					queued++
				}
			}
		}
		return true
	})
	if queued == 0 {
		t.Fatal("the CRITICAL job started only after every NORMAL partition had started (head-of-line blocking)")
	}
	if res := mustAwait(t, r.eng, "critical"); res.State != engine.StateCompleted {
		t.Fatalf("critical: %v %v", res.State, res.Err)
	}
	if _, err := r.eng.Cancel("normal"); err != nil {
		t.Fatal(err)
	}
	r.waitIdleBudget(t)
}

// TestRetryAttachedDuringPlanningSurvivesFirstCaller: a Prove retry that
// attached to a planning job does not inherit the first caller's
// cancellation.
func TestRetryAttachedDuringPlanningSurvivesFirstCaller(t *testing.T) {
	t.Run("attached before the first caller leaves", func(t *testing.T) {
		gk := newGateKind(honourCtx)
		r := newRigWith(t, engine.Config{}, rigOptions{kind: gk})
		q := testReq("r", 10, testkind.Options{})
		ctx1, cancel1 := context.WithCancel(context.Background())
		defer cancel1()
		first := make(chan error, 1)
		go func() { _, err := r.eng.Prove(ctx1, q); first <- err }()
		waitPlanning(t, r.eng, "r", 1)
		type out struct {
			res engine.Result
			err error
		}
		second := make(chan out, 1)
		go func() { res, err := r.eng.Prove(context.Background(), q); second <- out{res, err} }()
		waitPlanning(t, r.eng, "r", 2)
		cancel1()
		// The first caller's hold goes at once (its goroutine runs the plan
		// and returns when the plan does).
		waitPlanning(t, r.eng, "r", 1)
		gk.open()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Fatalf("first caller: %v", err)
		}
		o := <-second
		if o.err != nil || o.res.State != engine.StateCompleted {
			t.Fatalf("retry: %v %v %v", o.res.State, o.res.Err, o.err)
		}
		verifyProof(t, 10, o.res.Proof, 1)
	})
	t.Run("attached after the plan was abandoned", func(t *testing.T) {
		gk := newGateKind(checkCtxAfter)
		// Without an orphan grace (with one, the plan goes on: TestOrphanGrace).
		r := newRigWith(t, engine.Config{OrphanGrace: -1}, rigOptions{kind: gk})
		q := testReq("r", 10, testkind.Options{})
		ctx1, cancel1 := context.WithCancel(context.Background())
		first := make(chan error, 1)
		go func() { _, err := r.eng.Prove(ctx1, q); first <- err }()
		waitPlanning(t, r.eng, "r", 1)
		cancel1()
		// Nobody waits on the plan any more: its context is cancelled,
		// but the Kind goes on until it is released.
		waitPlanning(t, r.eng, "r", 0)
		second := make(chan engine.Result, 1)
		go func() {
			res, err := r.eng.Prove(context.Background(), q)
			if err != nil {
				t.Error(err)
			}
			second <- res
		}()
		waitPlanning(t, r.eng, "r", 1)
		gk.open()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Fatalf("first caller: %v", err)
		}
		if res := <-second; res.State != engine.StateCompleted {
			t.Fatalf("retry: %v %v", res.State, res.Err)
		}
		if n := gk.calls.Load(); n != 2 {
			t.Fatalf("%d plans, want 2 (the abandoned one and the retry's)", n)
		}
	})
}

// TestDroppedPartReleasesMemoryDuringSynthesis: a batch item's part whose
// job is cancelled while another part of the item is being synthesised
// gives its working set back when synthesis reaches it, not only when the
// whole item has been proved.
func TestDroppedPartReleasesMemoryDuringSynthesis(t *testing.T) {
	gate := make(chan struct{})
	be := &gatedBackend{gate: gate, started: make(chan struct{}, 1)}
	r := newRigWith(t, engine.Config{SynthesisWorkers: 1, MaxBatchSize: 2, MaxBatchWait: time.Minute}, rigOptions{backend: be})
	defer func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	}()
	s := shapeOf(t, 10)
	if _, _, err := r.params.Preload(context.Background(), testkind.CircuitID(10), 0); err != nil {
		t.Fatal(err)
	}
	mustSubmit(t, r.eng, testReq("x", 10, testkind.Options{SynthesisDelayMS: 300}))
	mustSubmit(t, r.eng, testReq("y", 10, testkind.Options{SynthesisDelayMS: 300}))
	waitFor(t, "batch synthesising", 5*time.Second, func() bool { return r.eng.Status().Pipeline.Synthesizing == 1 })
	if used := r.budget.Used(); used != s.ParamsBytes()+2*s.WorkingSet() {
		t.Fatalf("used %d, want params and two working sets", used)
	}
	if was, err := r.eng.Cancel("y"); err != nil || !was {
		t.Fatalf("cancel y: %v %v", was, err)
	}
	select {
	case <-be.started:
	case <-time.After(10 * time.Second):
		t.Fatal("x never reached the prover")
	}
	if used, want := r.budget.Used(), s.ParamsBytes()+s.WorkingSet(); used != want {
		t.Fatalf("while x proves, used %d, want %d (params + x's working set): the cancelled part kept %d bytes",
			used, want, used-want)
	}
	close(gate)
	if res := mustAwait(t, r.eng, "x"); res.State != engine.StateCompleted {
		t.Fatalf("x: %v %v", res.State, res.Err)
	}
	r.waitIdleBudget(t)
}

// TestAnonymousSubmitDroppedWhenCallerLeavesDuringPlanning: a SubmitProof
// without a request id whose caller is gone by the end of planning is not
// queued (nobody could ever await or cancel it); one with a request id is.
func TestAnonymousSubmitDroppedWhenCallerLeavesDuringPlanning(t *testing.T) {
	gk := newGateKind(ignoreCtx)
	r := newRigWith(t, engine.Config{}, rigOptions{kind: gk})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := r.eng.Submit(ctx, testReq("", 10, testkind.Options{}))
		errc <- err
	}()
	waitFor(t, "anonymous job planning", 5*time.Second, func() bool { return len(r.eng.Status().Jobs) == 1 })
	ctxKeep, cancelKeep := context.WithCancel(context.Background())
	go func() {
		_, err := r.eng.Submit(ctxKeep, testReq("named", 10, testkind.Options{}))
		errc <- err
	}()
	waitPlanning(t, r.eng, "named", 0)
	cancel()
	cancelKeep()
	gk.open()
	var errs []error
	errs = append(errs, <-errc, <-errc)
	nCanceled := 0
	for _, err := range errs {
		if errors.Is(err, context.Canceled) {
			nCanceled++
		} else if err != nil {
			t.Fatalf("submit: %v", err)
		}
	}
	if nCanceled != 1 {
		t.Fatalf("submit errors %v: want exactly the anonymous one cancelled", errs)
	}
	if res := mustAwait(t, r.eng, "named"); res.State != engine.StateCompleted {
		t.Fatalf("named job: %v %v", res.State, res.Err)
	}
	st := r.eng.Status()
	if len(st.Jobs) != 0 || st.Counters.Completed != 1 {
		t.Fatalf("jobs %+v, counters %+v: the anonymous job ran", st.Jobs, st.Counters)
	}
}

// TestShutdownRetiresItemStartedAfterStop: a prover Start that returns after
// Shutdown stopped the workers still has its item retired (memory and the
// parameter pin given back), whichever way the prover's hand-off goes.
func TestShutdownRetiresItemStartedAfterStop(t *testing.T) {
	for i := range 8 {
		gate := make(chan struct{})
		be := &gatedBackend{gate: gate, started: make(chan struct{}, 1)}
		r := newRigWith(t, engine.Config{}, rigOptions{backend: be})
		mustSubmit(t, r.eng, testReq("j", 10, testkind.Options{}))
		<-be.started
		// A Shutdown whose deadline has passed aborts the job, stops the
		// workers and returns while the prover is still inside Start.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_ = r.eng.Shutdown(ctx)
		if res := mustAwait(t, r.eng, "j"); res.State != engine.StateFailed {
			t.Fatalf("run %d: job %v", i, res.State)
		}
		time.Sleep(10 * time.Millisecond)
		close(gate) // Start returns a pending proof after the stop
		deadline := time.Now().Add(3 * time.Second)
		for {
			refs := 0
			for _, e := range r.params.Status() {
				refs += e.Refs
			}
			used, hot := r.budget.Used(), r.params.HotBytes()
			if refs == 0 && used == hot {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d: after shutdown %d parameter pins and %d bytes beyond the parameters remain", i, refs, used-hot)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
