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

// SealPublic is everything a verifier knows about a sealed sector.
type SealPublic struct {
	Config   Config
	CommR    [32]byte
	CommD    [32]byte
	ProverID [32]byte
	Sector   uint64
	Ticket   [32]byte
	Seed     [32]byte
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
// in partition order) against the public values alone, as verify_seal does:
// it derives replica_id, the challenges and their parents, lays out the
// public inputs of every partition and batch-verifies the proofs. A proof
// that does not verify gives (false, nil); malformed inputs give an error.
func VerifySeal(vk *groth16.VerifyingKey, proof []byte, public SealPublic) (bool, error) {
	if err := public.Check(); err != nil {
		return false, err
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return false, err
	}
	return VerifySealPrepared(pvk, proof, public)
}

// VerifySealPrepared is VerifySeal with a prepared verifying key, for
// callers that verify many seals of one size.
func VerifySealPrepared(pvk *groth16.PreparedVerifyingKey, proof []byte, public SealPublic) (bool, error) {
	if err := public.Check(); err != nil {
		return false, err
	}
	if public.Config.Mode == filecoin.NonInteractive {
		return false, fmt.Errorf("%w: NI-PoRep seal proofs are aggregated", ErrUnsupported)
	}
	parts := public.Config.Partitions()
	if len(proof) != parts*groth16.ProofSize {
		return false, fmt.Errorf("%w: %d bytes, want %d partitions of %d", ErrProofLength, len(proof), parts, groth16.ProofSize)
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return false, fmt.Errorf("porep: seal proof: %w", err)
	}
	inputs, err := public.AllPublicInputs()
	if err != nil {
		return false, err
	}
	return groth16.VerifyBatch(pvk, proofs, inputs, nil)
}

// VerifySealPartition checks the proof of partition k alone against its
// public inputs (generate_public_inputs with Some(k)), so that one
// partition of a long proof can be checked, or one proven alone. proof is
// either that partition's 192 bytes or the whole seal proof, of which the
// 192 bytes at 192·k are taken.
func VerifySealPartition(vk *groth16.VerifyingKey, proof []byte, public SealPublic, k int) (bool, error) {
	if err := public.Check(); err != nil {
		return false, err
	}
	if public.Config.Mode == filecoin.NonInteractive {
		return false, fmt.Errorf("%w: NI-PoRep seal proofs are aggregated", ErrUnsupported)
	}
	if err := public.Config.checkPartition(k); err != nil {
		return false, err
	}
	parts := public.Config.Partitions()
	switch len(proof) {
	case groth16.ProofSize:
	case parts * groth16.ProofSize:
		proof = proof[k*groth16.ProofSize : (k+1)*groth16.ProofSize]
	default:
		return false, fmt.Errorf("%w: %d bytes, want %d (partition %d alone) or %d (%d partitions)", ErrProofLength,
			len(proof), groth16.ProofSize, k, parts*groth16.ProofSize, parts)
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return false, fmt.Errorf("porep: seal proof of partition %d: %w", k, err)
	}
	inputs, err := public.PublicInputs(k)
	if err != nil {
		return false, err
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return false, err
	}
	return groth16.Verify(pvk, &proofs[0], inputs)
}
