package prover

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
)

// RandomnessSource draws the blinding pair (r, s) of each proof. Every
// production proof gets a fresh pair (Fresh); a fixed pair (Fixed) exists
// only so that tests and `cuzk prove-c2 --r --s` can compare proofs byte for
// byte with bellperson's create_proof_batch.
type RandomnessSource interface {
	Randomness(n int) ([]groth16.Randomness, error)
}

// Fresh draws independent pairs from crypto/rand.
var Fresh RandomnessSource = fresh{}

type fresh struct{}

func (fresh) Randomness(n int) ([]groth16.Randomness, error) { return groth16.RandomRandomness(n) }

// Fixed gives every proof the same pair.
type Fixed groth16.Randomness

// Randomness implements RandomnessSource.
func (f Fixed) Randomness(n int) ([]groth16.Randomness, error) {
	out := make([]groth16.Randomness, n)
	for i := range out {
		out[i] = groth16.Randomness(f)
	}
	return out, nil
}

// ErrSelfCheck is returned by Verify when a proof does not verify against
// its public inputs (a vanilla proof that does not satisfy the circuit, a
// proving key that does not match the verifying key, or a faulty device).
// No proof that fails it may leave the daemon.
var ErrSelfCheck = errors.New("self-check failed: proof does not verify")

// Verify checks the proofs of one job's partitions against their public
// inputs (ONE excluded) in one batch and, when the batch fails, names the
// first partition whose proof does not verify.
func Verify(pvk *groth16.PreparedVerifyingKey, proofs []groth16.Proof, inputs [][]fr.Element) error {
	if pvk == nil {
		return fmt.Errorf("%w: no verifying key", ErrSelfCheck)
	}
	if len(proofs) != len(inputs) {
		return fmt.Errorf("%w: %d proofs for %d sets of public inputs", ErrSelfCheck, len(proofs), len(inputs))
	}
	bad, err := groth16.InvalidPartitions(pvk, proofs, inputs)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSelfCheck, err)
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: partition %d of %d", ErrSelfCheck, bad[0], len(proofs))
	}
	return nil
}

// Encode is the proof bytes Filecoin expects for a job: the partition
// proofs in partition order, 192 bytes each (bellperson's compressed
// A ‖ B ‖ C).
func Encode(proofs []groth16.Proof) []byte { return groth16.EncodeProofs(proofs) }
