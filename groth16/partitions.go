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

// ErrProofLength is returned when proof bytes are not one ProofSize-byte
// proof per set of public inputs.
var ErrProofLength = errors.New("groth16: wrong proof length")

// Public is what a proof of several partitions is verified against: one
// vector of public inputs (ONE excluded) per partition, in order. The
// public values of every Filecoin proof kind implement it (porep.SealPublic,
// post.Public, snap.Public), computing the inputs from public values alone.
type Public interface {
	// Partitions is the number of partition proofs the values make.
	Partitions() int
	// Inputs are the public inputs of every partition proof.
	Inputs() ([][]fr.Element, error)
}

// InvalidProofs checks proof, the concatenated ProofSize-byte proofs of
// one partition each, against their public inputs under vk: the one path
// from proof bytes to the partitions that do not verify (none: the proof
// is valid). The key must take exactly the inputs' count (PrepareFor). An
// error means the check could not be made: a length that is not one
// proof per input vector (ErrProofLength), a proof that does not decode,
// a key of another circuit (ErrInputCount).
func InvalidProofs(vk *VerifyingKey, proof []byte, inputs [][]fr.Element) ([]int, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%w: no public inputs", ErrProofLength)
	}
	if len(proof) != len(inputs)*ProofSize {
		return nil, fmt.Errorf("%w: %d bytes, want %d proof(s) of %d bytes", ErrProofLength, len(proof), len(inputs), ProofSize)
	}
	proofs, err := DecodeProofs(proof)
	if err != nil {
		return nil, err
	}
	pvk, err := PrepareFor(vk, len(inputs[0]))
	if err != nil {
		return nil, err
	}
	return InvalidPartitions(pvk, proofs, inputs)
}

// InvalidPublic is InvalidProofs against the inputs pub computes.
func InvalidPublic(vk *VerifyingKey, proof []byte, pub Public) ([]int, error) {
	inputs, err := pub.Inputs()
	if err != nil {
		return nil, err
	}
	return InvalidProofs(vk, proof, inputs)
}
