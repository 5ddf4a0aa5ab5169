package engine

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/engine/budget"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// errPlanAbandoned ends a plan nobody waited for any more. A caller that
// attached to the job meanwhile submits again instead of failing.
var errPlanAbandoned = fmt.Errorf("planning stopped because no caller waits for the job: %w", context.Canceled)

// Observer is told about finished jobs and formed batches (metrics). It is
// called with the engine's lock held and must return quickly without
// calling the engine.
type Observer interface {
	JobFinished(r JobReport)
	BatchFormed(circuitID string, jobs int)
}

// JobReport describes a job that reached a final state.
type JobReport struct {
	ID         string
	Kind       ProofKind
	CircuitID  string
	State      State
	Partitions int
	Timings    Timings
}

// Options are the engine's collaborators.
type Options struct {
	Config  Config
	Kinds   map[ProofKind]Kind
	Backend prover.Backend
	Params  *srs.Manager
	Budget  *budget.Budget
	Log     *slog.Logger
	// Observer may be nil.
	Observer Observer
}

// Engine runs proof jobs: it queues them by priority, batches same-circuit
// jobs, synthesises and proves their partitions in a pipeline under the
// memory budget, self-checks the proofs and keeps results for a while.
type Engine struct {
	cfg     Config
	kinds   map[ProofKind]Kind
	backend prover.Backend
	params  *srs.Manager
	budget  *budget.Budget
	log     *slog.Logger
	obs     Observer
	started time.Time

	baseCtx  context.Context
	stopWork context.CancelFunc
	finCh    chan *finishing // closed by the prover when it stops
	planSem  chan struct{}   // one token per plan in progress
	workers  sync.WaitGroup

	mu         sync.Mutex
	jobs       map[string]*job
	retained   []*job // final jobs in the order they finished
	seq        uint64 // numbers batches
	collectors map[collectorKey]*collector
	// densities holds each circuit's density bitmaps from its first exact
	// synthesis (structure only; shared read-only by later syntheses).
	densities map[string]*r1cs.Densities
	synthQ    []*item
	readyQ    []*item
	active    int // batches with an item in synthesis
	credits   int // items from synthesis start until the prover takes them
	inFlight  int // items from synthesis start until their proofs are finished
	nSynth    int // items in synthesis now
	// synthByPrio counts items in synthesis by priority.
	synthByPrio [PriorityCritical + 1]int
	nProving    int // items in Start now
	nFinishing  int // items in Finish now
	synthWake   chan struct{}
	proveWake   chan struct{}
	closing     bool
	idle        chan struct{} // closed and replaced when no job is in flight
	counts      counters
	stages      stageLog // stage records of live and recent jobs (timing.go)
}

type counters struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
	Attached  uint64 `json:"attached"`
	byKind    map[ProofKind]*kindCounts
}

type kindCounts struct{ completed, failed, cancelled uint64 }

type collectorKey struct {
	circuit string
	prio    Priority
}

type collector struct {
	jobs  []*job
	timer *time.Timer
}

// New starts an engine and its workers. Stop them with Shutdown.
func New(opt Options) (*Engine, error) {
	if opt.Backend == nil || opt.Params == nil || opt.Budget == nil {
		return nil, errors.New("engine: Backend, Params and Budget are required")
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kinds := make(map[ProofKind]Kind, len(opt.Kinds))
	for k, v := range opt.Kinds {
		if k == ProofKindUnspecified || v == nil {
			return nil, fmt.Errorf("engine: cannot register a Kind for %v", k)
		}
		kinds[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := opt.Config.withDefaults()
	e := &Engine{
		cfg:        cfg,
		kinds:      kinds,
		backend:    opt.Backend,
		params:     opt.Params,
		budget:     opt.Budget,
		log:        log,
		obs:        opt.Observer,
		started:    time.Now(),
		baseCtx:    ctx,
		stopWork:   cancel,
		finCh:      make(chan *finishing, 1),
		planSem:    make(chan struct{}, cfg.PlanConcurrency),
		jobs:       map[string]*job{},
		collectors: map[collectorKey]*collector{},
		densities:  map[string]*r1cs.Densities{},
		synthWake:  make(chan struct{}),
		proveWake:  make(chan struct{}),
		idle:       make(chan struct{}),
		counts:     counters{byKind: map[ProofKind]*kindCounts{}},
	}
	for range e.cfg.SynthesisWorkers {
		e.workers.Add(1)
		go e.synthesisWorker()
	}
	e.workers.Add(3)
	go e.proverWorker()
	go e.finisher()
	go e.janitor()
	return e, nil
}

// Kinds lists the registered proof kinds.
func (e *Engine) Kinds() []ProofKind {
	out := make([]ProofKind, 0, len(e.kinds))
	for k := range e.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Budget is the engine's memory budget.
func (e *Engine) Budget() *budget.Budget { return e.budget }

// Params is the engine's parameter manager.
func (e *Engine) Params() *srs.Manager { return e.params }

// Submit queues a proof and returns at once. A request whose RequestID
// matches a planning, queued, running or completed job attaches to it
// (nothing is proved twice); one matching a failed or cancelled job runs
// again. The job is owned by the engine until it is final: it keeps
// running when ctx ends, unless ctx ends while the request is being
// planned and it has no RequestID (nobody could ever await or cancel it
// then).
func (e *Engine) Submit(ctx context.Context, req *Request) (SubmitResult, error) {
	_, res, err := e.submit(ctx, req, true)
	if err != nil {
		return SubmitResult{}, err
	}
	return res, nil
}

// Prove submits a request and waits for its result. If ctx ends first,
// the job is cancelled as soon as no other Prove or Await caller waits on
// it, unless a Submit caller owns it.
func (e *Engine) Prove(ctx context.Context, req *Request) (Result, error) {
	j, _, err := e.submit(ctx, req, false)
	if err != nil {
		return Result{}, err
	}
	select {
	case <-j.done:
		e.mu.Lock()
		j.holders--
		r := j.result
		e.mu.Unlock()
		return r, nil
	case <-ctx.Done():
		e.mu.Lock()
		j.abandoned = true
		e.releaseHolderLocked(j)
		e.mu.Unlock()
		return Result{}, ctx.Err()
	}
}

// wantedLocked says whether anyone still wants j: a caller waits on it, or
// a SubmitProof caller owns it and could still learn its id.
func (e *Engine) wantedLocked(j *job) bool {
	return j.holders > 0 || (j.keep && !j.orphaned)
}

// releaseHolderLocked drops one holder. A job nobody wants any more is
// cancelled: a queued or running one at once (when a Prove caller gave up
// on it), a planning one by ending its plan's context (its submitter then
// decides).
func (e *Engine) releaseHolderLocked(j *job) {
	j.holders--
	if j.state.Final() || e.wantedLocked(j) {
		return
	}
	switch {
	case j.state == StatePlanning:
		j.planCancel()
	case j.abandoned:
		e.log.Info("caller went away; cancelling its job", "job", j.id)
		e.endLocked(j, StateCancelled, nil, nil)
	}
}

// submit queues req or attaches to the job with its request id. detached
// marks a SubmitProof caller (the job is kept even with no waiter);
// otherwise the caller becomes a holder and must decrement holders.
func (e *Engine) submit(ctx context.Context, req *Request, detached bool) (*job, SubmitResult, error) {
	kind, ok := e.kinds[req.Kind]
	if !ok {
		return nil, SubmitResult{}, fmt.Errorf("%w: %d", ErrUnknownKind, int32(req.Kind))
	}
	digest := req.digest()
	for {
		j, res, err := e.submitOnce(ctx, kind, req, digest, detached)
		if errors.Is(err, errPlanAbandoned) && ctx.Err() == nil {
			// We attached to a plan that was stopped before we came; the
			// job is gone, so submit afresh.
			continue
		}
		return j, res, err
	}
}

func (e *Engine) submitOnce(ctx context.Context, kind Kind, req *Request, digest [32]byte, detached bool) (*job, SubmitResult, error) {
	id := req.RequestID
	if id == "" {
		id = newJobID()
	}
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return nil, SubmitResult{}, ErrShuttingDown
	}
	if old, ok := e.jobs[id]; ok {
		reuse := old.digest == digest && old.state != StateFailed && old.state != StateCancelled
		if !reuse && !old.state.Final() {
			st := old.state
			e.mu.Unlock()
			return nil, SubmitResult{}, fmt.Errorf("%w: %q (job %s)", ErrRequestIDConflict, id, st)
		}
		if reuse {
			return e.attach(ctx, old, detached)
		}
		// A retained failure, cancellation or a different request under
		// the same id: the new submission replaces it.
		e.forgetLocked(old)
	}
	if n := e.liveJobsLocked(); n >= e.cfg.MaxPending {
		e.mu.Unlock()
		return nil, SubmitResult{}, fmt.Errorf("%w: %d jobs are planning, queued or running (max_pending %d)", ErrTooManyJobs, n, e.cfg.MaxPending)
	}
	prio := req.Priority
	if prio == PriorityUnspecified {
		prio = req.Kind.DefaultPriority()
	}
	// Plan under a context of our own: the caller's values, but ended only
	// when nobody wants the job any more, so a retry that attached to it
	// does not inherit the first caller's cancellation.
	planCtx, planCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer planCancel()
	j := &job{
		id:         id,
		kind:       req.Kind,
		prio:       prio,
		digest:     digest,
		state:      StatePlanning,
		planned:    make(chan struct{}),
		planCancel: planCancel,
		done:       make(chan struct{}),
		submitted:  time.Now(),
		anonymous:  req.RequestID == "",
	}
	e.hold(j, detached)
	e.jobs[id] = j
	e.mu.Unlock()

	stop := context.AfterFunc(ctx, func() {
		e.mu.Lock()
		e.submitterLeftLocked(j, detached)
		e.mu.Unlock()
	})
	plan, err := e.plan(planCtx, kind, req)
	stop()
	stopped := planCtx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))

	e.mu.Lock()
	defer e.mu.Unlock()
	if ctx.Err() != nil {
		e.submitterLeftLocked(j, detached)
	}
	// What the submitter hears when it has left: its own context's error.
	left := func(err error) (*job, SubmitResult, error) {
		if j.submitterLeft && (!detached || j.orphaned) {
			return nil, SubmitResult{}, ctx.Err()
		}
		return nil, SubmitResult{}, err
	}
	switch {
	case j.cancelRequested && (err == nil || stopped):
		// Cancel came while we planned: the job ends without running.
		if plan != nil {
			j.circuit = plan.CircuitID
		}
		close(j.planned)
		e.endLocked(j, StateCancelled, nil, nil)
		if j.submitterLeft && !detached {
			return left(nil)
		}
		return j, SubmitResult{JobID: id}, nil
	case e.closing:
		e.dropPlanningLocked(j, ErrShuttingDown)
		return left(ErrShuttingDown)
	case !e.wantedLocked(j):
		// Every caller left and none can come back for it.
		e.dropPlanningLocked(j, errPlanAbandoned)
		e.log.Info("job dropped: its caller left while it was planned", "job", id, "kind", req.Kind.String())
		return left(errPlanAbandoned)
	case err != nil:
		if stopped {
			err = errPlanAbandoned
		}
		e.dropPlanningLocked(j, err)
		e.log.Info("job rejected", "job", id, "kind", req.Kind.String(), "err", err)
		return left(err)
	}
	j.plan = plan
	j.circuit = plan.CircuitID
	j.parts = make([]jobPart, len(plan.Partitions))
	j.remaining = len(plan.Partitions)
	pos := 0
	for _, o := range e.jobs {
		if o != j && o.state == StateQueued && o.prio >= j.prio {
			pos++
		}
	}
	j.state = StateQueued
	close(j.planned)
	e.log.Info("job queued", "job", id, "kind", j.kind.String(), "circuit", j.circuit, "priority", j.prio.String(),
		"partitions", len(plan.Partitions), "queue_position", pos)
	e.enqueueLocked(j)
	if j.submitterLeft && !detached {
		return left(nil)
	}
	return j, SubmitResult{JobID: id, QueuePosition: pos}, nil
}

// attach makes the caller share old, waiting until old's planning ends.
// It is called with e.mu held and unlocks it.
func (e *Engine) attach(ctx context.Context, old *job, detached bool) (*job, SubmitResult, error) {
	e.hold(old, detached)
	e.counts.Attached++
	planned, st := old.planned, old.state
	e.mu.Unlock()
	e.log.Debug("request attached to existing job", "job", old.id, "state", st.String())
	select {
	case <-planned:
	case <-ctx.Done():
		e.unhold(old, detached)
		return nil, SubmitResult{}, ctx.Err()
	}
	if old.planErr != nil {
		e.unhold(old, detached)
		return nil, SubmitResult{}, old.planErr
	}
	return old, SubmitResult{JobID: old.id, Attached: true}, nil
}

// submitterLeftLocked releases the hold of the caller that created j once
// its context has ended. A planning job nobody wants any more has its plan
// stopped.
func (e *Engine) submitterLeftLocked(j *job, detached bool) {
	if j.submitterLeft {
		return
	}
	j.submitterLeft = true
	if detached {
		j.orphaned = j.anonymous
		if j.state == StatePlanning && !e.wantedLocked(j) {
			j.planCancel()
		}
		return
	}
	j.abandoned = true
	e.releaseHolderLocked(j)
}

// dropPlanningLocked removes a job whose planning ended without queueing
// it; err is what callers waiting for the plan are told.
func (e *Engine) dropPlanningLocked(j *job, err error) {
	j.planErr = err
	close(j.planned)
	if e.jobs[j.id] == j {
		delete(e.jobs, j.id)
	}
	e.signalIdleLocked()
}

func (e *Engine) hold(j *job, detached bool) {
	if detached {
		j.keep = true
		j.orphaned = false
	} else {
		j.holders++
	}
}

func (e *Engine) unhold(j *job, detached bool) {
	if detached {
		return
	}
	e.mu.Lock()
	e.releaseHolderLocked(j)
	e.mu.Unlock()
}

// plan runs the Kind and checks that the job can ever run: its parameters
// exist and one partition fits in the memory budget with them. At most
// Config.PlanConcurrency plans run at once.
func (e *Engine) plan(ctx context.Context, kind Kind, req *Request) (*Plan, error) {
	select {
	case e.planSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.planSem }()
	plan, err := e.runKind(ctx, kind, req)
	if err != nil {
		return nil, err
	}
	if err := plan.validate(); err != nil {
		return nil, fmt.Errorf("engine: %s: %w", req.Kind, err)
	}
	shape, err := e.params.Shape(plan.CircuitID)
	if err != nil {
		return nil, err
	}
	need := shape.ParamsBytes() + shape.WorkingSet()
	if need > e.budget.Total() {
		return nil, fmt.Errorf("%w: circuit %s needs %s (parameters %s + one partition's working set %s), the budget is %s",
			ErrExceedsBudget, plan.CircuitID, budget.FormatBytes(need), budget.FormatBytes(shape.ParamsBytes()),
			budget.FormatBytes(shape.WorkingSet()), budget.FormatBytes(e.budget.Total()))
	}
	return plan, nil
}

// runKind calls kind.Plan and turns a panic (a malformed request that a
// Kind failed to reject) into an invalid-request error.
func (e *Engine) runKind(ctx context.Context, kind Kind, req *Request) (plan *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.logPanic("plan", r, "kind", req.Kind.String(), "request_id", req.RequestID)
			plan, err = nil, fmt.Errorf("%w: %s: planning panicked: %v", ErrInvalidRequest, req.Kind, r)
		}
	}()
	return kind.Plan(ctx, req)
}

// logPanic logs a recovered panic with its stack.
func (e *Engine) logPanic(stage string, r any, attrs ...any) {
	e.log.Error("recovered from a panic", append([]any{"stage", stage, "panic", fmt.Sprint(r), "stack", string(debug.Stack())}, attrs...)...)
}

// enqueueLocked puts a planned job into its batch collector, or straight
// into the synthesis queue when it is not batched.
func (e *Engine) enqueueLocked(j *job) {
	// A higher-priority arrival flushes lower-priority partial batches, so
	// they don't keep waiting while it runs.
	for k, c := range e.collectors {
		if k.prio < j.prio {
			e.flushLocked(k, c)
		}
	}
	maxBatch := e.maxBatch(j)
	if maxBatch <= 1 {
		e.admitLocked([]*job{j})
		return
	}
	key := collectorKey{j.circuit, j.prio}
	c := e.collectors[key]
	if c == nil {
		c = &collector{}
		e.collectors[key] = c
	}
	c.jobs = append(c.jobs, j)
	switch {
	case len(c.jobs) >= maxBatch || e.cfg.MaxBatchWait <= 0:
		e.flushLocked(key, c)
	case len(c.jobs) == 1:
		c.timer = time.AfterFunc(e.cfg.MaxBatchWait, func() {
			e.mu.Lock()
			if e.collectors[key] == c {
				e.flushLocked(key, c)
			}
			e.mu.Unlock()
		})
	}
}

// maxBatch is the batch size for j's circuit: the configured size, but no
// more partitions per item than fit in the budget beside the parameters.
// Jobs above NORMAL priority are never held back to wait for company.
func (e *Engine) maxBatch(j *job) int {
	if !j.kind.Batchable() || e.cfg.MaxBatchSize <= 1 || j.prio > PriorityNormal {
		return 1
	}
	shape, err := e.params.Shape(j.circuit)
	if err != nil || shape.WorkingSet() == 0 {
		return 1
	}
	fit := (e.budget.Total() - shape.ParamsBytes()) / shape.WorkingSet()
	return int(max(1, min(int64(e.cfg.MaxBatchSize), fit)))
}

func (e *Engine) flushLocked(k collectorKey, c *collector) {
	if c.timer != nil {
		c.timer.Stop()
	}
	delete(e.collectors, k)
	var live []*job
	for _, j := range c.jobs {
		if j.state == StateQueued {
			live = append(live, j)
		}
	}
	if len(live) > 0 {
		e.admitLocked(live)
	}
}

// admitLocked turns jobs into a batch and its items into synthesis work.
func (e *Engine) admitLocked(jobs []*job) {
	e.seq++
	b := &batch{seq: e.seq, prio: jobs[0].prio, circuit: jobs[0].circuit}
	n := 0
	for _, j := range jobs {
		j.batch = b
		n = max(n, len(j.plan.Partitions))
	}
	if e.obs != nil {
		e.obs.BatchFormed(b.circuit, len(jobs))
	}
	if len(jobs) > 1 {
		ids := make([]string, len(jobs))
		for i, j := range jobs {
			ids[i] = j.id
		}
		e.log.Info("batch formed", "batch", b.seq, "circuit", b.circuit, "jobs", ids)
	}
	for i := range n {
		ctx, cancel := context.WithCancel(e.baseCtx)
		it := &item{batch: b, index: i, ctx: ctx, cancel: cancel}
		for _, j := range jobs {
			if i < len(j.plan.Partitions) {
				it.parts = append(it.parts, &itemPart{job: j, index: i, circuit: j.plan.Partitions[i].Circuit})
				j.items = append(j.items, it)
			}
		}
		it.live = len(it.parts)
		e.synthQ = append(e.synthQ, it)
	}
	e.wakeSynthLocked()
}

func (e *Engine) wakeSynthLocked() {
	close(e.synthWake)
	e.synthWake = make(chan struct{})
}

func (e *Engine) wakeProverLocked() {
	close(e.proveWake)
	e.proveWake = make(chan struct{})
}

// Await waits until the job is final, timeout passes (0: no limit; the
// result then has StateTimeout and the job keeps running) or ctx ends. A
// job still being planned is waited for too; if its planning fails, Await
// reports ErrJobNotFound with the reason.
func (e *Engine) Await(ctx context.Context, id string, timeout time.Duration) (Result, error) {
	e.mu.Lock()
	j, ok := e.jobs[id]
	if !ok {
		e.mu.Unlock()
		return Result{}, fmt.Errorf("%w: %q", ErrJobNotFound, id)
	}
	if j.state.Final() {
		r := j.result
		e.mu.Unlock()
		return r, nil
	}
	j.holders++
	e.mu.Unlock()
	defer e.unhold(j, false)

	var tc <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-j.planned:
	case <-tc:
		return Result{JobID: id, State: StateTimeout}, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	if err := j.planErr; err != nil {
		// Not %w: the caller asked about a job, and the reason it never
		// existed (a context error, say) is not the caller's own error.
		return Result{}, fmt.Errorf("%w: %q was not accepted: %v", ErrJobNotFound, id, err)
	}
	select {
	case <-j.done:
		e.mu.Lock()
		defer e.mu.Unlock()
		return j.result, nil
	case <-tc:
		return Result{JobID: id, State: StateTimeout}, nil
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

// Cancel cancels a planning, queued or running job. wasRunning says it had
// left the queue. A job still planning ends CANCELLED when its planning
// returns. A final job is left as it is. An unknown id is ErrJobNotFound.
func (e *Engine) Cancel(id string) (wasRunning bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	j, ok := e.jobs[id]
	if !ok {
		return false, fmt.Errorf("%w: %q", ErrJobNotFound, id)
	}
	switch {
	case j.state.Final():
		return false, nil
	case j.state == StatePlanning:
		j.cancelRequested = true
		j.planCancel()
		return false, nil
	}
	wasRunning = j.state == StateRunning
	e.endLocked(j, StateCancelled, nil, nil)
	return wasRunning, nil
}

// endLocked makes j final: it drops j's remaining partitions from every
// queue and stage (memory of queued work is released now, of running work
// when its stage returns), records the result and wakes the waiters.
func (e *Engine) endLocked(j *job, st State, cause error, proof []byte) {
	if j.state.Final() {
		return
	}
	for _, it := range j.items {
		p := it.partOf(j)
		if p == nil || p.dropped || it.where == itemDone {
			continue
		}
		e.dropPartLocked(it, p)
	}
	for i := range j.parts {
		if j.parts[i].state != partDone {
			j.parts[i].state = partDropped
		}
	}
	j.finished = time.Now()
	j.timings.Total = j.finished.Sub(j.submitted)
	if j.started.IsZero() {
		j.timings.QueueWait = j.timings.Total
	}
	prev := j.state
	j.state = st
	j.result = Result{JobID: j.id, State: st, Err: cause}
	if j.batch != nil {
		j.result.Batch = j.batch.seq
	}
	if st == StateCompleted {
		j.result.Timings = j.timings
		j.result.Proof = proof
	}
	j.plan = nil
	j.items = nil
	close(j.done)
	e.retained = append(e.retained, j)

	kc := e.counts.byKind[j.kind]
	if kc == nil {
		kc = &kindCounts{}
		e.counts.byKind[j.kind] = kc
	}
	attrs := []any{"job", j.id, "kind", j.kind.String(), "circuit", j.circuit, "was", prev.String(),
		"total", j.timings.Total.Round(time.Millisecond)}
	switch st {
	case StateCompleted:
		e.counts.Completed++
		kc.completed++
		e.log.Info("job completed", append(attrs, "queue_wait", j.timings.QueueWait.Round(time.Millisecond),
			"srs_load", j.timings.SRSLoad.Round(time.Millisecond), "synthesis", j.timings.Synthesis.Round(time.Millisecond),
			"prove", j.timings.Prove.Round(time.Millisecond))...)
	case StateFailed:
		e.counts.Failed++
		kc.failed++
		e.log.Warn("job failed", append(attrs, "err", cause)...)
	case StateCancelled:
		e.counts.Cancelled++
		kc.cancelled++
		e.log.Info("job cancelled", attrs...)
	}
	e.recordEndLocked(j)
	if e.obs != nil {
		e.obs.JobFinished(JobReport{ID: j.id, Kind: j.kind, CircuitID: j.circuit, State: st, Partitions: len(j.parts), Timings: j.timings})
	}
	e.pruneLocked(time.Now())
	e.signalIdleLocked()
}

// signalIdleLocked wakes Shutdown when no job is planning, queued or
// running any more. Every path that ends a job calls it: endLocked and
// dropPlanningLocked.
func (e *Engine) signalIdleLocked() {
	if e.liveJobsLocked() == 0 {
		close(e.idle)
		e.idle = make(chan struct{})
	}
}

// dropPartLocked removes one job's part from an item wherever the item is.
func (e *Engine) dropPartLocked(it *item, p *itemPart) {
	p.dropped = true
	p.circuit = nil
	it.live--
	switch it.where {
	case inSynthQueue:
		if it.live == 0 {
			e.synthQ = slices.DeleteFunc(e.synthQ, func(x *item) bool { return x == it })
			it.cancel()
			it.where = itemDone
		}
	case inReadyQueue:
		e.releasePartLocked(it, p)
		if it.live == 0 {
			e.readyQ = slices.DeleteFunc(e.readyQ, func(x *item) bool { return x == it })
			e.credits--
			e.retireLocked(it)
			e.wakeSynthLocked()
		}
	default:
		// In a stage: its worker sees the drop when the stage returns.
		if it.live == 0 {
			it.cancel()
		}
	}
}

// releasePartLocked gives back the memory a part holds.
func (e *Engine) releasePartLocked(it *item, p *itemPart) {
	if p.held > 0 {
		it.lease.Mem.Release(p.held)
		p.held = 0
	}
	p.pa = nil
}

// retireLocked ends an item that holds a lease: remaining memory goes back
// and the parameters are unpinned.
func (e *Engine) retireLocked(it *item) {
	it.where = itemDone
	it.cancel()
	if it.lease != nil {
		for _, p := range it.parts {
			p.held = 0
			p.pa = nil
		}
		it.lease.Mem.Close()
		it.lease.Release()
	}
	e.inFlight--
}

// liveJobsLocked counts the jobs that are not final (planning included).
func (e *Engine) liveJobsLocked() int {
	n := 0
	for _, j := range e.jobs {
		if !j.state.Final() {
			n++
		}
	}
	return n
}

// forgetLocked drops a final job's retained result.
func (e *Engine) forgetLocked(j *job) {
	if e.jobs[j.id] == j {
		delete(e.jobs, j.id)
	}
	e.retained = slices.DeleteFunc(e.retained, func(x *job) bool { return x == j })
}

// pruneLocked drops retained results past their TTL or beyond the count.
func (e *Engine) pruneLocked(now time.Time) {
	drop := 0
	for drop < len(e.retained) {
		j := e.retained[drop]
		if len(e.retained)-drop <= e.cfg.CompletedMax && now.Sub(j.finished) < e.cfg.CompletedTTL {
			break
		}
		if e.jobs[j.id] == j {
			delete(e.jobs, j.id)
		}
		drop++
	}
	if drop > 0 {
		e.retained = slices.Delete(e.retained, 0, drop)
	}
}

// janitor drops expired results even when no job finishes.
func (e *Engine) janitor() {
	defer e.workers.Done()
	period := min(max(e.cfg.CompletedTTL/4, time.Second), time.Minute)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-e.baseCtx.Done():
			return
		case now := <-t.C:
			e.mu.Lock()
			e.pruneLocked(now)
			e.mu.Unlock()
		}
	}
}

// Shutdown stops accepting jobs, stops the plans in progress (their
// submissions fail with ErrShuttingDown), flushes partial batches and lets
// the jobs already queued finish until ctx ends; jobs still unfinished then
// fail with ErrShuttingDown. It returns when the workers have stopped, or
// with ctx's error if a worker is still inside a stage that cannot be
// interrupted (synthesis of one partition).
func (e *Engine) Shutdown(ctx context.Context) error {
	e.mu.Lock()
	if !e.closing {
		e.closing = true
		e.log.Info("engine shutting down", "in_flight_jobs", e.liveJobsLocked())
		for k, c := range e.collectors {
			e.flushLocked(k, c)
		}
		for _, j := range e.jobs {
			if j.state == StatePlanning {
				j.planCancel()
			}
		}
	}
	for e.liveJobsLocked() > 0 {
		idle := e.idle
		e.mu.Unlock()
		select {
		case <-idle:
			e.mu.Lock()
			continue
		case <-ctx.Done():
			e.mu.Lock()
		}
		break
	}
	aborted := 0
	for _, j := range e.jobs {
		if !j.state.Final() && j.state != StatePlanning {
			e.endLocked(j, StateFailed, fmt.Errorf("%w: job aborted before it finished", ErrShuttingDown), nil)
			aborted++
		}
	}
	e.mu.Unlock()
	if aborted > 0 {
		e.log.Warn("shutdown deadline reached; aborted unfinished jobs", "jobs", aborted)
	}
	e.stopWork()
	done := make(chan struct{})
	go func() { e.workers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("engine: workers still busy at the shutdown deadline: %w", ctx.Err())
	}
}

// newJobID returns a random UUID (version 4), as the Rust server does for
// requests without an id.
func newJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// finishing is an item whose Start is done, on its way to Finish.
type finishing struct {
	it      *item
	pend    prover.Pending
	parts   []*itemPart
	started time.Time
	start   time.Duration
}
