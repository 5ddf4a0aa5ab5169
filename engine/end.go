package engine

// The end of work: a job becomes final (endLocked), its parts leave
// whatever stage they are in, items retire and return their memory, old
// results are pruned, and Shutdown drains or aborts what is left.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

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
	if j.orphanTimer != nil {
		// Nobody waits: the result is kept for the grace, for the caller
		// that is expected back.
		j.orphanTimer.Stop()
		j.orphanTimer = nil
		j.wasOrphaned = true
	}
	close(j.done)
	ttl := e.cfg.CompletedTTL
	if j.wasOrphaned {
		ttl = max(ttl, e.cfg.OrphanGrace)
	}
	j.keepUntil = j.finished.Add(ttl)
	j.held = retainedSize(j)
	e.retained = append(e.retained, j)
	e.retainedBytes += j.held

	kc := e.counts.byKind[j.kind.Name]
	if kc == nil {
		kc = &kindCounts{}
		e.counts.byKind[j.kind.Name] = kc
	}
	attrs := []any{"job", j.id, "kind", j.kind.Name, "circuit", j.circuit, "was", prev.String(),
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
	// The partition proofs are in the result's bytes now; the decoded
	// points (384 bytes each) need not be retained with it.
	j.parts = nil
	e.pruneLocked(time.Now())
	e.signalIdleLocked()
}

// retainedJobOverhead is what a retained job holds besides its id, proof
// and error text: the job struct, its channels, its map entry and slice
// slot (about 780 bytes on 64-bit; TestRetainedSizeCoversTheJob).
const retainedJobOverhead = 1 << 10

// retainedSize is the memory a final job's retained result holds.
func retainedSize(j *job) int64 {
	n := retainedJobOverhead + len(j.id) + len(j.circuit) + len(j.result.Proof)
	if j.result.Err != nil {
		n += len(j.result.Err.Error())
	}
	return int64(n)
}

// signalIdleLocked wakes Shutdown when no job is planning, queued or
// running any more. Every path that ends a job calls it: endLocked and
// dropPlanningLocked.
func (e *Engine) signalIdleLocked() {
	if e.liveJobsLocked() == 0 {
		close(e.idle)
		e.idle = make(chan struct{})
		select {
		case e.wentIdle <- struct{}{}:
		default:
		}
	}
}

// dropPartLocked removes one job's part from an item wherever the item is.
func (e *Engine) dropPartLocked(it *item, p *itemPart) {
	p.dropped = true
	p.stop.Store(true)
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
			e.stage.leftBeforeProver()
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
		it.lease.ReleaseMemory(p.held)
		p.held = 0
	}
	p.pa = nil
}

// retireLocked ends an item that holds a lease: remaining memory goes back
// and the parameters are unpinned.
func (e *Engine) retireLocked(it *item) {
	it.where = itemDone
	it.cancel()
	if it.gated {
		it.gated = false
		e.gate.leave()
	}
	if it.lease != nil {
		for _, p := range it.parts {
			p.held = 0
			p.pa = nil
		}
		it.lease.Close()
	}
	e.stage.retire()
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
	n := len(e.retained)
	e.retained = slices.DeleteFunc(e.retained, func(x *job) bool { return x == j })
	if len(e.retained) < n {
		e.retainedBytes -= j.held
	}
}

// pruneLocked drops retained results that expired (keepUntil: the
// CompletedTTL, or the OrphanGrace for a result no caller has collected
// yet), then, while more than CompletedMax results or CompletedMaxBytes of
// them are kept, the oldest, those of orphaned jobs last: a caller is
// expected back for them, and redoing one costs a whole proof.
func (e *Engine) pruneLocked(now time.Time) {
	e.filterRetainedLocked(func(j *job) bool { return now.Before(j.keepUntil) })
	for _, orphans := range []bool{false, true} {
		excess := len(e.retained) - e.cfg.CompletedMax
		e.filterRetainedLocked(func(j *job) bool {
			if j.wasOrphaned != orphans || (excess <= 0 && e.retainedBytes <= e.cfg.CompletedMaxBytes) {
				return true
			}
			excess--
			return false
		})
	}
}

// filterRetainedLocked keeps the retained results keep accepts, in order,
// and forgets the others. keep may read e.retainedBytes, which falls as
// results are dropped.
func (e *Engine) filterRetainedLocked(keep func(*job) bool) {
	kept := e.retained[:0]
	for _, j := range e.retained {
		if keep(j) {
			kept = append(kept, j)
			continue
		}
		if e.jobs[j.id] == j {
			delete(e.jobs, j.id)
		}
		e.retainedBytes -= j.held
	}
	clear(e.retained[len(kept):])
	e.retained = kept
}

// Shutdown stops accepting jobs, stops the plans in progress (their
// submissions fail with ErrShuttingDown), flushes partial batches and lets
// the jobs already queued finish until ctx ends; jobs still unfinished then
// fail with ErrShuttingDown and, when ctx carries one (WithTimeoutCause),
// its cause, so that their callers learn why. It returns when the workers have stopped, or
// with ctx's error if a worker is still inside a stage that cannot be
// interrupted (a device call, or a Plan that ignores its context).
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
	why := fmt.Errorf("%w: job aborted at the shutdown deadline", ErrShuttingDown)
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.DeadlineExceeded) && !errors.Is(c, context.Canceled) {
		// The caller said why it stops (the daemon: the signal and its
		// --shutdown-timeout); the client sees it in the answer.
		why = fmt.Errorf("%w: job aborted at the shutdown deadline (%v)", ErrShuttingDown, c)
	}
	for _, j := range e.jobs {
		if !j.state.Final() && j.state != StatePlanning {
			e.endLocked(j, StateFailed, why, nil)
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
