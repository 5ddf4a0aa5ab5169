package engine

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/proofkind"
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
	// ErrUnknownKind is returned when no Planner is registered for the request's proof kind.
	ErrUnknownKind = errors.New("invalid proof_kind")
	// ErrJobNotFound is returned when no job with that id is queued, running or retained.
	ErrJobNotFound = errors.New("job not found")
	// ErrRequestIDConflict is returned when a job with the same request id but different
	// content is still queued or running.
	ErrRequestIDConflict = errors.New("request_id is in use by a different request")
	// ErrShuttingDown is returned when the engine no longer accepts work, or a job was
	// aborted because the daemon stopped before it finished.
	ErrShuttingDown = errors.New("engine is shutting down")
	// ErrDraining is returned for a request that arrives, or is still being
	// planned, once Shutdown has begun: the engine finishes the jobs it holds
	// and takes no new ones, so the caller should send the request to another
	// daemon. It matches ErrShuttingDown as well.
	ErrDraining = fmt.Errorf("%w: draining, no new jobs", ErrShuttingDown)
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
	// ErrParamsUnusable is wrapped by every error caused by a circuit's
	// parameter files (ErrParamsNotFound included): a job meeting one ends
	// FAILED with it, whether at planning or at loading.
	ErrParamsUnusable = srs.ErrParamsUnusable
	// ErrUnknownCircuit is returned when a Kind planned a circuit id no locator knows.
	ErrUnknownCircuit = srs.ErrUnknownCircuit
	// ErrParamsInUse is returned by EvictParams when a job holds the
	// parameters.
	ErrParamsInUse = srs.ErrInUse
)

// Request is a decoded SubmitProofRequest. Fields that do not belong to the
// request's kind are ignored by its Kind.
type Request struct {
	// RequestID is the idempotency key and becomes the job id; empty lets
	// the engine choose one.
	RequestID string
	Kind      proofkind.Kind
	// Priority is the request's; proofkind.PriorityUnspecified, or a value no
	// priority has, gets the kind's (proofkind.Descriptor.EffectivePriority).
	Priority        proofkind.Priority
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

// Planner turns requests of one proof kind into partition circuits. Plan
// validates the request fully and returns errors wrapping ErrInvalidRequest
// for anything wrong with it. It runs on the submitting caller's goroutine,
// before the job is queued. ctx carries the caller's values but ends only
// when nobody wants the job any more (every caller left, Cancel, or
// shutdown). A panic in Plan is recovered and rejects the request.
type Planner interface {
	Plan(ctx context.Context, req *Request) (*Plan, error)
}

// PlannerFunc adapts a function to Planner.
type PlannerFunc func(ctx context.Context, req *Request) (*Plan, error)

// Plan implements Planner.
func (f PlannerFunc) Plan(ctx context.Context, req *Request) (*Plan, error) { return f(ctx, req) }

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
