package porep

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/graph"
)

// InputsPerChallenge is the number of public inputs each challenge adds:
// the tree_d path, 6 DRG and 8 expander parent paths, the challenge, the
// tree_r_last path and the tree_c path of the challenged column.
const InputsPerChallenge = 18

// SealPublic is everything a verifier knows about a sealed sector. Config
// stands for the registered seal proof (ConfigFor), or for a porep_id no
// registered proof has.
type SealPublic struct {
	Config   Config
	CommR    [32]byte
	CommD    [32]byte
	ProverID [32]byte
	Sector   uint64
	Ticket   [32]byte
	Seed     [32]byte
	// Partition, when not nil, is the one partition a proof holds (a
	// partition proven or checked alone, prove-c2 and verify-seal
	// --partition); nil means every partition, in order.
	Partition *int
}

// Partitions is the number of partition proofs the values make.
func (p *SealPublic) Partitions() int {
	if p.Partition != nil {
		return 1
	}
	return p.Config.Partitions()
}

// Inputs are the public inputs of the proof's partitions (ONE excluded):
// every partition's (get_seal_inputs), or Partition's alone
// (generate_public_inputs with Some(k)).
func (p *SealPublic) Inputs() ([][]fr.Element, error) {
	if p.Partition != nil {
		if err := p.Config.checkPartition(*p.Partition); err != nil {
			return nil, err
		}
		return p.publicInputs([]int{*p.Partition})
	}
	return p.AllPublicInputs()
}

// Check rejects all-zero and non-canonical commitments, as verify_seal and
// get_seal_inputs do, and an invalid Config.
func (p *SealPublic) Check() error {
	if err := p.Config.Validate(); err != nil {
		return err
	}
	for _, c := range [...]struct {
		name string
		v    *[32]byte
	}{{"comm_d", &p.CommD}, {"comm_r", &p.CommR}} {
		if *c.v == [32]byte{} {
			return fmt.Errorf("%s: %w", c.name, ErrZeroCommitment)
		}
		if _, err := fr32.ToElement(*c.v); err != nil {
			return fmt.Errorf("%s: %w", c.name, ErrNonCanonical)
		}
	}
	return nil
}

// ReplicaID is the sector's replica_id.
func (p *SealPublic) ReplicaID() [32]byte {
	return ReplicaID(p.ProverID, p.Sector, p.Ticket, p.CommD, p.Config.PoRepID)
}

// PublicInputs are the public inputs of partition k, ONE excluded
// (StackedCompound::generate_public_inputs).
func (p *SealPublic) PublicInputs(k int) ([]fr.Element, error) {
	all, err := p.publicInputs([]int{k})
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// AllPublicInputs are the public inputs of every partition (get_seal_inputs).
func (p *SealPublic) AllPublicInputs() ([][]fr.Element, error) {
	ks := make([]int, p.Config.Partitions())
	for i := range ks {
		ks[i] = i
	}
	return p.publicInputs(ks)
}

func (p *SealPublic) publicInputs(ks []int) ([][]fr.Element, error) {
	if err := p.Check(); err != nil {
		return nil, err
	}
	g, err := p.Config.Graph()
	if err != nil {
		return nil, err
	}
	replicaID := p.ReplicaID()
	out := make([][]fr.Element, len(ks))
	for i, k := range ks {
		cs, err := p.Config.Challenges(replicaID, p.CommR, p.Seed, k)
		if err != nil {
			return nil, err
		}
		if out[i], err = PartitionPublicInputs(g, replicaID, p.CommD, p.CommR, cs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PartitionPublicInputs lays out the public inputs of one partition: the
// three commitments, then for each challenge c its tree_d path, the paths of
// its 6 DRG and 8 expander parents in g, c itself, its tree_r_last path and
// its tree_c path. A path input is the opened leaf index.
func PartitionPublicInputs(g *graph.Graph, replicaID, commD, commR [32]byte, challenges []uint64) ([]fr.Element, error) {
	out := make([]fr.Element, 3, 3+InputsPerChallenge*len(challenges))
	for i, c := range [...]struct {
		name string
		v    [32]byte
	}{{"replica_id", replicaID}, {"comm_d", commD}, {"comm_r", commR}} {
		e, err := fr32.ToElement(c.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, ErrNonCanonical)
		}
		out[i] = e
	}
	var parents [graph.Degree]uint32
	push := func(v uint64) {
		var e fr.Element
		e.SetUint64(v)
		out = append(out, e)
	}
	for _, c := range challenges {
		if err := g.CheckNode(c); err != nil {
			return nil, fmt.Errorf("challenge: %w", err)
		}
		g.Parents(uint32(c), parents[:])
		push(c)
		for _, q := range parents {
			push(uint64(q))
		}
		push(c)
		push(c)
		push(c)
	}
	return out, nil
}

// VerifySeal checks a seal proof (one 192-byte Groth16 proof per partition,
// in partition order; Partition's alone when set) against the public
// values alone, as verify_seal does: it derives replica_id, the challenges
// and their parents, lays out the public inputs of every partition and
// batch-verifies the proofs. A proof that does not verify gives (false,
// nil); malformed inputs give an error.
func VerifySeal(vk *groth16.VerifyingKey, proof []byte, public SealPublic) (bool, error) {
	bad, err := InvalidPartitions(vk, proof, public)
	return err == nil && len(bad) == 0, err
}

// InvalidPartitions is VerifySeal naming the partitions whose proofs do
// not verify, by their position in proof (none: the proof is valid). With
// Partition set, proof is that partition's 192 bytes or the whole seal
// proof, of which the 192 bytes at 192·k are taken.
func InvalidPartitions(vk *groth16.VerifyingKey, proof []byte, public SealPublic) ([]int, error) {
	if err := public.Check(); err != nil {
		return nil, err
	}
	if public.Config.Mode == filecoin.NonInteractive {
		return nil, fmt.Errorf("%w: NI-PoRep seal proofs are aggregated", ErrUnsupported)
	}
	parts := public.Config.Partitions()
	if k := public.Partition; k != nil {
		if err := public.Config.checkPartition(*k); err != nil {
			return nil, err
		}
		switch len(proof) {
		case groth16.ProofSize:
		case parts * groth16.ProofSize:
			proof = proof[*k*groth16.ProofSize : (*k+1)*groth16.ProofSize]
		default:
			return nil, fmt.Errorf("%w: %d bytes, want %d (partition %d alone) or %d (%d partitions)", ErrProofLength,
				len(proof), groth16.ProofSize, *k, parts*groth16.ProofSize, parts)
		}
	} else if len(proof) != parts*groth16.ProofSize {
		return nil, fmt.Errorf("%w: %d bytes, want %d partitions of %d", ErrProofLength, len(proof), parts, groth16.ProofSize)
	}
	inputs, err := public.Inputs()
	if err != nil {
		return nil, err
	}
	bad, err := groth16.InvalidProofs(vk, proof, inputs)
	if err != nil {
		return nil, fmt.Errorf("porep: seal proof: %w", err)
	}
	return bad, nil
}
