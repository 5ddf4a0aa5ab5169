// Package statusdoc is the document the daemon serves at GET /status on
// its status listener (status_listen): the wire contract of that endpoint,
// shared by the server that builds it and the tools that read it (cuzk
// bench). It imports only the standard library, so a client decodes it
// without linking the daemon.
//
// Durations are integer nanoseconds (fields ending in _ns), times RFC 3339
// with nanoseconds. Readers must ignore fields they do not know: the
// daemon may add more; it does not rename or remove any.
package statusdoc

import "time"

// Stage names, as Stage.Stage carries them.
const (
	StageSRSLoad   = "srs_load"   // the item's wait for its parameters, when they were not resident
	StageSynthesis = "synthesis"  // one partition's circuit synthesis
	StageProve     = "prove"      // the prover's Start (FFTs, G1 MSMs)
	StageFinish    = "finish"     // the finisher's Finish (G2 MSM, assembly)
	StageSelfCheck = "self_check" // verification of the whole job (partition -1)
)

// Worker names, as Stage.Worker carries them. With several prover lanes
// the lane's name follows ("prover gpu0", "finisher gpu0"); the reserved
// lane's workers are "synthesis reserved", "prover reserved" and
// "finisher reserved".
const (
	WorkerSynthesis = "synthesis" // prefix: synthesis worker N is "synthesis N"
	WorkerProver    = "prover"
	WorkerFinisher  = "finisher"
	WorkerVerifier  = "verifier"
)

// Status is the GET /status document.
type Status struct {
	Uptime time.Duration `json:"uptime_ns"`
	// Draining: the daemon is shutting down; it finishes the jobs it holds
	// and refuses new ones (gRPC Unavailable "daemon draining, retry on
	// another").
	Draining bool     `json:"draining"`
	Memory   Memory   `json:"memory"`
	Pipeline Pipeline `json:"pipeline"`
	Queues   []Queue  `json:"queues"`
	// Jobs are the jobs that are not final, by id.
	Jobs     []Job                   `json:"jobs"`
	Params   []Param                 `json:"params"`
	Counters Counters                `json:"counters"`
	Kinds    []string                `json:"kinds"`
	Batching Batching                `json:"batching"`
	Limits   Limits                  `json:"limits"`
	ByKind   map[string]KindCounters `json:"by_kind"`
	// RecentJobs are the last jobs that reached a final state (at most
	// 256), in the order they did, with their stages.
	RecentJobs []RecentJob `json:"recent_jobs"`
	// Lanes are the prover lanes: the general ones (one per GPU, or one
	// on the CPU), then the reserved lane for urgent work.
	Lanes []Lane `json:"lanes"`
	// Urgent is the reserved lane's side.
	Urgent Urgent `json:"urgent"`
	// GPUs are the CUDA devices the daemon proves on (empty on the CPU).
	GPUs []GPU `json:"gpus"`
	// CPUArithmetic is the field arithmetic of the CPU prover (and of the
	// CPU check of device proofs).
	CPUArithmetic Arithmetic `json:"cpu_arithmetic"`
}

// Arithmetic names the CPU prover's field arithmetic.
type Arithmetic struct {
	Kind        string `json:"kind"`                   // "avx512-ifma" or "scalar"
	Reason      string `json:"reason,omitempty"`       // why scalar: no IFMA, CUZK_NO_IFMA, or a failed check
	CheckFailed bool   `json:"check_failed,omitempty"` // a kernel failed its known-answer check at start-up
}

// Lane is one prover lane.
type Lane struct {
	Name         string `json:"name"`    // "" for a single CPU lane
	Backend      string `json:"backend"` // "cpu", "cuda+checked"
	Reserved     bool   `json:"reserved"`
	Job          string `json:"job_id,omitempty"` // in the lane's Start now
	Finishing    int    `json:"finishing"`
	Proved       uint64 `json:"proved"`
	DeviceMemory int64  `json:"device_memory_bytes,omitempty"`
	// Abandoned: the lane is still in a device call for jobs that were
	// cancelled meanwhile (it cannot be interrupted); its result is
	// dropped and its memory released when it returns.
	Abandoned bool `json:"abandoned,omitempty"`
}

// Urgent describes the reserved lane: HIGH and CRITICAL jobs whose
// circuit's evaluation domain has at most MaxDomain rows are urgent;
// ordinary work pauses while one runs. (The JSON name, max_constraints, is
// the contract's since the field appeared; what it counts is domain rows.)
type Urgent struct {
	Enabled       bool          `json:"enabled"`
	MaxDomain     int           `json:"max_constraints"`
	ReservedBytes int64         `json:"reserved_bytes"`
	Active        int           `json:"active"` // urgent items holding memory now
	Paused        int           `json:"paused"` // ordinary workers paused now
	Pauses        uint64        `json:"pauses"`
	PausedTime    time.Duration `json:"paused_ns"` // summed over workers
}

// GPU is one CUDA device, as the CUDA runtime reports it.
type GPU struct {
	Ordinal    int    `json:"ordinal"`
	Name       string `json:"name"`
	TotalBytes uint64 `json:"vram_total_bytes"`
	FreeBytes  uint64 `json:"vram_free_bytes"`
	Job        string `json:"job_id,omitempty"` // in its lane's Start now
}

// Memory is the memory budget.
type Memory struct {
	TotalBytes  int64 `json:"total_bytes"`
	UsedBytes   int64 `json:"used_bytes"`
	PeakBytes   int64 `json:"peak_bytes"`
	ParamsBytes int64 `json:"params_bytes"` // held by resident parameters
	Waiting     int   `json:"waiting"`      // requests waiting for memory
	// ReservedBytes of TotalBytes only urgent work may use.
	ReservedBytes int64 `json:"reserved_bytes"`
	// DeviceBytes is the memory of the GPUs the lanes prove on.
	DeviceBytes int64 `json:"device_bytes"`
	// MappedBytes are mapped parameter files: file-backed page cache the
	// kernel may evict, outside the budget.
	MappedBytes int64 `json:"mapped_params_bytes"`
	// The daemon's resident memory: anonymous (heap) and file-backed.
	ProcessAnonBytes int64 `json:"process_anon_bytes"`
	ProcessFileBytes int64 `json:"process_file_bytes"`
}

// Pipeline is the pipeline's configuration and the partitions (items) in
// each stage.
type Pipeline struct {
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

// Queue is one proof kind's queue.
type Queue struct {
	Kind       string `json:"proof_kind"`
	Pending    int    `json:"pending"`
	InProgress int    `json:"in_progress"`
}

// Job is a job that is not final.
type Job struct {
	ID       string `json:"job_id"`
	Kind     string `json:"proof_kind"`
	Circuit  string `json:"circuit_id"`
	Priority string `json:"priority"`
	State    string `json:"state"` // planning, queued, running
	Batch    uint64 `json:"batch,omitempty"`
	// BatchSize is the number of jobs proved together in its batch
	// (absent: not admitted to the pipeline yet).
	BatchSize int           `json:"batch_size,omitempty"`
	Age       time.Duration `json:"age_ns"`
	Waiters   int           `json:"waiters"`
	// OrphanedFor is how long ago its last caller left, while it runs on
	// for [engine] orphan_grace waiting for one to come back (absent: it
	// is not orphaned).
	OrphanedFor time.Duration `json:"orphaned_ns,omitempty"`
	Partitions  []Partition   `json:"partitions"`
	// Stages are the stages its partitions have been through so far, by
	// start time.
	Stages []Stage `json:"stages,omitempty"`
}

// Partition is one partition of a running job.
type Partition struct {
	Index     int           `json:"index"`
	State     string        `json:"state"`
	Synthesis time.Duration `json:"synthesis_ns"` // once synthesis ended
	Prove     time.Duration `json:"prove_ns"`     // once proving (Start and Finish) ended
	// InState is the time so far in State while synthesizing, proving or
	// finishing; Proving, the time so far since proving began while
	// proving or finishing (absent otherwise).
	InState time.Duration `json:"in_state_ns,omitempty"`
	Proving time.Duration `json:"proving_ns,omitempty"`
}

// RecentJob is a job that reached a final state.
type RecentJob struct {
	ID         string    `json:"job_id"`
	Kind       string    `json:"proof_kind"`
	Circuit    string    `json:"circuit_id"`
	Priority   string    `json:"priority"`
	State      string    `json:"state"` // completed, failed, cancelled
	Batch      uint64    `json:"batch,omitempty"`
	BatchSize  int       `json:"batch_size,omitempty"` // jobs proved together in its batch
	Partitions int       `json:"partitions"`
	Submitted  time.Time `json:"submitted"`
	Finished   time.Time `json:"finished"`
	Timings    Timings   `json:"timings"`
	Error      string    `json:"error,omitempty"`
	// Stages are its stages by start time; a job keeps at most 512 and
	// counts the rest in StagesDropped.
	Stages        []Stage `json:"stages"`
	StagesDropped int     `json:"stages_dropped,omitempty"`
}

// Timings say where a job's time went (the figures AwaitProof returns,
// in nanoseconds).
type Timings struct {
	QueueWait time.Duration `json:"queue_wait_ns"`
	SRSLoad   time.Duration `json:"srs_load_ns"`
	Synthesis time.Duration `json:"synthesis_ns"`
	Prove     time.Duration `json:"prove_ns"`
	Total     time.Duration `json:"total_ns"`
	// ProveSteps are Prove's parts: the prover's steps, each summed over
	// the job's partitions, in the order they first ran (a Step
	// constant, or "fallback <step>" for a device proof redone on the
	// CPU). They are the job's own circuits' steps, where Prove (a
	// batch's wall time, which its jobs share) also covers the time
	// between steps, so they add up to at most Prove. Absent when the
	// backend times no steps (a GPU's one device call).
	ProveSteps []StepTotal `json:"prove_steps,omitempty"`
}

// Prover step names, as StepTotal.Step and StepTime.Step carry them: the
// CPU prover's steps of one partition, in the order they run. The first
// six are in the prove stage, assemble in the finish stage.
const (
	StepMSML     = "msm l"    // the L query's MSM over the witness
	StepMSMA     = "msm a"    // A's G1 MSMs (inputs and witness)
	StepMSMBG1   = "msm b_g1" // B's G1 MSMs
	StepMSMBG2   = "msm b_g2" // B's G2 MSMs
	StepH        = "h"        // H: the six number-theoretic transforms
	StepMSMH     = "msm h"    // the H query's MSM (dense: the domain's size)
	StepAssemble = "assemble" // the proof's assembly
)

// StepTotal is one prover step over a job's partitions.
type StepTotal struct {
	Step string        `json:"step"`
	Sum  time.Duration `json:"sum_ns"` // over the partitions
	Max  time.Duration `json:"max_ns"` // the longest partition's
}

// Stage is one pipeline stage of one partition of the job that lists it.
type Stage struct {
	Partition int           `json:"partition"` // -1: the whole job (self_check)
	Stage     string        `json:"stage"`     // a Stage constant
	Start     time.Time     `json:"start"`
	Duration  time.Duration `json:"duration_ns"`
	// Batch and Circuit name the item (partition Partition of every job of
	// the batch) the stage ran on; absent for self_check.
	Batch   uint64 `json:"batch,omitempty"`
	Circuit string `json:"circuit,omitempty"`
	Worker  string `json:"worker"` // a Worker constant
	// Steps are the prover's steps inside a prove or finish stage, for
	// this partition's circuit, in the order they ran (absent for the
	// other stages, and when the backend times none).
	Steps []StepTime `json:"steps,omitempty"`
}

// StepTime is one prover step of one partition.
type StepTime struct {
	Step string        `json:"step"`
	Wall time.Duration `json:"wall_ns"`
}

// End is when the stage ended.
func (s Stage) End() time.Time { return s.Start.Add(s.Duration) }

// Param is one parameter set the daemon knows.
type Param struct {
	CircuitID string        `json:"circuit_id"`
	Tier      string        `json:"tier"`  // hot, loading, warm or cold
	Bytes     int64         `json:"bytes"` // resident (hot) or decoded size (otherwise, when known)
	Refs      int           `json:"ref_count"`
	IdleFor   time.Duration `json:"idle_ns"`
	Official  bool          `json:"official_name"`
	Test      bool          `json:"insecure_test_params"`
	Loads     int           `json:"loads"`
	LastLoad  time.Duration `json:"last_load_ns"`
	File      string        `json:"params_file"`
	// Mapped says the set is (or will be) mapped rather than decoded;
	// MappedBytes is the mapping's size while hot: file-backed page cache,
	// not counted in Bytes or the budget. Without them a mapped 32 GiB set
	// reads as a hot one of a few MB.
	Mapped      bool  `json:"mapped"`
	MappedBytes int64 `json:"mapped_bytes"`
}

// Counters count jobs since the daemon started.
type Counters struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
	Attached  uint64 `json:"attached_duplicates"`
	Retained  int    `json:"retained_results"`
	// RetainedBytes is the memory the retained results hold, at most
	// [engine] completed_job_max_bytes.
	RetainedBytes int64 `json:"retained_bytes"`
	// Orphaned counts jobs whose callers all left and that kept running
	// for [engine] orphan_grace; Reclaimed, the times a caller came back
	// (a retry with the same request id) while one was orphaned.
	Orphaned  uint64 `json:"orphaned"`
	Reclaimed uint64 `json:"reclaimed"`
}

// KindCounters count one proof kind's final jobs.
type KindCounters struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
}

// Batching is the batch collector.
type Batching struct {
	MaxBatchSize int           `json:"max_batch_size"`
	MaxBatchWait time.Duration `json:"max_batch_wait_ns"`
	Collecting   int           `json:"collecting_jobs"`
}

// Limits are the admission limits and how close the daemon is to them.
type Limits struct {
	MaxPending      int `json:"max_pending"`
	Pending         int `json:"pending"` // jobs planning, queued or running
	PlanConcurrency int `json:"max_concurrent_plans"`
	Planning        int `json:"planning"`
	// IntakeBytes are the bytes of requests waiting to be planned or being
	// planned; more than MaxIntakeBytes are refused with
	// RESOURCE_EXHAUSTED (but for a single request).
	IntakeBytes    int64 `json:"intake_bytes"`
	MaxIntakeBytes int64 `json:"max_intake_bytes"`
}
