package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// Errors callers (the gRPC server) must tell apart.
var (
	// ErrInvalidRequest is returned when the request itself is wrong (malformed vanilla
	// proof, sector size that does not match the registered proof, ...).
	// Kinds wrap it.
	ErrInvalidRequest = errors.New("invalid request")
	// ErrUnknownKind is returned when no Kind is registered for the request's proof kind.
	ErrUnknownKind = errors.New("invalid proof_kind")
	// ErrJobNotFound is returned when no job with that id is queued, running or retained.
	ErrJobNotFound = errors.New("job not found")
	// ErrRequestIDConflict is returned when a job with the same request id but different
	// content is still queued or running.
	ErrRequestIDConflict = errors.New("request_id is in use by a different request")
	// ErrShuttingDown is returned when the engine no longer accepts work, or a job was
	// aborted because the daemon stopped before it finished.
	ErrShuttingDown = errors.New("engine is shutting down")
	// ErrTooManyJobs is returned when Config.MaxPending jobs are already planning, queued
	// or running; the request is refused (retry later).
	ErrTooManyJobs = errors.New("too many pending jobs")
	// ErrIntakeFull is returned when taking the request would make the
	// bytes of requests waiting to be planned or being planned exceed
	// Config.MaxIntakeBytes; the request is refused (retry later).
	ErrIntakeFull = errors.New("too many request bytes in intake")
	// ErrSelfCheck is the failure of a job whose proof does not verify
	// against the public inputs its Kind derived: the job fails and no proof
	// bytes are returned.
	ErrSelfCheck = prover.ErrSelfCheck
	// ErrExceedsBudget is returned when the job needs more memory than the whole budget.
	ErrExceedsBudget = budget.ErrExceedsBudget
	// ErrParamsNotFound is returned when the circuit's parameter file is missing.
	ErrParamsNotFound = srs.ErrParamsNotFound
	// ErrUnknownCircuit is returned when a Kind planned a circuit id no locator knows.
	ErrUnknownCircuit = srs.ErrUnknownCircuit
	// ErrParamsInUse is returned by EvictParams when a job holds the
	// parameters.
	ErrParamsInUse = srs.ErrInUse
)

// ProofKind is the proof family of a request. The values of the four
// Filecoin kinds equal the cuzk.v1 ProofKind wire values.
type ProofKind int32

// Proof kinds.
const (
	ProofKindUnspecified ProofKind = 0
	ProofKindPoRep       ProofKind = 1 // POREP_SEAL_COMMIT (C2)
	ProofKindSnapDeals   ProofKind = 2 // SNAP_DEALS_UPDATE
	ProofKindWindowPoSt  ProofKind = 3 // WINDOW_POST_PARTITION
	ProofKindWinningPoSt ProofKind = 4 // WINNING_POST
	// ProofKindTest selects the built-in test circuits. Its wire value,
	// 1000, lies far outside Curio's enum (0..4), so no Filecoin request
	// can carry it by accident, and the daemon registers a Kind for it only
	// when started with --enable-test-circuits; otherwise it is rejected
	// like any unknown kind.
	ProofKindTest ProofKind = 1000
)

// String is the queue name of the kind, as the Rust cuzk reports it in
// GetStatus ("porep-c2", "snap-update", "window-post", "winning-post").
func (k ProofKind) String() string {
	switch k {
	case ProofKindPoRep:
		return "porep-c2"
	case ProofKindSnapDeals:
		return "snap-update"
	case ProofKindWindowPoSt:
		return "window-post"
	case ProofKindWinningPoSt:
		return "winning-post"
	case ProofKindTest:
		return "test"
	}
	return "ProofKind(" + strconv.Itoa(int(k)) + ")"
}

// MetricLabel is the proof_kind label of the Rust cuzk's metrics
// ("porep_c2", ...).
func (k ProofKind) MetricLabel() string {
	switch k {
	case ProofKindPoRep:
		return "porep_c2"
	case ProofKindSnapDeals:
		return "snap_update"
	case ProofKindWindowPoSt:
		return "window_post"
	case ProofKindWinningPoSt:
		return "winning_post"
	case ProofKindTest:
		return "test"
	}
	return "unknown"
}

// DefaultPriority is the priority of a request that names none.
func (k ProofKind) DefaultPriority() Priority {
	switch k {
	case ProofKindWinningPoSt:
		return PriorityCritical
	case ProofKindWindowPoSt:
		return PriorityHigh
	}
	return PriorityNormal
}

// Batchable says whether same-circuit requests of the kind may be proved
// together. PoSt never is: its deadlines do not allow waiting for company.
func (k ProofKind) Batchable() bool {
	return k == ProofKindPoRep || k == ProofKindSnapDeals || k == ProofKindTest
}

// Priority orders jobs; higher runs first.
type Priority int

// Priorities; the values equal the cuzk.v1 Priority wire values.
const (
	PriorityUnspecified Priority = 0
	PriorityLow         Priority = 1
	PriorityNormal      Priority = 2
	PriorityHigh        Priority = 3
	PriorityCritical    Priority = 4
)

// PriorityFromWire maps a wire value: unknown values are NORMAL, as in the
// Rust cuzk; 0 stays unspecified (the kind's default applies).
func PriorityFromWire(v int32) Priority {
	switch p := Priority(v); p {
	case PriorityUnspecified, PriorityLow, PriorityNormal, PriorityHigh, PriorityCritical:
		return p
	}
	return PriorityNormal
}

// String names the priority.
func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityNormal:
		return "normal"
	case PriorityHigh:
		return "high"
	case PriorityCritical:
		return "critical"
	}
	return "unspecified"
}

// Request is a decoded SubmitProofRequest. Fields that do not belong to the
// request's kind are ignored by its Kind.
type Request struct {
	// RequestID is the idempotency key and becomes the job id; empty lets
	// the engine choose one.
	RequestID       string
	Kind            ProofKind
	Priority        Priority
	SectorSize      uint64
	RegisteredProof uint64

	VanillaProof  []byte   // PoRep: the C1 output in Curio's JSON wrapper
	VanillaProofs [][]byte // PoSt: one per sector; SnapDeals: one per partition

	SectorNumber   uint64
	MinerID        uint64
	Randomness     []byte
	PartitionIndex uint32

	CommROld, CommRNew, CommDNew []byte

	// IDPrefix is put in front of the job id, RequestID or generated
	// alike, so callers in different namespaces (the server's
	// authenticated callers) never attach to, await or cancel each
	// other's jobs. The job id the engine returns carries it.
	IDPrefix string
}

// size is the bytes the request holds: its byte fields, which is what a
// large request consists of.
func (r *Request) size() int64 {
	n := len(r.RequestID) + len(r.VanillaProof) + len(r.Randomness) + len(r.CommROld) + len(r.CommRNew) + len(r.CommDNew)
	for _, v := range r.VanillaProofs {
		n += len(v)
	}
	return int64(n)
}

// digest identifies the request's content (everything but RequestID and
// Priority), so a resubmission with the same id can be told from a
// different request reusing it.
func (r *Request) digest() [32]byte {
	h := sha256.New()
	var b [8]byte
	u := func(v uint64) { binary.LittleEndian.PutUint64(b[:], v); h.Write(b[:]) }
	bs := func(v []byte) { u(uint64(len(v))); h.Write(v) }
	u(uint64(r.Kind))
	u(r.SectorSize)
	u(r.RegisteredProof)
	bs(r.VanillaProof)
	u(uint64(len(r.VanillaProofs)))
	for _, v := range r.VanillaProofs {
		bs(v)
	}
	u(r.SectorNumber)
	u(r.MinerID)
	bs(r.Randomness)
	u(uint64(r.PartitionIndex))
	bs(r.CommROld)
	bs(r.CommRNew)
	bs(r.CommDNew)
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// Kind turns requests of one proof kind into partition circuits. Plan
// validates the request fully and returns errors wrapping ErrInvalidRequest
// for anything wrong with it. It runs on the submitting caller's goroutine,
// before the job is queued. ctx carries the caller's values but ends only
// when nobody wants the job any more (every caller left, Cancel, or
// shutdown). A panic in Plan is recovered and rejects the request.
type Kind interface {
	Plan(ctx context.Context, req *Request) (*Plan, error)
}

// KindFunc adapts a function to Kind.
type KindFunc func(ctx context.Context, req *Request) (*Plan, error)

// Plan implements Kind.
func (f KindFunc) Plan(ctx context.Context, req *Request) (*Plan, error) { return f(ctx, req) }

// Plan is what proving a request takes.
type Plan struct {
	// CircuitID selects the parameters and is the batching key
	// ("porep-32g", "test-k12").
	CircuitID string
	// Partitions are proved one Groth16 proof each; the job's proof is
	// their 192-byte proofs concatenated in this order.
	Partitions []Partition
}

// Partition is one circuit to prove.
type Partition struct {
	Circuit r1cs.Circuit
	// PublicInputs are what the proof must verify against (ONE excluded);
	// the self-check uses them.
	PublicInputs []fr.Element
}

func (p *Plan) validate() error {
	if p == nil || p.CircuitID == "" {
		return errors.New("kind returned a plan without a circuit id")
	}
	if len(p.Partitions) == 0 {
		return fmt.Errorf("kind returned a plan for %s without partitions", p.CircuitID)
	}
	for i := range p.Partitions {
		if p.Partitions[i].Circuit == nil {
			return fmt.Errorf("kind returned a plan for %s whose partition %d has no circuit", p.CircuitID, i)
		}
	}
	return nil
}
