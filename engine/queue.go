package engine

// Queueing and admission: a planned job waits in its batch collector
// until the batch is full, its wait is over or a higher priority arrives;
// admitLocked turns a batch into items for the synthesis queue.

import (
	"context"
	"time"

	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
)

type collectorKey struct {
	circuit string
	prio    proofkind.Priority
}

type collector struct {
	jobs  []*job
	timer *time.Timer
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
	if !j.kind.Batchable || e.cfg.MaxBatchSize <= 1 || j.prio > proofkind.PriorityNormal {
		return 1
	}
	sizes, err := e.params.Sizes(j.circuit)
	if err != nil || sizes.WorkingSet() == 0 {
		return 1
	}
	fit := (e.budget.Capacity(int(j.prio)) - sizes.ParamsBytes()) / sizes.WorkingSet()
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
	b := &batch{seq: e.seq, jobs: len(jobs), prio: jobs[0].prio, circuit: jobs[0].circuit}
	if sizes, err := e.params.Sizes(b.circuit); err == nil {
		b.urgent = e.urgent(b.prio, sizes.Domain)
	}
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
		if e.preempts() && !b.urgent {
			// Start and Finish give way to urgent work at their yield
			// points.
			ctx = prover.WithYield(ctx, e.gate.wait)
		}
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
