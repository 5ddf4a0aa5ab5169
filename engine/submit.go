package engine

// Submission: a request is planned (Kind.Plan, parameter and budget
// checks) or attached to the job with its request id; callers wait with
// Prove or Await and cancel with Cancel.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/internal/bytesize"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// errPlanAbandoned ends a plan nobody waited for any more. A caller that
// attached to the job meanwhile submits again instead of failing.
var errPlanAbandoned = fmt.Errorf("planning stopped because no caller waits for the job: %w", context.Canceled)

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

// Prove submits a request and waits for its result. If ctx ends first
// and no other Prove or Await caller waits on the job and no Submit caller
// owns it, the job is orphaned: with a request id it keeps running for
// Config.OrphanGrace, and a retry with the same request id attaches to it
// (or, once it ended, gets its retained result); without one, or with no
// grace, it is cancelled at once.
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

// wantedLocked says whether anyone still wants j: a caller waits on it, a
// SubmitProof caller owns it and could still learn its id, or it waits out
// its orphan grace for a caller to come back.
func (e *Engine) wantedLocked(j *job) bool {
	return j.holders > 0 || (j.keep && !j.lost) || j.orphanTimer != nil
}

// releaseHolderLocked drops one holder. A job nobody wants any more is
// orphaned when a caller could come back for it (orphanLocked), else
// cancelled: a queued or running one at once (when a Prove caller gave up
// on it), a planning one by ending its plan's context (its submitter then
// decides).
func (e *Engine) releaseHolderLocked(j *job) {
	j.holders--
	if j.state.Final() || e.wantedLocked(j) {
		return
	}
	if (j.state == StatePlanning || j.abandoned) && e.orphanLocked(j) {
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

// errOrphanExpired is the cause recorded for a job cancelled because no
// caller came back within its orphan grace.
var errOrphanExpired = errors.New("every caller left and none came back within orphan_grace")

// orphanLocked starts the orphan grace of j, whose callers have all left,
// and says whether it did: only a job with a request id can be attached to
// again, and only when Config.OrphanGrace is set.
func (e *Engine) orphanLocked(j *job) bool {
	grace := e.cfg.OrphanGrace
	if grace <= 0 || j.anonymous || e.closing {
		return false
	}
	j.orphanedAt = time.Now()
	var t *time.Timer
	t = time.AfterFunc(grace, func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.orphanExpiredLocked(j, t)
	})
	j.orphanTimer = t
	e.counts.Orphaned++
	e.log.Info("job orphaned: every caller left; it keeps running until one comes back with its request id",
		"job", j.id, "state", j.state.String(), "orphan_grace", grace)
	return true
}

// orphanExpiredLocked ends the grace of j that timer t measured: unless a
// caller came back (or it ended) meanwhile, it is cancelled, or its plan
// stopped. A timer that fired while a caller came back (its Stop too late)
// is no longer j's and does nothing, even if j was orphaned again since.
func (e *Engine) orphanExpiredLocked(j *job, t *time.Timer) {
	if j.orphanTimer != t || j.state.Final() {
		return
	}
	j.orphanTimer = nil
	if e.wantedLocked(j) {
		return
	}
	e.log.Info("orphan grace over; cancelling the job", "job", j.id, "state", j.state.String(),
		"orphaned_for", time.Since(j.orphanedAt).Round(time.Millisecond))
	if j.state == StatePlanning {
		j.planCancel()
		return
	}
	e.endLocked(j, StateCancelled, errOrphanExpired, nil)
}

// claimLocked ends j's orphan grace because a caller came back for it.
func (e *Engine) claimLocked(j *job) {
	if j.orphanTimer == nil {
		return
	}
	j.orphanTimer.Stop()
	j.orphanTimer = nil
	e.counts.Reclaimed++
	e.log.Info("caller came back for an orphaned job", "job", j.id, "state", j.state.String(),
		"orphaned_for", time.Since(j.orphanedAt).Round(time.Millisecond))
	j.orphanedAt = time.Time{}
}

// submit queues req or attaches to the job with its request id. detached
// marks a SubmitProof caller (the job is kept even with no waiter);
// otherwise the caller becomes a holder and must decrement holders.
func (e *Engine) submit(ctx context.Context, req *Request, detached bool) (*job, SubmitResult, error) {
	kind, ok := e.kinds[req.Kind]
	if !ok {
		return nil, SubmitResult{}, e.unservedKind(req.Kind)
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

func (e *Engine) submitOnce(ctx context.Context, kind servedKind, req *Request, digest [32]byte, detached bool) (*job, SubmitResult, error) {
	id := req.RequestID
	if id == "" {
		id = newJobID()
	}
	id = req.IDPrefix + id
	e.mu.Lock()
	if e.closing {
		e.mu.Unlock()
		return nil, SubmitResult{}, ErrDraining
	}
	if old, ok := e.jobs[id]; ok {
		reuse := old.digest == digest && old.state != StateFailed && old.state != StateCancelled
		if !reuse && !old.state.Final() {
			st := old.state
			e.mu.Unlock()
			return nil, SubmitResult{}, fmt.Errorf("%w: %q (job %s)", ErrRequestIDConflict, id, st)
		}
		if reuse {
			e.attachLocked(old, detached)
			e.mu.Unlock()
			return e.awaitPlanned(ctx, old, detached)
		}
		// A retained failure, cancellation or a different request under
		// the same id: the new submission replaces it.
		e.forgetLocked(old)
	}
	if n := e.liveJobsLocked(); n >= e.cfg.MaxPending {
		e.mu.Unlock()
		return nil, SubmitResult{}, fmt.Errorf("%w: %d jobs are planning, queued or running (max_pending %d)", ErrTooManyJobs, n, e.cfg.MaxPending)
	}
	size := req.size()
	if e.intake > 0 && e.intake+size > e.cfg.MaxIntakeBytes {
		in := e.intake
		e.mu.Unlock()
		return nil, SubmitResult{}, fmt.Errorf("%w: this request is %s, %s of requests are waiting to be planned or being planned (max_intake_bytes %s)",
			ErrIntakeFull, bytesize.Format(size), bytesize.Format(in), bytesize.Format(e.cfg.MaxIntakeBytes))
	}
	e.intake += size
	prio := kind.desc.EffectivePriority(req.Priority)
	// Plan under a context of our own: the caller's values, but ended only
	// when nobody wants the job any more, so a retry that attached to it
	// does not inherit the first caller's cancellation.
	planCtx, planCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer planCancel()
	j := &job{
		id:         id,
		kind:       kind.desc,
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
	plan, err := e.plan(planCtx, kind, req, prio)
	stop()
	stopped := planCtx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))

	e.mu.Lock()
	defer e.mu.Unlock()
	// The request's bytes leave the intake: what the job keeps is its plan.
	e.intake -= size
	if ctx.Err() != nil {
		e.submitterLeftLocked(j, detached)
	}
	// What the submitter hears when it has left: its own context's error.
	left := func(err error) (*job, SubmitResult, error) {
		if j.submitterLeft && (!detached || j.lost) {
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
		e.dropPlanningLocked(j, ErrDraining)
		return left(ErrDraining)
	case !e.wantedLocked(j):
		// Every caller left and none can come back for it.
		e.dropPlanningLocked(j, errPlanAbandoned)
		e.log.Info("job dropped: its caller left while it was planned", "job", id, "kind", e.descs.Name(req.Kind))
		return left(errPlanAbandoned)
	case err != nil && !stopped && errors.Is(err, ErrParamsUnusable):
		// The request is fine; the daemon's parameter file is not. Every
		// such problem, whether found here (missing, unreadable, bad
		// header) or while loading (bad point), ends a job FAILED with
		// the file named, so a client sees one answer per cause.
		if plan != nil {
			j.circuit = plan.CircuitID
		}
		close(j.planned)
		e.endLocked(j, StateFailed, err, nil)
		if j.submitterLeft && !detached {
			return left(nil)
		}
		return j, SubmitResult{JobID: id}, nil
	case err != nil:
		if stopped {
			err = errPlanAbandoned
		}
		e.dropPlanningLocked(j, err)
		e.log.Info("job rejected", "job", id, "kind", e.descs.Name(req.Kind), "err", err)
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
	e.log.Info("job queued", "job", id, "kind", j.kind.Name, "circuit", j.circuit, "priority", j.prio.String(),
		"partitions", len(plan.Partitions), "queue_position", pos)
	e.enqueueLocked(j)
	if j.submitterLeft && !detached {
		return left(nil)
	}
	return j, SubmitResult{JobID: id, QueuePosition: pos}, nil
}

// attachLocked makes the caller share old; the caller then waits for
// old's planning with awaitPlanned, outside the lock.
func (e *Engine) attachLocked(old *job, detached bool) {
	e.hold(old, detached)
	e.counts.Attached++
	e.log.Debug("request attached to existing job", "job", old.id, "state", old.state.String())
}

// awaitPlanned waits until the planning of a job the caller attached to
// ends, and returns the job if it was queued.
func (e *Engine) awaitPlanned(ctx context.Context, old *job, detached bool) (*job, SubmitResult, error) {
	select {
	case <-old.planned:
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
		j.lost = j.anonymous
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
	if j.orphanTimer != nil {
		j.orphanTimer.Stop()
		j.orphanTimer = nil
	}
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
		j.lost = false
	} else {
		j.holders++
	}
	e.claimLocked(j)
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
func (e *Engine) plan(ctx context.Context, kind servedKind, req *Request, prio proofkind.Priority) (*Plan, error) {
	select {
	case e.planSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.planSem }()
	plan, err := e.runPlanner(ctx, kind, req)
	if err != nil {
		return nil, err
	}
	if err := plan.validate(); err != nil {
		return nil, fmt.Errorf("engine: %s: %w", req.Kind, err)
	}
	sizes, err := e.params.Sizes(plan.CircuitID)
	if err != nil {
		// The plan comes back with a parameter-file error: the job
		// is created, and fails, under its circuit.
		return plan, err
	}
	need := sizes.ParamsBytes() + sizes.WorkingSet()
	bprio := int(prio)
	if e.urgent(prio, sizes.Domain) {
		bprio = urgentBudgetPrio
	}
	if c := e.budget.Capacity(bprio); need > c {
		reserved := ""
		if c < e.budget.Total() {
			reserved = fmt.Sprintf(" of which %s are reserved for urgent work", bytesize.Format(e.budget.Total()-c))
		}
		return nil, fmt.Errorf("%w: circuit %s needs %s (parameters %s + one partition's working set %s), the budget is %s%s",
			ErrExceedsBudget, plan.CircuitID, bytesize.Format(need), bytesize.Format(sizes.ParamsBytes()),
			bytesize.Format(sizes.WorkingSet()), bytesize.Format(e.budget.Total()), reserved)
	}
	if lim := e.deviceLimit(); lim > 0 && sizes.DeviceBytes() > lim {
		return nil, fmt.Errorf("%w: circuit %s needs at least %s of device memory per partition, the largest device has %s",
			ErrExceedsBudget, plan.CircuitID, bytesize.Format(sizes.DeviceBytes()), bytesize.Format(lim))
	}
	return plan, nil
}

// runPlanner calls the planner and turns a panic (a malformed request that a
// planner failed to reject) into an invalid-request error.
func (e *Engine) runPlanner(ctx context.Context, kind servedKind, req *Request) (plan *Plan, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.logPanic("plan", r, "kind", e.descs.Name(req.Kind), "request_id", req.RequestID)
			plan, err = nil, fmt.Errorf("%w: %s: planning panicked: %v", ErrInvalidRequest, req.Kind, r)
		}
	}()
	return kind.planner.Plan(ctx, req)
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
	e.hold(j, false)
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

// unservedKind refuses a kind the engine has no planner for, naming the
// kinds it does serve: a test request sent to a daemon without test
// circuits, or a number no kind has, then reads as what it is.
func (e *Engine) unservedKind(k proofkind.Kind) error {
	what := "no such kind"
	if d, ok := proofkind.Lookup(k); ok {
		what = d.Name + ", not served here"
	}
	served := make([]string, 0, len(e.kinds))
	for _, s := range e.Kinds() {
		served = append(served, s.String())
	}
	return fmt.Errorf("%w: %d (%s; this daemon serves %s)", ErrUnknownKind, int32(k), what, strings.Join(served, ", "))
}
