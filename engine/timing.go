package engine

import (
	"slices"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/groth16"
)

// StageRecord is one pipeline stage of one partition of a job, as the
// engine's Status reports it (see the package doc, "Stage timings").
type StageRecord struct {
	Job       string
	Partition int // -1: the whole job (self_check)
	Stage     string
	Start     time.Time
	Duration  time.Duration
	// Batch and Circuit name the item (partition Partition of every job of
	// batch Batch) the stage ran on; 0 and "" for self_check.
	Batch   uint64
	Circuit string
	// Worker is the pipeline worker that ran the stage: "synthesis" (one
	// of Config.SynthesisWorkers, which run one item at a time and are not
	// numbered), "prover", "finisher", or "verifier" (self_check runs on a
	// goroutine of its own per job).
	Worker string
	// Steps are the backend's steps inside a prove or finish stage, for
	// this partition's circuit (nil for the other stages, and when the
	// backend times none).
	Steps []StepTime
}

// StepTime is one step of one partition's proving, with its wall time:
// in the prove stage (Backend.Start) "msm l", "msm a", "msm b_g1",
// "msm b_g2", "h" (the transforms of H) and "msm h", in the finish stage
// (Backend.Finish) "assemble" (groth16.Step*); a proof that prover/checked
// redid on its CPU fallback adds the fallback's steps, named
// "fallback <step>", to its finish stage.
type StepTime struct {
	Step string        `json:"step"`
	Wall time.Duration `json:"wall_ns"`
}

// StepTotal is one prover step over a job's partitions.
type StepTotal struct {
	Step string        `json:"step"`
	Sum  time.Duration `json:"sum_ns"` // over the partitions
	Max  time.Duration `json:"max_ns"` // the longest partition's
}

// proveSteps copies the steps of n circuits that a backend's Times
// reports (groth16.StageTimes.Steps), leaving out the first len(before[k])
// of circuit k's, which an earlier call returned. A backend that reports
// the steps of another number of circuits reports none.
func proveSteps(all [][]groth16.Step, n int, before [][]StepTime) [][]StepTime {
	if len(all) != n {
		return nil
	}
	out := make([][]StepTime, n)
	for k, steps := range all {
		steps = steps[min(len(stepsAt(before, k)), len(steps)):]
		if len(steps) == 0 {
			continue
		}
		out[k] = make([]StepTime, len(steps))
		for i, s := range steps {
			out[k][i] = StepTime{Step: s.Name, Wall: s.Wall}
		}
	}
	return out
}

// stepsAt is steps[k], or nil.
func stepsAt(steps [][]StepTime, k int) []StepTime {
	if k < len(steps) {
		return steps[k]
	}
	return nil
}

// addSteps adds one partition's steps (in parts, as its stages listed
// them) to a job's totals.
func addSteps(tot []StepTotal, parts ...[]StepTime) []StepTotal {
	var own []StepTotal // the partition's, by name
	for _, steps := range parts {
		for _, s := range steps {
			own = sumStep(own, s.Step, s.Wall)
		}
	}
	for _, o := range own {
		tot = sumStep(tot, o.Step, o.Sum)
		i := slices.IndexFunc(tot, func(t StepTotal) bool { return t.Step == o.Step })
		tot[i].Max = max(tot[i].Max, o.Sum)
	}
	return tot
}

// sumStep adds d to the step called name in tot, appended when new.
func sumStep(tot []StepTotal, name string, d time.Duration) []StepTotal {
	if i := slices.IndexFunc(tot, func(t StepTotal) bool { return t.Step == name }); i >= 0 {
		tot[i].Sum += d
		return tot
	}
	return append(tot, StepTotal{Step: name, Sum: d})
}

// End is when the stage ended.
func (r StageRecord) End() time.Time { return r.Start.Add(r.Duration) }

// RecentJob is a job that reached a final state, with its stages.
type RecentJob struct {
	ID         string
	Kind       string
	Circuit    string
	Priority   string
	State      State
	Batch      uint64 // 0: never admitted to the pipeline
	BatchSize  int    // jobs in the batch (0: never admitted)
	Partitions int
	Submitted  time.Time
	Finished   time.Time
	Timings    Timings
	Error      string // why it failed (StateFailed only)
	Stages     []StageRecord
	// StagesDropped counts records past MaxJobStages.
	StagesDropped int
}

// Bounds of the stage records the engine keeps. A record is 136 bytes (its
// strings are shared with the job and the pipeline) and a prove or finish
// record points to its steps, 24 bytes each, seven a partition (the CPU
// prover's), so a finished 10-partition PoRep job (about 32 records) takes
// under 8 KiB with slice growth, the ring of finished PoRep jobs under
// 2 MiB, and whatever the jobs, the ring holds at most
// MaxRecentJobs*MaxJobStages records (24 MiB: at most two of a
// partition's three or four records carry steps).
// Jobs not yet final keep theirs under the same per-job bound, for at most
// Config.MaxPending+MaxRecentJobs jobs.
const (
	// MaxRecentJobs is how many finished jobs Status lists in RecentJobs.
	MaxRecentJobs = 256
	// MaxJobStages is how many stage records one job keeps; later ones
	// are counted, not kept.
	MaxJobStages = 512
)

// stageWorker names the worker that runs stage.
func stageWorker(stage string) string {
	switch stage {
	case "srs_load", "synthesis":
		return "synthesis"
	case "prove":
		return "prover"
	case "finish":
		return "finisher"
	case "self_check":
		return "verifier"
	}
	return stage
}

// stageLog keeps the stage records of jobs that are not final (live) and
// of the last MaxRecentJobs final ones (recent). Its zero value is ready.
// Lock order: the engine's mu, then stageLog.mu; record never takes the
// engine's lock, so the pipeline may call it holding that lock or not.
type stageLog struct {
	mu     sync.Mutex
	live   map[string]*liveStages
	recent []*RecentJob // oldest first
}

type liveStages struct {
	recs    []StageRecord
	dropped int
	last    time.Time // when the last record arrived
}

// record adds rec. A record of a job that has already ended (its stage was
// running when the job was cancelled or failed) goes to the job's entry in
// recent. maxLive bounds the live entries: past it the one idle longest is
// dropped (a job gone without ending through endLocked never lingers).
func (l *stageLog) record(rec StageRecord, maxLive int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.live[rec.Job]; s != nil {
		s.add(rec)
		return
	}
	// A request id may be used again after its job failed: a record that
	// starts after the retained job ended belongs to a new job.
	for i := len(l.recent) - 1; i >= 0; i-- {
		if r := l.recent[i]; r.ID == rec.Job {
			if rec.Start.Before(r.Finished) {
				if len(r.Stages) < MaxJobStages {
					r.Stages = append(r.Stages, rec)
					sortStages(r.Stages)
				} else {
					r.StagesDropped++
				}
				return
			}
			break
		}
	}
	if l.live == nil {
		l.live = map[string]*liveStages{}
	}
	if len(l.live) >= max(maxLive, 1) {
		var oldest string
		var at time.Time
		for id, s := range l.live {
			if oldest == "" || s.last.Before(at) {
				oldest, at = id, s.last
			}
		}
		delete(l.live, oldest)
	}
	s := &liveStages{}
	s.add(rec)
	l.live[rec.Job] = s
}

func (s *liveStages) add(rec StageRecord) {
	s.last = time.Now()
	if len(s.recs) < MaxJobStages {
		s.recs = append(s.recs, rec)
	} else {
		s.dropped++
	}
}

// end moves a final job's records to recent.
func (l *stageLog) end(r *RecentJob) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.live[r.ID]; s != nil {
		r.Stages, r.StagesDropped = s.recs, s.dropped
		delete(l.live, r.ID)
		sortStages(r.Stages) // once here, not on every snapshot
	}
	if len(l.recent) >= MaxRecentJobs {
		l.recent = slices.Delete(l.recent, 0, len(l.recent)-MaxRecentJobs+1)
	}
	l.recent = append(l.recent, r)
}

// snapshot copies the live records of the jobs for which keep is true,
// drops the other live entries (jobs no longer running), and copies the
// recent jobs. Every list comes sorted by sortStages.
func (l *stageLog) snapshot(keep func(id string) bool) (live map[string][]StageRecord, recent []RecentJob) {
	l.mu.Lock()
	defer l.mu.Unlock()
	live = make(map[string][]StageRecord, len(l.live))
	for id, s := range l.live {
		if !keep(id) {
			delete(l.live, id)
			continue
		}
		live[id] = slices.Clone(s.recs)
		sortStages(live[id])
	}
	recent = make([]RecentJob, len(l.recent))
	for i, r := range l.recent {
		recent[i] = *r
		recent[i].Stages = slices.Clone(r.Stages)
	}
	return live, recent
}

// sortStages orders records by start, then partition, then stage end.
func sortStages(recs []StageRecord) {
	slices.SortStableFunc(recs, func(a, b StageRecord) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		if a.Partition != b.Partition {
			return a.Partition - b.Partition
		}
		return a.End().Compare(b.End())
	})
}

// StageObserver is an optional interface of Options.Observer: StageTimed
// is called once for every stage record (per-stage metrics). Unlike
// JobFinished it is called from the pipeline's goroutines without the
// engine's lock; it must return quickly without calling the engine.
type StageObserver interface {
	StageTimed(r StageRecord)
}
