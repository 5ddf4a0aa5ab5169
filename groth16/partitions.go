package groth16

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrBatchOnly is returned by InvalidPartitions when the batch check fails
// although every proof verifies alone, which a correct verifier never sees.
var ErrBatchOnly = errors.New("groth16: the batch check failed but every proof verifies alone")

// InvalidPartitions checks a proof of several partitions, one Groth16
// proof per set of public inputs (ONE excluded), under one key: in one
// batch (VerifyBatch), and when that fails proof by proof, so that the
// caller can name the partitions that do not verify. It returns their
// indexes, none when the whole proof is valid. An error means the check
// could not be made: counts that differ, inputs that do not fit the key.
func InvalidPartitions(pvk *PreparedVerifyingKey, proofs []Proof, inputs [][]fr.Element) ([]int, error) {
	if len(proofs) != len(inputs) {
		return nil, fmt.Errorf("groth16: %d proofs but %d input vectors", len(proofs), len(inputs))
	}
	ok, err := VerifyBatch(pvk, proofs, inputs, nil)
	if err == nil && ok {
		return nil, nil
	}
	if err != nil && !errors.Is(err, ErrInputCount) {
		return nil, err
	}
	var bad []int
	for i := range proofs {
		ok, err := Verify(pvk, &proofs[i], inputs[i])
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", i, err)
		}
		if !ok {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 {
		return nil, ErrBatchOnly
	}
	return bad, nil
}

// PrepareFor is Prepare for proofs with n public inputs (ONE excluded): a
// key that takes another number, a key of another circuit, is refused
// with ErrInputCount before any pairing.
func PrepareFor(vk *VerifyingKey, n int) (*PreparedVerifyingKey, error) {
	if got := len(vk.IC) - 1; got != n {
		return nil, fmt.Errorf("%w: the verifying key takes %d public inputs, the proof has %d (a key of another circuit?)", ErrInputCount, got, n)
	}
	return Prepare(vk)
}
