package porepkind

import (
	"context"
	"errors"
	"fmt"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/c2"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// Planner plans PoRep C2 requests.
type Planner struct {
	// Workers bounds the goroutines of the native C1 check (0: GOMAXPROCS).
	Workers int
	// SkipVanillaCheck skips the native check of the C1's Merkle paths and
	// labels; a bad C1 then fails only at the proof's self-check.
	SkipVanillaCheck bool
	// Partition, when not nil, plans that partition alone, so the job's
	// proof is its 192 bytes (the one-shot prove-c2 --partition). It is
	// the planner's setting, never a request's: Curio sends
	// partition_index 0 for PoRep and means every partition, so the daemon
	// leaves this nil and ignores the field.
	Partition *int
}

// invalid is engine.Invalid of this kind ("porep: ..."); the cause stays
// matchable (porep.ErrVanillaInvalid, c2.ErrReplicaID, ...).
func invalid(format string, args ...any) error { return engine.Invalid("porep", format, args...) }

// NewRequest is the request this planner reads: a C2 of proof from c1, the
// C1 output in Curio's envelope (c1.Wrap), for sector of miner. A miner of
// 0 leaves the proofs checked against the C1's own replica id only; a
// sector of 0 takes the envelope's. oneshot, demo and the tests build
// their requests here rather than by hand.
func NewRequest(proof filecoin.RegisteredSealProof, miner, sector uint64, c1 []byte) *engine.Request {
	return &engine.Request{Kind: proofkind.PoRep, RegisteredProof: uint64(proof), MinerID: miner, SectorNumber: sector, VanillaProof: c1}
}

// RequestFromC1 is NewRequest of the C1 output o, put in Curio's envelope
// for sector as Curio's PoRep task sends it, so that a caller holding a
// sealed sector's C1 need not know the envelope (demo).
func RequestFromC1(o *c1.Output, miner, sector uint64) (*engine.Request, error) {
	wrapped, err := c1.Wrap(o, sector).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("C1 envelope: %w", err)
	}
	return NewRequest(o.RegisteredProof, miner, sector, wrapped), nil
}

// Plan implements engine.Planner.
func (k *Planner) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	proof, err := filecoin.SealProofFromID(req.RegisteredProof)
	if err != nil {
		return nil, invalid("registered_proof: %w", err)
	}
	size := proof.SectorSize()
	if req.SectorSize != 0 && req.SectorSize != uint64(size) {
		return nil, invalid("sector_size %d does not match registered_proof %v (%d bytes)", req.SectorSize, proof, uint64(size))
	}
	if len(req.VanillaProof) == 0 {
		return nil, invalid("vanilla_proof is empty")
	}
	o, w, err := c1.ParseWrapped(req.VanillaProof)
	if err != nil {
		return nil, invalid("vanilla_proof: %w", err)
	}
	if o.RegisteredProof != proof {
		return nil, invalid("registered_proof is %v but the C1 is for %v", proof, o.RegisteredProof)
	}
	if req.SectorNumber != 0 && w.SectorNum != req.SectorNumber {
		return nil, invalid("sector_number %d but the C1 envelope says %d", req.SectorNumber, w.SectorNum)
	}
	cid, err := filecoin.PoRepCircuitID(size)
	if err != nil {
		return nil, invalid("%w", err)
	}
	opt := c2.PlanOptions{Workers: k.Workers, SkipVanillaCheck: k.SkipVanillaCheck, Partition: k.Partition}
	if req.MinerID != 0 {
		// Curio names the miner: the proofs are then checked against exactly
		// the public inputs verify_seal will use.
		opt.Sector = &c2.SectorID{ProverID: filecoin.ProverID(req.MinerID), Number: w.SectorNum}
	}
	parts, err := c2.Plan(ctx, o, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, invalid("C1 check: %w", err)
	}
	plan := &engine.Plan{CircuitID: string(cid), Partitions: make([]engine.Partition, len(parts))}
	for i, p := range parts {
		plan.Partitions[i] = engine.Partition{Circuit: p.Circuit, PublicInputs: p.PublicInputs}
	}
	return plan, nil
}
