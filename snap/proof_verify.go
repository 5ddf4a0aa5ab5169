package snap

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
)

// ErrProofLength is returned when the proof bytes are not one 192-byte
// Groth16 proof per partition of the registered proof.
var ErrProofLength = errors.New("snap: wrong proof length")

// Inputs are the public inputs of every partition of the update proof
// (ONE excluded), from the three commitments alone: partition k's are
// PartitionInputs(k).
func (pub *Public) Inputs() ([][]fr.Element, error) {
	if !pub.Proof.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(pub.Proof))
	}
	out := make([][]fr.Element, pub.Proof.Partitions())
	for k := range out {
		var err error
		if out[k], err = pub.PartitionInputs(k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VerifyProof checks an update proof (192 bytes per partition, every
// partition in order) against the public values alone, as
// verify_empty_sector_update_proof does. A proof that does not verify
// gives (false, nil); malformed input gives an error.
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
		return nil, fmt.Errorf("%w: %d partition proof(s), %v has %d partitions", ErrProofLength, n, pub.Proof, len(inputs))
	}
	bad, err := groth16.InvalidProofs(vk, proof, inputs)
	if err != nil {
		return nil, fmt.Errorf("%v: %w", pub.Proof, err)
	}
	return bad, nil
}

// VerifyFile checks the update proof in proofPath (192 bytes per
// partition) against the verifying key in vkPath, as post.VerifyFile and
// porep.VerifyFile do: the key first, then the proof. It returns the
// partitions that do not verify (none: the proof is valid) and how many
// partition proofs the file holds; an error means the check could not be
// made.
func VerifyFile(vkPath, proofPath string, pub Public) (bad []int, partitions int, err error) {
	vk, proof, err := groth16.ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return nil, 0, err
	}
	bad, err = InvalidPartitions(vk, proof, pub)
	return bad, len(proof) / groth16.ProofSize, err
}

// AllPartitions is VerifyPartitionFile's partition for a check of the
// whole proof.
const AllPartitions = -1

// VerifyPartition checks partition k of an update proof alone against its
// public inputs: proof holds its 192 bytes, or the whole proof, 192 bytes
// per partition, of which it reads bytes [192k, 192k+192). An invalid
// proof is (false, nil); malformed input is an error.
func VerifyPartition(vk *groth16.VerifyingKey, proof []byte, pub Public, k int) (bool, error) {
	p := pub.Proof
	if !p.Valid() {
		return false, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	n := p.Partitions()
	if k < 0 || k >= n {
		return false, fmt.Errorf("%w: %d, %v has %d partition(s), 0 to %d", ErrPartition, k, p, n, n-1)
	}
	switch len(proof) {
	case groth16.ProofSize:
	case n * groth16.ProofSize:
		proof = proof[k*groth16.ProofSize : (k+1)*groth16.ProofSize]
	default:
		return false, fmt.Errorf("%w: %d bytes; want %d (partition %d alone) or %d (the %d partitions of %v)",
			ErrProofLength, len(proof), groth16.ProofSize, k, n*groth16.ProofSize, n, p)
	}
	inputs, err := pub.PartitionInputs(k)
	if err != nil {
		return false, err
	}
	bad, err := groth16.InvalidProofs(vk, proof, [][]fr.Element{inputs})
	if err != nil {
		return false, fmt.Errorf("%v: %w", p, err)
	}
	return len(bad) == 0, nil
}

// VerifyPartitionFile is VerifyFile for partition k alone
// (VerifyPartition), or the whole proof when k is AllPartitions; it
// returns whether the proof is valid.
func VerifyPartitionFile(vkPath, proofPath string, pub Public, k int) (bool, error) {
	if k == AllPartitions {
		bad, _, err := VerifyFile(vkPath, proofPath, pub)
		return err == nil && len(bad) == 0, err
	}
	vk, proof, err := groth16.ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return false, err
	}
	return VerifyPartition(vk, proof, pub, k)
}
