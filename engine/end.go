package engine

// The end of work: a job becomes final (endLocked), its parts leave
// whatever stage they are in, items retire and return their memory, old
// results are pruned, and Shutdown drains or aborts what is left.

import (
	"context"
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
	close(j.done)
	e.retained = append(e.retained, j)

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
		select {
		case e.wentIdle <- struct{}{}:
		default:
		}
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
	if it.gated {
		it.gated = false
		e.gate.leave()
	}
	if it.lease != nil {
		for _, p := range it.parts {
			p.held = 0
			p.pa = nil
		}
		it.lease.Mem.Close()
		it.lease.Release()
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
