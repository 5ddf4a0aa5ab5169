package post

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
)

// Errors of the proof verifier (VerifyProof); they do not wrap
// ErrInvalidProof, which is about vanilla proofs.
var (
	// ErrPublic is returned when the public values do not describe a
	// proof of the registered proof: no sectors, too many for a
	// WinningPoSt, a partition index out of range.
	ErrPublic = errors.New("post: public values do not fit the proof")
	// ErrProofLength is returned when the proof bytes are not one 192-byte
	// Groth16 proof per partition the public values make.
	ErrProofLength = errors.New("post: wrong proof length")
)

// Public are the public values a FallbackPoSt verifier knows, as
// verify_window_post and verify_winning_post take them.
type Public struct {
	Proof      filecoin.RegisteredPoStProof
	Randomness [32]byte
	// Sectors are the proven sectors in order: for a WindowPoSt every
	// sector of the proof, which falls into partitions of
	// Proof.SectorCount(); for a WinningPoSt the one challenged sector.
	Sectors []PublicSector
	// Partition is the index of the proof's first partition: k for the
	// one-partition proof of WindowPoSt partition k (before V1_2 it numbers
	// the sectors in the challenges), 0 for a whole proof.
	Partition int
}

// NewPublic are the public values of a proof of the sectors whose vanilla
// proofs are vs, in their order, as the verifier will know them: each
// sector's id and comm_r (which the vanilla proofs carry), the randomness
// and partition k (Public.Partition).
func NewPublic(p filecoin.RegisteredPoStProof, randomness [32]byte, k int, vs []*VanillaProof) Public {
	pub := Public{Proof: p, Randomness: randomness, Partition: k, Sectors: make([]PublicSector, len(vs))}
	for i, v := range vs {
		pub.Sectors[i] = PublicSector{ID: v.SectorID, CommR: v.CommR}
	}
	return pub
}

// Partitions is the number of partition proofs the public values make.
func (pub *Public) Partitions() int {
	if pub.Proof.Type() == filecoin.WinningPoSt {
		return 1
	}
	per := pub.Proof.SectorCount()
	return (len(pub.Sectors) + per - 1) / per
}

// Inputs are the public inputs of every partition proof (ONE excluded),
// from the public values alone: WinningPoSt, the one sector repeated for
// its 66 unrolled challenges; WindowPoSt, the sectors in partitions of the
// circuit's sector count, each padded with its last sector as upstream
// pads.
func (pub *Public) Inputs() ([][]fr.Element, error) {
	p := pub.Proof
	if err := checkProof(p); err != nil {
		return nil, err
	}
	k := pub.Partition
	if k < 0 {
		return nil, fmt.Errorf("%w: partition %d: must be >= 0", ErrPublic, k)
	}
	if len(pub.Sectors) == 0 {
		return nil, fmt.Errorf("%w: no sectors", ErrPublic)
	}
	if p.Type() == filecoin.WinningPoSt {
		if k != 0 {
			return nil, fmt.Errorf("%w: partition %d: %v has partition 0 only", ErrPublic, k, p)
		}
		if len(pub.Sectors) != p.SectorCount() {
			return nil, fmt.Errorf("%w: %v proves %d sector, got %d", ErrPublic, p, p.SectorCount(), len(pub.Sectors))
		}
		in, err := PublicInputs(p, pub.Randomness, WinningPublicSectors(p, pub.Sectors[0]), 0)
		if err != nil {
			return nil, err
		}
		return [][]fr.Element{in}, nil
	}
	n, per := pub.Partitions(), p.SectorCount()
	if n > 1 && k != 0 {
		return nil, fmt.Errorf("%w: partition %d with %d sectors (%d partitions): a whole proof numbers its partitions from 0", ErrPublic, k, len(pub.Sectors), n)
	}
	out := make([][]fr.Element, n)
	for j := range out {
		var err error
		if out[j], err = PublicInputs(p, pub.Randomness, pub.Sectors[j*per:min((j+1)*per, len(pub.Sectors))], k+j); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VerifyProof checks a PoSt proof (192 bytes per partition, in partition
// order) against the public values alone, as verify_window_post and
// verify_winning_post do. A proof that does not verify gives (false, nil);
// malformed input gives an error.
func VerifyProof(vk *groth16.VerifyingKey, proof []byte, pub Public) (bool, error) {
	bad, err := InvalidPartitions(vk, proof, pub)
	return err == nil && len(bad) == 0, err
}

// InvalidPartitions is VerifyProof naming the partitions whose proofs do
// not verify (none: the proof is valid).
func InvalidPartitions(vk *groth16.VerifyingKey, proof []byte, pub Public) ([]int, error) {
	inputs, err := pub.Inputs()
	if err != nil {
		return nil, err
	}
	if len(proof) == 0 || len(proof)%groth16.ProofSize != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a whole number of %d-byte Groth16 proofs", ErrProofLength, len(proof), groth16.ProofSize)
	}
	if n := len(proof) / groth16.ProofSize; n != len(inputs) {
		p := pub.Proof
		if p.Type() == filecoin.WinningPoSt {
			return nil, fmt.Errorf("%w: %v proves %d sector in one 192-byte proof; got %d proof(s)", ErrProofLength, p, p.SectorCount(), n)
		}
		return nil, fmt.Errorf("%w: %d sectors make %d partition(s) of up to %d for %v; the proof has %d partition proof(s)",
			ErrProofLength, len(pub.Sectors), len(inputs), p.SectorCount(), p, n)
	}
	bad, err := groth16.InvalidProofs(vk, proof, inputs)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", pub.Proof, err)
	}
	return bad, nil
}

// VerifyFile checks the proof in proofPath (192 bytes per partition)
// against the verifying key in vkPath, as seal.VerifyFile does: the key is
// read first, so that a missing parameter is told before a missing proof.
// It returns the partitions that do not verify (none: the proof is valid)
// and how many partition proofs the file holds, for a report to name the
// bad ones only when there are several; an error means the check could
// not be made.
func VerifyFile(vkPath, proofPath string, pub Public) (bad []int, partitions int, err error) {
	vk, proof, err := groth16.ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return nil, 0, err
	}
	bad, err = InvalidPartitions(vk, proof, pub)
	return bad, len(proof) / groth16.ProofSize, err
}
