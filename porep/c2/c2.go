// Package c2 turns a PoRep C1 output into its Groth16 proof (Filecoin's
// seal_commit_phase2): one stacked circuit per partition, proved with the
// parameters of the sector size, each proof checked against the public
// inputs before the 192-byte proofs are concatenated in partition order
// (rust-fil-proofs filecoin-proofs/src/api/seal.rs,
// seal_commit_phase2_circuit_proofs, which also verifies before returning).
//
// The engine uses Plan and proves partitions itself; Prove is the one-shot
// path of the command-line tools.
package c2

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/circuit"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Partition is one partition's circuit and the public inputs (ONE
// excluded) its proof must verify against.
type Partition struct {
	Circuit      *circuit.Stacked
	PublicInputs []fr.Element
}

// PlanOptions tune Plan.
type PlanOptions struct {
	// SkipSelfCheck skips the native check of the C1's Merkle paths and
	// labels. A C1 that does not satisfy the circuit then fails later, as
	// an invalid proof; one whose challenges or parents are not those of
	// its seed and porep_id fails too, because every proof is checked
	// against public inputs derived from public values (see Partition),
	// never against numbers read from the C1.
	SkipSelfCheck bool
	// Sector, when set, names the sector's prover and number (from the
	// request: Curio sends the miner id and sector number). Plan then
	// checks that the C1's replica_id is the one they imply, and the proofs
	// are checked against exactly verify_seal's public inputs.
	Sector  *SectorID
	Workers int
}

// SectorID identifies a sector for replica_id.
type SectorID struct {
	ProverID [32]byte
	Number   uint64
}

// ErrReplicaID: the C1's replica_id is not the one its sector's prover id,
// sector number, ticket, comm_d and porep_id give.
var ErrReplicaID = errors.New("c2: replica_id does not match the sector")

// Plan validates a C1 and returns one circuit per partition. Each
// partition's PublicInputs are recomputed from public values — replica_id,
// comm_d, comm_r, the challenges of the seed and the parents of the
// registered proof's graph — so a proof that passes them would pass
// verify_seal.
func Plan(ctx context.Context, o *c1.Output, opt PlanOptions) ([]Partition, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if !opt.SkipSelfCheck {
		if err := porep.SelfCheck(ctx, o, opt.Workers); err != nil {
			return nil, err
		}
	}
	shape, err := circuit.DimsOf(o.RegisteredProof)
	if err != nil {
		return nil, err
	}
	cfg, err := porep.ConfigFor(o.RegisteredProof)
	if err != nil {
		return nil, err
	}
	pub := porep.SealPublic{Config: cfg, CommR: o.CommR, CommD: o.CommD, Ticket: o.Ticket, Seed: o.Seed}
	if opt.Sector != nil {
		pub.ProverID, pub.Sector = opt.Sector.ProverID, opt.Sector.Number
		if id := pub.ReplicaID(); id != o.ReplicaID {
			return nil, fmt.Errorf("%w: the C1 has %x, prover id %x with sector %d give %x",
				ErrReplicaID, o.ReplicaID, opt.Sector.ProverID, opt.Sector.Number, id)
		}
	}
	g, err := cfg.Graph()
	if err != nil {
		return nil, err
	}
	parts := make([]Partition, len(o.VanillaProofs))
	for k := range parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		in, err := porep.ValidatedCircuitInputs(o, k)
		if err != nil {
			return nil, err
		}
		s, err := circuit.New(shape, in)
		if err != nil {
			return nil, err
		}
		challenges, err := cfg.Challenges(o.ReplicaID, o.CommR, o.Seed, k)
		if err != nil {
			return nil, err
		}
		inputs, err := porep.PartitionPublicInputs(g, o.ReplicaID, o.CommD, o.CommR, challenges)
		if err != nil {
			return nil, err
		}
		parts[k] = Partition{Circuit: s, PublicInputs: inputs}
	}
	return parts, nil
}

// Times says where a C2's time went.
type Times struct {
	Synthesis time.Duration
	Prove     time.Duration // Start + Finish
	Start     time.Duration // H (FFTs) and the G1 multi-exponentiations
	Finish    time.Duration // the G2 multi-exponentiation and assembly
	Verify    time.Duration
}

// ErrSelfCheck: a proof did not verify against its public inputs (a C1 that
// does not satisfy the circuit, or parameters that do not match the
// verifying key). No proof bytes are returned.
var ErrSelfCheck = errors.New("c2: proof failed verification")

// ProveOptions tune Prove.
type ProveOptions struct {
	Workers int
	// Randomness fixes (r, s) per partition for byte-exact comparisons with
	// bellperson's create_proof_batch; nil draws fresh randomness (always,
	// in production).
	Randomness []groth16.Randomness
}

// Prove synthesises, proves and verifies every partition, one at a time
// (peak memory is one partition's working set), and returns the
// concatenated proofs.
func Prove(ctx context.Context, p *groth16.Params, pvk *groth16.PreparedVerifyingKey, parts []Partition, opt ProveOptions) ([]byte, Times, error) {
	var times Times
	rnd := opt.Randomness
	if rnd == nil {
		var err error
		if rnd, err = groth16.RandomRandomness(len(parts)); err != nil {
			return nil, times, err
		}
	}
	if len(rnd) != len(parts) {
		return nil, times, fmt.Errorf("c2: %d randomness pairs for %d partitions", len(rnd), len(parts))
	}
	m := len(p.H) + 1
	hint := r1cs.Size{Constraints: m, Inputs: len(p.VK.IC), Aux: len(p.L)}
	var densities *r1cs.Densities
	proofs := make([]groth16.Proof, len(parts))
	for k, part := range parts {
		t0 := time.Now()
		var pa *r1cs.ProvingAssignment
		if densities == nil {
			pa = r1cs.NewProvingAssignment(hint)
		} else {
			pa = r1cs.NewTemplatedAssignment(hint, densities)
		}
		cs, err := r1cs.Synthesize(part.Circuit, pa)
		if err != nil {
			return nil, times, fmt.Errorf("c2: partition %d: %w", k, err)
		}
		cs.AppendInputRows()
		densities = pa.Density
		t1 := time.Now()
		times.Synthesis += t1.Sub(t0)
		pend, err := groth16.Start(ctx, p, []*r1cs.ProvingAssignment{pa}, rnd[k:k+1], groth16.ProveOptions{Workers: opt.Workers})
		if err != nil {
			return nil, times, fmt.Errorf("c2: partition %d: %w", k, err)
		}
		tStart := time.Now()
		ps, err := pend.Finish(ctx)
		if err != nil {
			return nil, times, fmt.Errorf("c2: partition %d: %w", k, err)
		}
		t2 := time.Now()
		times.Start += tStart.Sub(t1)
		times.Finish += t2.Sub(tStart)
		times.Prove += t2.Sub(t1)
		ok, err := groth16.Verify(pvk, &ps[0], part.PublicInputs)
		times.Verify += time.Since(t2)
		if err != nil {
			return nil, times, fmt.Errorf("c2: partition %d: %w", k, err)
		}
		if !ok {
			return nil, times, fmt.Errorf("%w: partition %d", ErrSelfCheck, k)
		}
		proofs[k] = ps[0]
	}
	return groth16.EncodeProofs(proofs), times, nil
}
