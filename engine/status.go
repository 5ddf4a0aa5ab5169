package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/srs"
)

// Status is a snapshot of the engine, served as JSON by GET /status.
type Status struct {
	Uptime   time.Duration       `json:"uptime_ns"`
	Memory   MemoryStatus        `json:"memory"`
	Pipeline PipelineStatus      `json:"pipeline"`
	Queues   []QueueStatus       `json:"queues"`
	Jobs     []JobStatus         `json:"jobs"`
	Params   []srs.EntryStatus   `json:"params"`
	Counters CounterStatus       `json:"counters"`
	Kinds    []string            `json:"kinds"`
	Batching BatchingStatus      `json:"batching"`
	Limits   LimitsStatus        `json:"limits"`
	ByKind   map[string]KindDone `json:"by_kind"`
}

// LimitsStatus is the admission limits and how close the engine is to
// them.
type LimitsStatus struct {
	MaxPending      int `json:"max_pending"`
	Pending         int `json:"pending"` // jobs planning, queued or running
	PlanConcurrency int `json:"max_concurrent_plans"`
	Planning        int `json:"planning"`
}

// MemoryStatus is the budget.
type MemoryStatus struct {
	TotalBytes  int64 `json:"total_bytes"`
	UsedBytes   int64 `json:"used_bytes"`
	PeakBytes   int64 `json:"peak_bytes"`
	ParamsBytes int64 `json:"params_bytes"`
	Waiting     int   `json:"waiting"`
}

// PipelineStatus counts partitions (items) in each stage.
type PipelineStatus struct {
	SynthesisWorkers     int  `json:"synthesis_workers"`
	SynthesisConcurrency int  `json:"synthesis_concurrency"`
	Lookahead            int  `json:"lookahead"`
	Enabled              bool `json:"enabled"`
	SynthesisQueued      int  `json:"synthesis_queued"`
	Synthesizing         int  `json:"synthesizing"`
	Ready                int  `json:"ready"`
	Proving              int  `json:"proving"`
	Finishing            int  `json:"finishing"`
}

// BatchingStatus is the batch collector.
type BatchingStatus struct {
	MaxBatchSize int           `json:"max_batch_size"`
	MaxBatchWait time.Duration `json:"max_batch_wait_ns"`
	Collecting   int           `json:"collecting_jobs"`
}

// QueueStatus is one proof kind's queue, as GetStatus reports it.
type QueueStatus struct {
	Kind       string `json:"proof_kind"`
	Pending    int    `json:"pending"`
	InProgress int    `json:"in_progress"`
}

// JobStatus is one job that is not final.
type JobStatus struct {
	ID         string            `json:"job_id"`
	Kind       string            `json:"proof_kind"`
	Circuit    string            `json:"circuit_id"`
	Priority   string            `json:"priority"`
	State      State             `json:"state"`
	Batch      uint64            `json:"batch,omitempty"`
	Age        time.Duration     `json:"age_ns"`
	Holders    int               `json:"waiters"`
	Partitions []PartitionStatus `json:"partitions"`
}

// PartitionStatus is one partition of a job.
type PartitionStatus struct {
	Index     int           `json:"index"`
	State     string        `json:"state"`
	Synthesis time.Duration `json:"synthesis_ns"`
	Prove     time.Duration `json:"prove_ns"`
}

// CounterStatus counts jobs since start.
type CounterStatus struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
	Attached  uint64 `json:"attached_duplicates"`
	Retained  int    `json:"retained_results"`
}

// KindDone counts one kind's final jobs.
type KindDone struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
}

// StandardKinds are the queues GetStatus always lists, registered or not,
// so Curio's backpressure sum sees the same entries as from the Rust cuzk.
var StandardKinds = []ProofKind{ProofKindPoRep, ProofKindSnapDeals, ProofKindWindowPoSt, ProofKindWinningPoSt}

// Status returns a snapshot.
func (e *Engine) Status() Status {
	params := e.params.Status()
	var paramsBytes int64
	for _, p := range params {
		if p.Tier == srs.TierHot {
			paramsBytes += p.Bytes
		}
	}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := Status{
		Uptime: now.Sub(e.started),
		Memory: MemoryStatus{
			TotalBytes: e.budget.Total(), UsedBytes: e.budget.Used(), PeakBytes: e.budget.Peak(),
			ParamsBytes: paramsBytes, Waiting: e.budget.Waiting(),
		},
		Pipeline: PipelineStatus{
			SynthesisWorkers: e.cfg.SynthesisWorkers, SynthesisConcurrency: e.cfg.SynthesisConcurrency,
			Lookahead: e.cfg.Lookahead, Enabled: !e.cfg.NoPipeline,
			SynthesisQueued: len(e.synthQ), Synthesizing: e.stage.synthesizing, Ready: len(e.readyQ),
			Proving: e.stage.proving, Finishing: e.stage.finishing,
		},
		Params: params,
		Counters: CounterStatus{
			Completed: e.counts.Completed, Failed: e.counts.Failed, Cancelled: e.counts.Cancelled,
			Attached: e.counts.Attached, Retained: len(e.retained),
		},
		Batching: BatchingStatus{MaxBatchSize: e.cfg.MaxBatchSize, MaxBatchWait: e.cfg.MaxBatchWait},
		Limits:   LimitsStatus{MaxPending: e.cfg.MaxPending, PlanConcurrency: e.cfg.PlanConcurrency},
		ByKind:   map[string]KindDone{},
	}
	for _, c := range e.collectors {
		s.Batching.Collecting += len(c.jobs)
	}
	for k, c := range e.counts.byKind {
		s.ByKind[k.String()] = KindDone{c.completed, c.failed, c.cancelled}
	}
	kinds := slices.Clone(StandardKinds)
	for k := range e.kinds {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
		s.Kinds = append(s.Kinds, k.String())
	}
	slices.Sort(s.Kinds)
	queues := map[ProofKind]*QueueStatus{}
	for _, k := range kinds {
		q := &QueueStatus{Kind: k.String()}
		queues[k] = q
	}
	for _, j := range e.jobs {
		if j.state.Final() {
			continue
		}
		s.Limits.Pending++
		if j.state == StatePlanning {
			s.Limits.Planning++
		}
		if q := queues[j.kind]; q != nil {
			if j.state == StateRunning {
				q.InProgress++
			} else {
				q.Pending++
			}
		}
		js := JobStatus{ID: j.id, Kind: j.kind.String(), Circuit: j.circuit, Priority: j.prio.String(),
			State: j.state, Age: now.Sub(j.submitted), Holders: j.holders}
		if j.batch != nil {
			js.Batch = j.batch.seq
		}
		for i, p := range j.parts {
			js.Partitions = append(js.Partitions, PartitionStatus{Index: i, State: p.state.String(), Synthesis: p.synthesis, Prove: p.prove})
		}
		s.Jobs = append(s.Jobs, js)
	}
	slices.SortFunc(s.Jobs, func(a, b JobStatus) int { return strings.Compare(a.ID, b.ID) })
	for _, k := range kinds {
		s.Queues = append(s.Queues, *queues[k])
	}
	return s
}
