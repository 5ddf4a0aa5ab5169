package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// State is where a job is.
type State int

// Job states. Timeout is never a job's state: Await reports it when its
// wait runs out.
const (
	StatePlanning State = iota
	StateQueued
	StateRunning
	StateCompleted
	StateFailed
	StateCancelled
	StateTimeout
)

// String names the state.
func (s State) String() string {
	switch s {
	case StatePlanning:
		return "planning"
	case StateQueued:
		return "queued"
	case StateRunning:
		return "running"
	case StateCompleted:
		return "completed"
	case StateFailed:
		return "failed"
	case StateCancelled:
		return "cancelled"
	case StateTimeout:
		return "timeout"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// MarshalText writes the name.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Final says the job will not change any more.
func (s State) Final() bool { return s == StateCompleted || s == StateFailed || s == StateCancelled }

// Timings say where a job's time went. Prove is the prover stage (FFTs and
// MSMs) on whatever backend runs it; for a batch it is the wall time of the
// batch's proving, which its jobs share.
type Timings struct {
	QueueWait time.Duration `json:"queue_wait_ns"`
	SRSLoad   time.Duration `json:"srs_load_ns"`
	Synthesis time.Duration `json:"synthesis_ns"`
	Prove     time.Duration `json:"prove_ns"`
	Total     time.Duration `json:"total_ns"`
	// ProveSteps are Prove's parts: the backend's steps over the job's
	// partitions, in the order they first ran (see StepTime). They are
	// this job's own circuits' steps, where Prove is its batch's wall
	// time, so they add up to at most Prove. Empty when the backend times
	// no steps (the CUDA backend's one device call).
	ProveSteps []StepTotal `json:"prove_steps,omitempty"`
}

// Result is a job's outcome, or the state it is in when an Await timed
// out.
type Result struct {
	JobID string
	State State
	// Proof is the partition proofs concatenated (192 bytes each); set only
	// when State is StateCompleted.
	Proof []byte
	// Err says why a job failed (StateFailed only).
	Err     error
	Timings Timings
	// Batch identifies the batch the job ran in; jobs proved together
	// share it (0: never admitted).
	Batch uint64
}

// SubmitResult answers Submit.
type SubmitResult struct {
	JobID string
	// QueuePosition is how many queued jobs were ahead of this one (of at
	// least its priority) when it was queued.
	QueuePosition int
	// Attached says the request id matched an existing job, which the
	// caller now shares; nothing new was queued.
	Attached bool
}

// partState is where one partition of a job is.
type partState uint8

const (
	partQueued partState = iota
	partSynthesizing
	partSynthesized
	partProving
	partFinishing
	partDone
	partDropped
)

func (s partState) String() string {
	return [...]string{"queued", "synthesizing", "synthesized", "proving", "finishing", "done", "dropped"}[s]
}

type jobPart struct {
	state     partState
	synthesis time.Duration
	prove     time.Duration
	proof     groth16.Proof
	// entered is when the part entered its state (synthesizing, proving or
	// finishing), proving when it entered proving: the status reports the
	// time so far of a stage still running, not 0 until it ends.
	entered, proving time.Time
}

// enter moves the part to state at now.
func (p *jobPart) enter(state partState, now time.Time) {
	p.state, p.entered = state, now
	if state == partProving {
		p.proving = now
	}
}

type job struct {
	id      string
	kind    proofkind.Descriptor
	prio    proofkind.Priority
	digest  [32]byte
	circuit string
	plan    *Plan

	state State
	// planned is closed when planning ends: the job is then queued, final
	// (cancelled during planning), or gone from the engine with planErr
	// saying why.
	planned chan struct{}
	planErr error
	// planCancel ends the context Plan runs under. It is called when
	// nobody wants the job any more (see wantedLocked), on Cancel and on
	// shutdown; the caller's own context never reaches Plan directly.
	planCancel context.CancelFunc
	// cancelRequested: Cancel came while the job was planning; it ends
	// CANCELLED when planning returns.
	cancelRequested bool
	done            chan struct{} // closed when the state is final
	result          Result

	// holders counts Prove and Await calls waiting on the job; keep says a
	// SubmitProof caller owns it. A Prove call that gives up cancels the
	// job only when neither remains, and then only after the orphan
	// grace (Config.OrphanGrace) if the job has a request id.
	holders   int
	keep      bool
	abandoned bool // a Prove caller gave up on it
	// anonymous: submitted without a request id, so only the submitter
	// knows the job id; lost: such a SubmitProof caller left during
	// planning, so nobody could ever await or cancel the job.
	anonymous bool
	lost      bool
	// submitterLeft: the caller that created the job has given up (its
	// context ended) and its hold is released.
	submitterLeft bool
	// orphanedAt is when the job's last caller left, while it waits out
	// the orphan grace (zero otherwise); orphanTimer ends the grace. A
	// caller that attaches meanwhile stops the timer and clears both.
	// wasOrphaned: the job was orphaned when it ended, so its result is
	// kept for at least the grace.
	orphanedAt  time.Time
	orphanTimer *time.Timer
	wasOrphaned bool
	// keepUntil is when a final job's retained result expires; held is
	// the memory it holds meanwhile (retainedSize).
	keepUntil time.Time
	held      int64

	submitted, started, finished time.Time
	batch                        *batch
	items                        []*item
	parts                        []jobPart
	remaining                    int // partitions not yet proved
	timings                      Timings
	verifier                     *groth16.PreparedVerifyingKey
}

// batch is a group of same-circuit jobs admitted together; partition i of
// each of its jobs is synthesised and proved as one item.
type batch struct {
	seq     uint64
	jobs    int // jobs admitted together
	prio    proofkind.Priority
	circuit string
	active  int // items of the batch in synthesis now
	// urgent: the batch takes the reserved lane and pauses ordinary work
	// (Engine.urgent).
	urgent bool
}

// itemWhere is the stage an item is in.
type itemWhere uint8

const (
	inSynthQueue itemWhere = iota
	inSynthesis
	inReadyQueue
	inProver
	inFinisher
	itemDone
)

// item is the pipeline's unit: partition index of every job of a batch
// that has one.
type item struct {
	batch  *batch
	index  int
	parts  []*itemPart
	live   int
	where  itemWhere
	ctx    context.Context
	cancel context.CancelFunc
	lease  *srs.Lease
	sizes  srs.Sizes
	// gated: an urgent item that holds its memory; ordinary work pauses
	// until it retires.
	gated bool
}

type itemPart struct {
	job     *job
	index   int // partition index in the job
	circuit r1cs.Circuit
	pa      *r1cs.ProvingAssignment
	dropped bool
	// stop is dropped for the synthesising goroutine, which reads it
	// without the engine's lock at its yield points.
	stop atomic.Bool
	held int64 // bytes of the item's reservation that belong to this part
}

// less orders items for synthesis and proving: priority, then batch
// arrival, then partition index.
func (it *item) less(o *item) bool {
	if it.batch.prio != o.batch.prio {
		return it.batch.prio > o.batch.prio
	}
	if it.batch.seq != o.batch.seq {
		return it.batch.seq < o.batch.seq
	}
	return it.index < o.index
}

// partOf returns the item's part for j.
func (it *item) partOf(j *job) *itemPart {
	for _, p := range it.parts {
		if p.job == j {
			return p
		}
	}
	return nil
}
