package engine

import (
	"runtime"
	"time"
)

// DefaultMaxPending is Config.MaxPending's default: far above what Curio
// keeps in flight (its cuzk MaxPending defaults to 10 per node), low
// enough that a burst of submissions cannot hold unbounded planned
// requests in memory.
const DefaultMaxPending = 256

// DefaultMaxIntakeBytes is Config.MaxIntakeBytes's default: room for
// twenty 32 GiB PoRep C1s (about 50 MB each) or eight requests of the
// largest message the daemon's gRPC admits (128 MiB) at once, outside the
// memory budget.
const DefaultMaxIntakeBytes = 1 << 30

// Config tunes the engine. The daemon fills it from the TOML configuration
// (see cmd/cuzk/daemon.go for the key each field comes from); the zero
// value of a field means its default.
type Config struct {
	// SynthesisWorkers is how many partitions may be synthesised at once,
	// each on one goroutine ([synthesis] threads capped by [pipeline]
	// max_parallel_synthesis). 0: GOMAXPROCS.
	SynthesisWorkers int
	// SynthesisConcurrency is how many batches (jobs) may have partitions
	// in synthesis at once ([pipeline] synthesis_concurrency). 0: 1.
	SynthesisConcurrency int
	// Lookahead is how many synthesised partitions may wait for the prover
	// beyond one per synthesis worker ([pipeline] synthesis_lookahead).
	// 0: 1.
	Lookahead int
	// NoPipeline proves each partition to the end before the next one is
	// synthesised ([pipeline] enabled = false).
	NoPipeline bool
	// MaxBatchSize is how many same-circuit jobs of a batchable kind are
	// proved together ([scheduler] max_batch_size); 0 and 1: no batching.
	MaxBatchSize int
	// MaxBatchWait is how long a partial batch waits for company
	// ([scheduler] max_batch_wait_ms).
	MaxBatchWait time.Duration
	// SkipSelfCheck disables verifying every proof before it is returned
	// ([engine] self_check = false).
	SkipSelfCheck bool
	// CompletedTTL and CompletedMax bound how long and how many finished
	// results are kept for Await and for retries ([engine]
	// completed_job_ttl, completed_job_max). 0: 1h and 4096.
	CompletedTTL time.Duration
	CompletedMax int
	// CompletedMaxBytes bounds the memory the retained results hold (job
	// id, proof bytes, error text and bookkeeping: RetainedBytes); beyond
	// it the oldest go first, as beyond CompletedMax ([engine]
	// completed_job_max_bytes). 0: DefaultCompletedMaxBytes.
	CompletedMaxBytes int64
	// OrphanGrace is how long a job whose callers all left keeps running
	// and, once it ends, keeps its result, so that a retry with the same
	// request id attaches to it ([engine] orphan_grace). Curio's client
	// gives up on a Prove after its ProveTimeout (30 min) and retries the
	// task with the same request id: without the grace a proof longer
	// than that would be cancelled at every attempt. Jobs without a
	// request id cannot be attached to and are cancelled at once. 0:
	// DefaultOrphanGrace; negative: no grace (cancel at once).
	OrphanGrace time.Duration
	// PlanConcurrency bounds how many requests are planned (decoded and
	// checked) at once; a plan's memory (a 32 GiB PoRep C1 decodes to
	// tens of MB) is outside the budget ([engine] max_concurrent_plans).
	// 0: GOMAXPROCS.
	PlanConcurrency int
	// MaxPending bounds the jobs that are not final (planning, queued or
	// running); a new submission beyond it fails with ErrTooManyJobs
	// ([engine] max_pending). 0: 256.
	MaxPending int
	// MaxIntakeBytes bounds the bytes of requests the engine holds while
	// they wait for a plan slot or are planned (their vanilla proofs, up
	// to the daemon's 128 MiB message each, are outside the memory
	// budget); a submission that would exceed it fails with
	// ErrIntakeFull, except when no other request is in intake, so one
	// request of any size is always taken ([engine] max_intake_bytes). 0: DefaultMaxIntakeBytes.
	MaxIntakeBytes int64
	// ReturnMemory hands freed heap back to the operating system
	// (debug.FreeOSMemory) once the engine has been idle for a second
	// after work: no job planning, queued or running. Without it the Go
	// runtime returns memory slowly, and a daemon that decoded a burst of
	// large requests keeps their pages resident while idle. The daemon
	// and the one-shot commands set it.
	ReturnMemory bool
	// LogTiming logs the per-partition stage lines at INFO instead of
	// DEBUG (the daemon sets it when CUZK_TIMING=1).
	LogTiming bool

	// ReservedLane adds a synthesis worker and a prover lane that only
	// urgent work uses, pauses ordinary work at its yield points while
	// urgent work runs, and holds UrgentReserve of the memory budget back
	// for it ([pipeline] reserved_lane; see doc.go, Lanes). Off in the
	// zero Config; the daemon's default turns it on.
	ReservedLane bool
	// UrgentMaxDomain: a HIGH or CRITICAL job whose circuit's domain has
	// at most this many rows is urgent ([pipeline]
	// urgent_max_constraints). 0: DefaultUrgentMaxDomain.
	UrgentMaxDomain int
	// UrgentReserve is the memory only urgent work may use ([memory]
	// reserved_lane_budget). 0: DefaultUrgentReserve, at most an eighth
	// of the budget; negative: none.
	UrgentReserve int64
	// NoPreempt keeps ordinary work running beside urgent work (the
	// reserved lane then only saves the queueing). For measurements
	// (BenchmarkUrgentLatency); the daemon never sets it.
	NoPreempt bool
}

// DefaultOrphanGrace is Config.OrphanGrace's default: twice Curio's
// default ProveTimeout (30 min), so a retry that comes after a full
// timeout still finds the job.
const DefaultOrphanGrace = time.Hour

// DefaultCompletedMaxBytes is Config.CompletedMaxBytes's default: 4096
// results of a 10-partition PoRep (1,920 proof bytes, a 256-byte id and
// about 1 KiB of bookkeeping each) take 13 MiB.
const DefaultCompletedMaxBytes = 64 << 20

// DefaultUrgentMaxDomain covers WinningPoSt at every sector size (2^19
// rows at 32 and 64 GiB) and the small test sizes of WindowPoSt, and
// leaves out every PoRep, SnapDeals and production WindowPoSt partition.
const DefaultUrgentMaxDomain = 1 << 20

// DefaultUrgentReserve holds the parameters and the working set of one
// partition of 2^20 rows (about 0.8 GiB; a 32 GiB WinningPoSt needs about
// 0.4 GiB).
const DefaultUrgentReserve = 1 << 30

func (c Config) withDefaults() Config {
	if c.SynthesisWorkers <= 0 {
		c.SynthesisWorkers = runtime.GOMAXPROCS(0)
	}
	if c.SynthesisConcurrency <= 0 {
		c.SynthesisConcurrency = 1
	}
	if c.Lookahead <= 0 {
		c.Lookahead = 1
	}
	if c.MaxBatchSize <= 0 {
		c.MaxBatchSize = 1
	}
	if c.CompletedTTL <= 0 {
		c.CompletedTTL = time.Hour
	}
	if c.CompletedMax <= 0 {
		c.CompletedMax = 4096
	}
	if c.CompletedMaxBytes <= 0 {
		c.CompletedMaxBytes = DefaultCompletedMaxBytes
	}
	switch {
	case c.OrphanGrace == 0:
		c.OrphanGrace = DefaultOrphanGrace
	case c.OrphanGrace < 0:
		c.OrphanGrace = 0
	}
	if c.PlanConcurrency <= 0 {
		c.PlanConcurrency = runtime.GOMAXPROCS(0)
	}
	if c.MaxPending <= 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.MaxIntakeBytes <= 0 {
		c.MaxIntakeBytes = DefaultMaxIntakeBytes
	}
	if c.UrgentMaxDomain <= 0 {
		c.UrgentMaxDomain = DefaultUrgentMaxDomain
	}
	return c
}

// urgentReserve is the memory to hold back for urgent work out of a
// budget of total bytes.
func (c Config) urgentReserve(total int64) int64 {
	switch {
	case !c.ReservedLane || c.UrgentReserve < 0:
		return 0
	case c.UrgentReserve == 0:
		return min(DefaultUrgentReserve, total/8)
	}
	return min(c.UrgentReserve, total)
}
