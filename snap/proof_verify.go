package snap

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
)

// ErrProofLength is returned when the proof bytes are not one 192-byte
// Groth16 proof per partition of the registered proof.
var ErrProofLength = errors.New("snap: wrong proof length")

// ProofInputs are the public inputs of every partition of an update
// proof of p (ONE excluded), from the three commitments alone (pub.K is
// ignored): partition k's are PublicInputs with K = k.
func ProofInputs(p filecoin.RegisteredUpdateProof, pub Public) ([][]fr.Element, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	out := make([][]fr.Element, p.Partitions())
	for k := range out {
		pub.K = k
		var err error
		if out[k], err = PublicInputs(p, pub); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VerifyProof checks an update proof (192 bytes per partition, every
// partition in order) against the public values alone, as
// verify_empty_sector_update_proof does (pub.K is ignored). A proof that
// does not verify gives (false, nil); malformed input gives an error.
func VerifyProof(vk *groth16.VerifyingKey, p filecoin.RegisteredUpdateProof, proof []byte, pub Public) (bool, error) {
	bad, err := InvalidPartitions(vk, p, proof, pub)
	return err == nil && len(bad) == 0, err
}

// InvalidPartitions is VerifyProof naming the partitions whose proofs do
// not verify (none: the proof is valid).
func InvalidPartitions(vk *groth16.VerifyingKey, p filecoin.RegisteredUpdateProof, proof []byte, pub Public) ([]int, error) {
	inputs, err := ProofInputs(p, pub)
	if err != nil {
		return nil, err
	}
	if len(proof) == 0 || len(proof)%groth16.ProofSize != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not a whole number of %d-byte Groth16 proofs", ErrProofLength, len(proof), groth16.ProofSize)
	}
	if n := len(proof) / groth16.ProofSize; n != len(inputs) {
		return nil, fmt.Errorf("%w: %d partition proof(s), %v has %d partitions", ErrProofLength, n, p, p.Partitions())
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return nil, err
	}
	pvk, err := groth16.PrepareFor(vk, len(inputs[0]))
	if err != nil {
		return nil, fmt.Errorf("%v: %w", p, err)
	}
	return groth16.InvalidPartitions(pvk, proofs, inputs)
}

// VerifyFile checks the update proof of p in proofPath (192 bytes per
// partition) against the verifying key in vkPath, as post.VerifyFile
// does: the key first, then the proof. It returns the partitions that do
// not verify (none: the proof is valid) and how many partition proofs the
// file holds; an error means the check could not be made.
func VerifyFile(vkPath, proofPath string, p filecoin.RegisteredUpdateProof, pub Public) (bad []int, partitions int, err error) {
	vk, proof, err := groth16.ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return nil, 0, err
	}
	bad, err = InvalidPartitions(vk, p, proof, pub)
	return bad, len(proof) / groth16.ProofSize, err
}
