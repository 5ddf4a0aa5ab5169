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
