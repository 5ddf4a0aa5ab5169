package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// Pipeline
//
//	synthQ ──(synthesis workers: memory, params, synthesis)──▶ readyQ
//	readyQ ──(each lane: backend Start)──▶ lane.finCh ──(lane's finisher: Finish)──▶ job
//
// Both queues are ordered by priority, then batch arrival, then partition,
// and each stage picks the best item only when it is free, so a
// high-priority job overtakes everything that has not started. Urgent
// items have a synthesis worker and a lane of their own (lanes.go). Credits
// bound the items between synthesis start and the prover's pick to
// Lookahead plus one per synthesis worker (backpressure); memory is
// reserved before synthesis and released in two steps, a/b/c after Start,
// the rest after Finish.

// pickSynthLocked removes the best item synthesis may start now, or nil.
// Neither limit holds back a priority above the work it protects, so a
// higher-priority job never waits behind lower work that has not reached
// the prover:
//   - When the credits are used up, an item may still start if its
//     priority is above everything already synthesised or in synthesis.
//   - SynthesisConcurrency bounds the batches in synthesis only for items
//     whose priority is at or below the highest one in synthesis; a
//     strictly higher one starts on the next free worker.
//
// The reserved lane's worker (reserved) takes only urgent items, at once;
// the others leave urgent items to it while it is free.
func (e *Engine) pickSynthLocked(reserved bool) *item {
	if reserved {
		return e.pickUrgentSynthLocked()
	}
	full := false
	if e.cfg.NoPipeline {
		if e.stage.inFlight > 0 {
			return nil
		}
	} else if e.stage.credits >= e.cfg.Lookahead+e.cfg.SynthesisWorkers {
		full = true
	}
	inSynth := e.stage.highestInSynthesis()
	ahead := proofkind.PriorityUnspecified
	if full {
		ahead = inSynth
		for _, it := range e.readyQ {
			ahead = max(ahead, it.batch.prio)
		}
	}
	best := -1
	for i, it := range e.synthQ {
		if it.batch.urgent && !e.reservedSynth && e.cfg.ReservedLane {
			continue
		}
		if full && it.batch.prio <= ahead {
			continue
		}
		if it.batch.active == 0 && e.stage.activeBatches >= e.cfg.SynthesisConcurrency && it.batch.prio <= inSynth {
			continue
		}
		if best < 0 || it.less(e.synthQ[best]) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	return e.takeSynthLocked(best)
}

// pickUrgentSynthLocked removes the best urgent item for the reserved
// lane's synthesis worker; no limit holds it back.
func (e *Engine) pickUrgentSynthLocked() *item {
	best := -1
	for i, it := range e.synthQ {
		if it.batch.urgent && (best < 0 || it.less(e.synthQ[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	e.reservedSynth = true
	return e.takeSynthLocked(best)
}

// takeSynthLocked removes synthQ[i] for synthesis and marks its jobs
// running.
func (e *Engine) takeSynthLocked(i int) *item {
	it := e.synthQ[i]
	e.synthQ = slices.Delete(e.synthQ, i, i+1)
	e.stage.startSynthesis(it.batch)
	it.where = inSynthesis
	now := time.Now()
	for _, p := range it.parts {
		if p.dropped {
			continue
		}
		j := p.job
		if j.state == StateQueued {
			j.state = StateRunning
			j.started = now
			e.log.Info("job running", "job", j.id, "batch", it.batch.seq, "queue_wait", now.Sub(j.submitted).Round(time.Millisecond))
		}
	}
	return it
}

// nextLocked waits until pick returns an item, and returns it with e.mu
// held, or nil (unlocked) once the engine stops. wake is the stage's
// wake-up channel, replaced on every wake-up, so it is read under the lock.
func (e *Engine) nextLocked(pick func() *item, wake func() chan struct{}) *item {
	for {
		e.mu.Lock()
		if it := pick(); it != nil {
			return it
		}
		w := wake()
		e.mu.Unlock()
		select {
		case <-w:
		case <-e.baseCtx.Done():
			return nil
		}
	}
}

// synthesisWorker synthesises items; the reserved lane's worker only
// urgent ones.
func (e *Engine) synthesisWorker(name string, reserved bool) {
	defer e.workers.Done()
	pick := func() *item { return e.pickSynthLocked(reserved) }
	for {
		it := e.nextLocked(pick, func() chan struct{} { return e.synthWake })
		if it == nil {
			return
		}
		e.mu.Unlock()
		e.synthesize(it, name)
		if reserved {
			e.mu.Lock()
			e.reservedSynth = false
			// Urgent items the other workers left to this one.
			e.wakeSynthLocked()
			e.mu.Unlock()
		}
	}
}

// synthesize reserves memory and parameters for it, synthesises its live
// parts one after another and hands it to the prover.
func (e *Engine) synthesize(it *item, worker string) {
	b := it.batch
	e.mu.Lock()
	var reserved []*itemPart // the parts the reservation covers
	for _, p := range it.parts {
		if !p.dropped {
			reserved = append(reserved, p)
		}
	}
	e.mu.Unlock()

	sizes, err := e.params.Sizes(b.circuit)
	if err == nil {
		t := time.Now()
		var lease *srs.Lease
		lease, err = e.params.Acquire(it.ctx, b.circuit, b.budgetPrio(), int64(len(reserved))*sizes.WorkingSet())
		if err == nil {
			if lease.Loaded > 0 {
				for _, p := range reserved {
					e.timing(p.job.id, p.index, "srs_load", t, lease.Loaded, b, worker, nil)
				}
			}
			e.mu.Lock()
			it.lease, it.sizes = lease, lease.Sizes
			if b.urgent {
				// Ordinary work pauses from now until this item retires.
				e.gate.enter()
				it.gated = true
			}
			for _, p := range reserved {
				p.held = sizes.WorkingSet()
				if p.dropped {
					// Dropped while we waited: its share goes back now.
					e.releasePartLocked(it, p)
				} else {
					// Partitions load concurrently (one loads, the others
					// wait for it): the job waited for the longest.
					p.job.timings.SRSLoad = max(p.job.timings.SRSLoad, lease.Loaded)
				}
			}
			e.mu.Unlock()
		}
	}
	if err != nil {
		e.mu.Lock()
		e.endSynthesisLocked(it)
		if it.live > 0 && it.ctx.Err() == nil {
			for _, p := range it.parts {
				if !p.dropped {
					e.endLocked(p.job, StateFailed, fmt.Errorf("partition %d: %w", p.index, err), nil)
				}
			}
		}
		e.stage.leftBeforeProver()
		e.retireLocked(it)
		e.wakeSynthLocked()
		e.mu.Unlock()
		return
	}

	for _, p := range it.parts {
		e.mu.Lock()
		if p.dropped {
			// Dropped before its turn: its working set goes back now, not
			// when the item's other parts are proved.
			e.releasePartLocked(it, p)
			e.mu.Unlock()
			continue
		}
		c := p.circuit
		p.job.parts[p.index].enter(partSynthesizing, time.Now())
		e.mu.Unlock()

		// The first synthesis of a circuit is exact and yields its density
		// bitmaps; later ones reuse them and evaluate rows as they are
		// built, about twice as fast (r1cs.NewTemplatedAssignment).
		e.mu.Lock()
		tmpl := e.densities[b.circuit]
		e.mu.Unlock()
		e.step(p.job.id, p.index, "synthesis")
		t := time.Now()
		pa, serr := e.synthesizePart(c, it.sizes, tmpl, p, e.synthYield(it, p))
		d := time.Since(t)
		e.mu.Lock()
		switch {
		case serr == nil && tmpl == nil && e.densities[b.circuit] == nil:
			e.densities[b.circuit] = pa.Density
		case serr != nil && tmpl != nil && !p.stop.Load() && it.ctx.Err() == nil:
			// A failure, not a stop: the next job starts exact again.
			delete(e.densities, b.circuit)
		}
		e.mu.Unlock()
		e.timing(p.job.id, p.index, "synthesis", t, d, b, worker, nil)

		e.mu.Lock()
		p.circuit = nil
		if !p.dropped {
			jp := &p.job.parts[p.index]
			jp.synthesis = d
			p.job.timings.Synthesis += d
			if serr != nil {
				e.endLocked(p.job, StateFailed, fmt.Errorf("partition %d: synthesis: %w", p.index, shapeErr(it, serr)), nil)
			} else {
				jp.state = partSynthesized
				p.pa = pa
			}
		}
		if p.dropped {
			e.releasePartLocked(it, p)
		}
		e.mu.Unlock()
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	e.endSynthesisLocked(it)
	if it.live == 0 {
		e.stage.leftBeforeProver()
		e.retireLocked(it)
		e.wakeSynthLocked()
		return
	}
	it.where = inReadyQueue
	e.readyQ = append(e.readyQ, it)
	e.wakeProverLocked()
}

// synthesizePart synthesises one partition circuit into a fresh assignment
// (templated when tmpl is known) and checks it against the parameters'
// sizes. A panic in the circuit fails the partition, not the daemon.
func (e *Engine) synthesizePart(c r1cs.Circuit, sizes srs.Sizes, tmpl *r1cs.Densities, p *itemPart, yield func() error) (pa *r1cs.ProvingAssignment, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.logPanic("synthesis", r, "job", p.job.id, "partition", p.index)
			pa, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	pa = r1cs.NewAssignment(sizes.ProvingHint(), tmpl, sizes.AssignmentOptions())
	cs, err := r1cs.SynthesizeYielding(c, pa, yield)
	if err != nil {
		return pa, err
	}
	cs.AppendInputRows()
	if n := cs.NumConstraints(); n > sizes.Domain {
		return pa, fmt.Errorf("%w: %d rows do not fit the parameters' domain of %d", groth16.ErrShape, n, sizes.Domain)
	}
	return pa, pa.Check()
}

// shapeErr marks a circuit that does not fit its parameters (ErrShape)
// as a problem of the parameter file, which it names: the circuit is the
// Kind's, fixed by the registered proof, so a misfit means the file under
// its name holds another circuit's parameters.
func shapeErr(it *item, err error) error {
	if err == nil || !errors.Is(err, groth16.ErrShape) || it.lease == nil {
		return err
	}
	return fmt.Errorf("%w: %s: %w", srs.ErrParamsUnusable, it.lease.Files.Params, err)
}

func (e *Engine) endSynthesisLocked(it *item) {
	if e.stage.endSynthesis(it.batch) {
		// A batch slot opened: another batch may start.
		e.wakeSynthLocked()
	}
}

// startProof runs l's backend's Start on the item's parts and returns the
// handle for l's finisher, or nil when the item ended here.
func (e *Engine) startProof(l *lane, it *item, parts []*itemPart, pas []*r1cs.ProvingAssignment) *finishing {
	var err error
	var rnd []groth16.Randomness
	if len(parts) > 0 {
		rnd, err = e.rnd.Randomness(len(parts))
	}
	t := time.Now()
	var pend prover.Pending
	if err == nil && len(parts) > 0 {
		pend, err = e.backendStart(l, it, parts, pas, rnd)
	}
	d := time.Since(t)
	var steps [][]StepTime
	if err == nil && pend != nil {
		steps = proveSteps(pend.Times().Steps, len(parts), nil)
	}
	for k, p := range parts {
		e.timing(p.job.id, p.index, "prove", t, d, it.batch, l.worker("prover"), stepsAt(steps, k))
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	l.starting = nil
	if err == nil && it.live == 0 && len(parts) > 0 {
		// Every job of the item ended while the backend ran: a device
		// call cannot be interrupted, so it ran to its end, and its result
		// is dropped now; the memory it read goes back with the item.
		e.log.Debug("dropped the result of a Start whose jobs ended meanwhile", "batch", it.batch.seq, "partition", it.index,
			"lane", l.worker("prover"), "took", d.Round(time.Millisecond))
		parts = nil
	}
	if err != nil || len(parts) == 0 {
		e.stage.endStart(false)
		err = shapeErr(it, err)
		if err != nil && it.ctx.Err() == nil {
			for _, p := range parts {
				if !p.dropped {
					e.endLocked(p.job, StateFailed, fmt.Errorf("partition %d: prove: %w", p.index, err), nil)
				}
			}
		}
		e.retireLocked(it)
		e.wakeSynthLocked()
		return nil
	}
	// Start consumed a, b and c: their memory goes back now. The witness
	// stays reserved until Finish, which still reads it (also for parts
	// dropped meanwhile).
	abc := it.sizes.ABCBytes()
	for _, p := range parts {
		if p.held >= abc {
			it.lease.ReleaseMemory(abc)
			p.held -= abc
		}
		if !p.dropped {
			p.job.parts[p.index].enter(partFinishing, time.Now())
		}
	}
	it.where = inFinisher
	e.stage.endStart(true)
	l.finishing++
	return &finishing{it: it, pend: pend, parts: parts, started: t, start: d, steps: steps}
}

// backendStart runs l's backend's Start; a panic fails the item's parts.
func (e *Engine) backendStart(l *lane, it *item, parts []*itemPart, pas []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (pend prover.Pending, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.logPanic("prove", r, "batch", it.batch.seq, "partition", it.index)
			pend, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	ctx := it.ctx
	if e.onStep != nil {
		ctx = prover.WithStage(ctx, func(part int, stage string) {
			if part >= 0 && part < len(parts) {
				e.step(parts[part].job.id, parts[part].index, "prove "+stage)
			}
		})
	}
	return l.backend.Start(ctx, it.lease.Params, pas, rnd)
}

// step tells Options.Stages that a partition's step begins.
func (e *Engine) step(job string, partition int, stage string) {
	if e.onStep != nil {
		e.onStep(job, partition, stage)
	}
}

// backendFinish runs a pending proof's Finish; a panic fails the item's
// parts.
func (e *Engine) backendFinish(f *finishing) (proofs []groth16.Proof, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.logPanic("finish", r, "batch", f.it.batch.seq, "partition", f.it.index)
			proofs, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return f.pend.Finish(f.it.ctx)
}

func (e *Engine) finish(l *lane, f *finishing) {
	it := f.it
	t := time.Now()
	proofs, err := e.backendFinish(f)
	d := time.Since(t)
	var steps [][]StepTime
	if err == nil {
		steps = proveSteps(f.pend.Times().Steps, len(f.parts), f.steps)
	}
	for k, p := range f.parts {
		e.timing(p.job.id, p.index, "finish", t, d, it.batch, l.worker("finisher"), stepsAt(steps, k))
		e.step(p.job.id, p.index, "done")
	}
	if err == nil && len(proofs) != len(f.parts) {
		err = fmt.Errorf("backend returned %d proofs for %d circuits", len(proofs), len(f.parts))
	}

	var complete []*job
	e.mu.Lock()
	e.stage.endFinish()
	l.finishing--
	if err == nil {
		l.proved++
	}
	for i, p := range f.parts {
		if p.dropped {
			continue
		}
		j := p.job
		if err != nil {
			if it.ctx.Err() == nil {
				e.endLocked(j, StateFailed, fmt.Errorf("partition %d: prove: %w", p.index, err), nil)
			}
			continue
		}
		jp := &j.parts[p.index]
		jp.proof = proofs[i]
		jp.prove = f.start + d
		jp.state = partDone
		j.timings.Prove += f.start + d
		j.timings.ProveSteps = addSteps(j.timings.ProveSteps, stepsAt(f.steps, i), stepsAt(steps, i))
		if j.verifier == nil {
			j.verifier = it.lease.Verifier
		}
		j.remaining--
		if j.remaining == 0 {
			complete = append(complete, j)
		}
	}
	e.retireLocked(it)
	e.wakeSynthLocked()
	e.mu.Unlock()

	for _, j := range complete {
		go e.complete(j)
	}
}

// complete self-checks a job whose partitions are all proved and makes it
// final. It runs on its own goroutine: verification takes a few pairings
// per partition and must not hold up the pipeline or other jobs.
func (e *Engine) complete(j *job) {
	e.mu.Lock()
	if j.state.Final() {
		e.mu.Unlock()
		return
	}
	proofs := make([]groth16.Proof, len(j.parts))
	for i := range j.parts {
		proofs[i] = j.parts[i].proof
	}
	var inputs [][]fr.Element
	if !e.cfg.SkipSelfCheck {
		inputs = make([][]fr.Element, len(j.plan.Partitions))
		for i := range inputs {
			inputs[i] = j.plan.Partitions[i].PublicInputs
		}
	}
	pvk := j.verifier
	e.mu.Unlock()

	var err error
	if !e.cfg.SkipSelfCheck {
		t := time.Now()
		err = e.safeSelfCheck(j.id, pvk, proofs, inputs)
		e.timing(j.id, -1, "self_check", t, time.Since(t), nil, "", nil)
	}
	out := prover.Encode(proofs)

	e.mu.Lock()
	defer e.mu.Unlock()
	if j.state.Final() {
		return
	}
	if err != nil {
		// Should a density template ever be wrong, never reuse it.
		delete(e.densities, j.plan.CircuitID)
		e.endLocked(j, StateFailed, err, nil)
		return
	}
	if !j.started.IsZero() {
		// started is when the first partition left the queue, before any
		// parameter load.
		j.timings.QueueWait = j.started.Sub(j.submitted)
	}
	e.endLocked(j, StateCompleted, nil, out)
}

// safeSelfCheck is prover.Verify with a panic turned into a failure.
func (e *Engine) safeSelfCheck(jobID string, pvk *groth16.PreparedVerifyingKey, proofs []groth16.Proof, inputs [][]fr.Element) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.logPanic("self_check", r, "job", jobID)
			err = fmt.Errorf("%w: panic: %v", ErrSelfCheck, r)
		}
	}()
	return prover.Verify(pvk, proofs, inputs)
}

// timing records one stage of one partition (partition -1: the whole
// job) done by worker ("synthesis N"; "" names the stage's single worker),
// with the backend's steps inside it (prove and finish), for Status and
// the StageObserver, and logs it at DEBUG (INFO with Config.LogTiming) for
// people; the line is not an API (see doc.go).
func (e *Engine) timing(jobID string, partition int, stage string, start time.Time, d time.Duration, b *batch, worker string, steps []StepTime) {
	if worker == "" {
		worker = stageWorker(stage)
	}
	rec := StageRecord{Job: jobID, Partition: partition, Stage: stage, Start: start, Duration: d, Worker: worker, Steps: steps}
	if b != nil {
		rec.Batch, rec.Circuit = b.seq, b.circuit
	}
	e.stages.record(rec, e.cfg.MaxPending+MaxRecentJobs)
	if so, ok := e.obs.(StageObserver); ok {
		so.StageTimed(rec)
	}
	lvl := slog.LevelDebug
	if e.cfg.LogTiming {
		lvl = slog.LevelInfo
	}
	if !e.log.Enabled(context.Background(), lvl) {
		return
	}
	attrs := []slog.Attr{
		slog.String("job", jobID),
		slog.Int("partition", partition),
		slog.String("stage", stage),
		slog.String("worker", rec.Worker),
		slog.String("start", start.UTC().Format(time.RFC3339Nano)),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000),
	}
	if b != nil {
		attrs = append(attrs, slog.Uint64("batch", b.seq), slog.String("circuit", b.circuit))
	}
	if len(steps) > 0 {
		var sb strings.Builder
		for i, s := range steps {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%s %.3fms", s.Step, float64(s.Wall.Microseconds())/1000)
		}
		attrs = append(attrs, slog.String("steps", sb.String()))
	}
	e.log.LogAttrs(context.Background(), lvl, "timing", attrs...)
}

// finishing is an item whose Start is done, on its way to Finish.
type finishing struct {
	it      *item
	pend    prover.Pending
	parts   []*itemPart
	started time.Time
	start   time.Duration
	// steps are each part's steps in Start (the prove stage's), by the
	// part's index in parts.
	steps [][]StepTime
}
