package engine

import (
	"slices"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/internal/procmem"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/srs"
)

// Status is a snapshot of the engine. The server publishes it as the GET
// /status document (server/statusdoc), which is the wire contract; these
// types are not.
type Status struct {
	Uptime time.Duration
	// Draining: Shutdown has begun; the engine finishes the jobs it holds
	// and refuses new ones with ErrDraining.
	Draining bool
	Memory   MemoryStatus
	Pipeline PipelineStatus
	Queues   []QueueStatus
	Jobs     []JobStatus
	Params   []srs.EntryStatus
	Counters CounterStatus
	Kinds    []string
	Batching BatchingStatus
	Limits   LimitsStatus
	ByKind   map[string]KindDone
	// RecentJobs are the last MaxRecentJobs jobs that reached a final
	// state, in the order they did, with their stages.
	RecentJobs []RecentJob
	// Lanes are the prover lanes: the general ones, then the reserved
	// one.
	Lanes []LaneStatus
	// Urgent is the reserved lane's side: how urgent work is recognised
	// and how often ordinary work gave way to it.
	Urgent UrgentStatus
	// Devices are the accelerators (Options.Devices); empty without one.
	Devices []DeviceStatus
	// DevicesErr says why Devices is empty when the query failed.
	DevicesErr error
}

// LaneStatus is one prover lane.
type LaneStatus struct {
	Name     string // "" for the single general lane
	Backend  string // prover.Backend.Name
	Reserved bool   // takes only urgent work
	// Job is the job whose item is in the lane's Start now ("" when
	// idle; the first job of a batch), Kind its proof kind.
	Job       string
	Kind      string
	Finishing int    // items with the lane's finisher
	Proved    uint64 // items proved since start
	// Abandoned: the lane's Start is still running for an item whose jobs
	// all ended (cancelled); a device call cannot be interrupted, so the
	// lane is busy until it returns, and its result is dropped then.
	Abandoned bool
	// DeviceMemory is the lane's device memory (0: a CPU lane).
	DeviceMemory int64
}

// UrgentStatus describes the reserved lane (Config.ReservedLane).
type UrgentStatus struct {
	Enabled bool
	// MaxDomain: HIGH and CRITICAL jobs of at most this many rows are
	// urgent.
	MaxDomain int
	// ReservedBytes of the budget only urgent work may use.
	ReservedBytes int64
	// Active: urgent items holding memory now (ordinary work pauses while
	// it is above zero); Paused: ordinary workers paused now.
	Active int
	Paused int
	// Pauses counts the times an ordinary worker paused, PausedTime the
	// time they spent paused, summed over workers.
	Pauses     uint64
	PausedTime time.Duration
}

// LimitsStatus is the admission limits and how close the engine is to
// them.
type LimitsStatus struct {
	MaxPending      int
	Pending         int // jobs planning, queued or running
	PlanConcurrency int
	Planning        int
	// IntakeBytes are the bytes of requests waiting to be planned or being
	// planned, at most MaxIntakeBytes (but for a single request).
	IntakeBytes    int64
	MaxIntakeBytes int64
}

// MemoryStatus is the budget.
type MemoryStatus struct {
	TotalBytes  int64
	UsedBytes   int64
	PeakBytes   int64
	ParamsBytes int64
	Waiting     int
	// ReservedBytes of TotalBytes only urgent work may use.
	ReservedBytes int64
	// DeviceBytes is the device memory of the lanes, summed (0: CPU
	// only).
	DeviceBytes int64
	// MappedBytes is the size of the mapped parameter files (srs
	// residency "mapped"): file-backed, evictable page cache, outside the
	// budget.
	MappedBytes int64
	// ProcessAnonBytes and ProcessFileBytes are the process's resident
	// memory, anonymous (heap) and file-backed (mapped parameters), from
	// /proc/self/status (0 where it cannot be read).
	ProcessAnonBytes int64
	ProcessFileBytes int64
}

// PipelineStatus counts partitions (items) in each stage.
type PipelineStatus struct {
	SynthesisWorkers     int
	SynthesisConcurrency int
	Lookahead            int
	Enabled              bool
	SynthesisQueued      int
	Synthesizing         int
	Ready                int
	Proving              int
	Finishing            int
}

// BatchingStatus is the batch collector.
type BatchingStatus struct {
	MaxBatchSize int
	MaxBatchWait time.Duration
	Collecting   int
}

// QueueStatus is one proof kind's queue, as GetStatus reports it.
type QueueStatus struct {
	Kind       string
	Pending    int
	InProgress int
}

// JobStatus is one job that is not final.
type JobStatus struct {
	ID       string
	Kind     string
	Circuit  string
	Priority string
	State    State
	Batch    uint64
	// BatchSize is the number of jobs admitted with it as one batch (0:
	// not admitted yet).
	BatchSize int
	Age       time.Duration
	Waiters   int
	// OrphanedFor is how long ago the job's last caller left, while it
	// waits out its orphan grace for one to come back (0: not orphaned).
	OrphanedFor time.Duration
	Partitions  []PartitionStatus
	// Stages are the stages the job's partitions have been through so
	// far, by start time.
	Stages []StageRecord
}

// PartitionStatus is one partition of a job.
type PartitionStatus struct {
	Index     int
	State     string
	Synthesis time.Duration
	Prove     time.Duration
	// InState is the time so far in State while it is synthesizing,
	// proving or finishing; Proving, the time so far since proving began
	// while proving or finishing (Prove counts both once they end).
	InState time.Duration
	Proving time.Duration
}

// CounterStatus counts jobs since start.
type CounterStatus struct {
	Completed uint64
	Failed    uint64
	Cancelled uint64
	Attached  uint64
	Retained  int
	// RetainedBytes is the memory the retained results hold, at most
	// Config.CompletedMaxBytes.
	RetainedBytes int64
	// Orphaned counts jobs whose callers all left and that were kept for
	// a caller to come back (Config.OrphanGrace); Reclaimed, the times
	// one came back while the job was orphaned.
	Orphaned  uint64
	Reclaimed uint64
}

// KindDone counts one kind's final jobs.
type KindDone struct {
	Completed uint64
	Failed    uint64
	Cancelled uint64
}

// Status returns a snapshot.
func (e *Engine) Status() Status {
	var devs []DeviceStatus
	var devErr error
	if e.devices != nil {
		devs, devErr = e.devices()
	}
	params := e.params.Status()
	var paramsBytes, mappedBytes int64
	for _, p := range params {
		if p.Tier == srs.TierHot {
			paramsBytes += p.Bytes
			mappedBytes += p.MappedBytes
		}
	}
	proc, _ := procmem.Read()
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	s := Status{
		Uptime:   now.Sub(e.started),
		Draining: e.closing,
		Memory: MemoryStatus{
			TotalBytes: e.budget.Total(), UsedBytes: e.budget.Used(), PeakBytes: e.budget.Peak(),
			ParamsBytes: paramsBytes, Waiting: e.budget.Waiting(),
			MappedBytes: mappedBytes, ProcessAnonBytes: proc.Anon, ProcessFileBytes: proc.File,
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
			Attached: e.counts.Attached, Retained: len(e.retained), RetainedBytes: e.retainedBytes,
			Orphaned: e.counts.Orphaned, Reclaimed: e.counts.Reclaimed,
		},
		Batching: BatchingStatus{MaxBatchSize: e.cfg.MaxBatchSize, MaxBatchWait: e.cfg.MaxBatchWait},
		Limits:   LimitsStatus{MaxPending: e.cfg.MaxPending, PlanConcurrency: e.cfg.PlanConcurrency},
		ByKind:   map[string]KindDone{},
	}
	s.Limits.IntakeBytes, s.Limits.MaxIntakeBytes = e.intake, e.cfg.MaxIntakeBytes
	for _, c := range e.collectors {
		s.Batching.Collecting += len(c.jobs)
	}
	for _, l := range e.lanes {
		ls := LaneStatus{Name: l.name, Backend: l.backend.Name(), Reserved: l.reserved, Finishing: l.finishing, Proved: l.proved,
			DeviceMemory: l.deviceMem}
		if it := l.starting; it != nil {
			ls.Abandoned = it.live == 0
			for _, p := range it.parts {
				if !p.dropped {
					ls.Job, ls.Kind = p.job.id, p.job.kind.Name
					break
				}
			}
		}
		s.Lanes = append(s.Lanes, ls)
		s.Memory.DeviceBytes += l.deviceMem
	}
	s.Memory.ReservedBytes, _ = e.budget.Reserve()
	s.DevicesErr = devErr
	for _, d := range devs {
		for _, ls := range s.Lanes {
			if d.Lane != "" && ls.Name == d.Lane {
				d.Job, d.Kind = ls.Job, ls.Kind
			}
		}
		s.Devices = append(s.Devices, d)
	}
	s.Urgent = UrgentStatus{Enabled: e.cfg.ReservedLane, Active: int(e.gate.active.Load()), Paused: int(e.gate.waiting.Load()),
		Pauses: e.gate.pauses.Load(), PausedTime: time.Duration(e.gate.paused.Load())}
	if e.cfg.ReservedLane {
		s.Urgent.MaxDomain = e.cfg.UrgentMaxDomain
		s.Urgent.ReservedBytes, _ = e.budget.Reserve()
	}
	for name, c := range e.counts.byKind {
		s.ByKind[name] = KindDone{c.completed, c.failed, c.cancelled}
	}
	// The queues: Curio's kinds always (served or not, so its
	// backpressure sum sees the entries the Rust cuzk reports), then the
	// other kinds served.
	var kinds []proofkind.Kind
	for _, d := range e.descs.All() {
		if _, served := e.kinds[d.Kind]; d.Standard || served {
			kinds = append(kinds, d.Kind)
		}
	}
	for _, sk := range e.kinds {
		s.Kinds = append(s.Kinds, sk.desc.Name)
	}
	slices.Sort(s.Kinds)
	queues := map[proofkind.Kind]*QueueStatus{}
	for _, k := range kinds {
		queues[k] = &QueueStatus{Kind: e.descs.Name(k)}
	}
	live, recent := e.stages.snapshot(func(id string) bool {
		j := e.jobs[id]
		return j != nil && !j.state.Final()
	})
	s.RecentJobs = recent
	for _, j := range e.jobs {
		if j.state.Final() {
			continue
		}
		s.Limits.Pending++
		if j.state == StatePlanning {
			s.Limits.Planning++
		}
		if q := queues[j.kind.Kind]; q != nil {
			if j.state == StateRunning {
				q.InProgress++
			} else {
				q.Pending++
			}
		}
		js := JobStatus{ID: j.id, Kind: j.kind.Name, Circuit: j.circuit, Priority: j.prio.String(),
			State: j.state, Age: now.Sub(j.submitted), Waiters: j.holders, Stages: live[j.id]}
		if j.orphanTimer != nil {
			js.OrphanedFor = now.Sub(j.orphanedAt)
		}
		if j.batch != nil {
			js.Batch, js.BatchSize = j.batch.seq, j.batch.jobs
		}
		for i, p := range j.parts {
			ps := PartitionStatus{Index: i, State: p.state.String(), Synthesis: p.synthesis, Prove: p.prove}
			switch p.state {
			case partSynthesizing:
				ps.InState = now.Sub(p.entered)
			case partProving, partFinishing:
				ps.InState, ps.Proving = now.Sub(p.entered), now.Sub(p.proving)
			}
			js.Partitions = append(js.Partitions, ps)
		}
		s.Jobs = append(s.Jobs, js)
	}
	slices.SortFunc(s.Jobs, func(a, b JobStatus) int { return strings.Compare(a.ID, b.ID) })
	for _, k := range kinds {
		s.Queues = append(s.Queues, *queues[k])
	}
	return s
}

// recordEndLocked moves a job that just became final to the recent jobs of
// the stage log.
func (e *Engine) recordEndLocked(j *job) {
	r := &RecentJob{ID: j.id, Kind: j.kind.Name, Circuit: j.circuit, Priority: j.prio.String(), State: j.state,
		Partitions: len(j.parts), Submitted: j.submitted, Finished: j.finished, Timings: j.timings}
	if j.batch != nil {
		r.Batch, r.BatchSize = j.batch.seq, j.batch.jobs
	}
	if j.state == StateFailed && j.result.Err != nil {
		r.Error = j.result.Err.Error()
	}
	e.stages.end(r)
}
