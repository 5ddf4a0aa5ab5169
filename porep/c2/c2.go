// Package c2 turns a PoRep C1 output into its Groth16 proof (Filecoin's
// seal_commit_phase2): one stacked circuit per partition, proved with the
// parameters of the sector size, each proof checked against the public
// inputs before the 192-byte proofs are concatenated in partition order
// (rust-fil-proofs filecoin-proofs/src/api/seal.rs,
// seal_commit_phase2_circuit_proofs, which also verifies before returning).
//
// Plan is the PoRep side of the one proving path: engine/porepkind calls
// it for every request, the daemon's and the command-line tools' alike
// (they prove through an in-process engine), and the engine proves,
// self-checks and encodes the partitions.
package c2

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/circuit"
)

// Partition is one partition's circuit and the public inputs (ONE
// excluded) its proof must verify against.
type Partition struct {
	Circuit      *circuit.Stacked
	PublicInputs []fr.Element
}

// PlanOptions tune Plan.
type PlanOptions struct {
	// SkipVanillaCheck skips the native check of the C1's Merkle paths and
	// labels (porep.VerifyVanilla). A C1 that does not satisfy the circuit then fails later, as
	// an invalid proof; one whose challenges or parents are not those of
	// its seed and porep_id fails too, because every proof is checked
	// against public inputs derived from public values (see Partition),
	// never against numbers read from the C1.
	SkipVanillaCheck bool
	// Sector, when set, names the sector's prover and number (from the
	// request: Curio sends the miner id and sector number). Plan then
	// checks that the C1's replica_id is the one they imply, and the proofs
	// are checked against exactly verify_seal's public inputs.
	Sector  *SectorID
	Workers int
	// Partition, when not nil, plans that partition alone: Plan returns one
	// Partition, the circuit and public inputs of partition *Partition
	// (prove-c2 --partition), or an error wrapping porep.ErrPartition when
	// the C1 has no such partition. The whole C1 is still checked.
	Partition *int
}

// SectorID identifies a sector for replica_id.
type SectorID struct {
	ProverID [32]byte
	Number   uint64
}

// ErrReplicaID is returned by Plan when the C1's replica_id is not the one
// its sector's prover id, sector number, ticket, comm_d and porep_id give.
var ErrReplicaID = errors.New("c2: replica_id does not match the sector")

// Plan validates a C1 and returns one circuit per partition (or that of
// opt.Partition alone), in partition order. Each
// partition's PublicInputs are recomputed from public values — replica_id,
// comm_d, comm_r, the challenges of the seed and the parents of the
// registered proof's graph — so a proof that passes them would pass
// verify_seal.
func Plan(ctx context.Context, o *c1.Output, opt PlanOptions) ([]Partition, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ks := make([]int, len(o.VanillaProofs))
	for k := range ks {
		ks[k] = k
	}
	if opt.Partition != nil {
		k, n := *opt.Partition, len(o.VanillaProofs)
		if k < 0 || k >= n {
			return nil, fmt.Errorf("%w: partition %d, but the C1 has %d partition(s), 0 to %d", porep.ErrPartition, k, n, n-1)
		}
		ks = []int{k}
	}
	if !opt.SkipVanillaCheck {
		if err := porep.VerifyVanilla(ctx, o, opt.Workers); err != nil {
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
	parts := make([]Partition, len(ks))
	for i, k := range ks {
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
		parts[i] = Partition{Circuit: s, PublicInputs: inputs}
	}
	return parts, nil
}
