package groth16

import (
	"fmt"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// ProofSize is the size of an encoded proof: A (G1) ‖ B (G2) ‖ C (G1),
// compressed.
const ProofSize = G1Compressed + G2Compressed + G1Compressed

// Proof is a Groth16 proof.
type Proof struct {
	A bls.G1Affine
	B bls.G2Affine
	C bls.G1Affine
}

// Bytes encodes p as bellperson does.
func (p *Proof) Bytes() [ProofSize]byte {
	var out [ProofSize]byte
	a, b, c := p.A.Bytes(), p.B.Bytes(), p.C.Bytes()
	copy(out[0:], a[:])
	copy(out[G1Compressed:], b[:])
	copy(out[G1Compressed+G2Compressed:], c[:])
	return out
}

// MarshalBinary implements encoding.BinaryMarshaler.
func (p *Proof) MarshalBinary() ([]byte, error) {
	b := p.Bytes()
	return b[:], nil
}

// UnmarshalBinary decodes exactly one proof, checking that every point is on
// the curve, in the subgroup and not at infinity.
// Errors wrap ErrProofFormat.
func (p *Proof) UnmarshalBinary(b []byte) error {
	if len(b) != ProofSize {
		fe := &FormatError{What: fmt.Sprintf("proof is %d bytes, want %d", len(b), ProofSize), Offset: int64(len(b)), Err: ErrTruncated}
		if len(b) > ProofSize {
			fe.Offset, fe.Err = ProofSize, nil
		}
		return fmt.Errorf("groth16: %w: %w", ErrProofFormat, fe)
	}
	if err := p.decode(b, 0); err != nil {
		return fmt.Errorf("groth16: %w: %w", ErrProofFormat, err)
	}
	return nil
}

func (p *Proof) decode(b []byte, index int) error {
	if err := decodeG1Compressed(&p.A, b[0:]); err != nil {
		return &PointError{Vector: "proof.a", Index: index, Offset: int64(index * ProofSize), Err: err}
	}
	if err := decodeG2Compressed(&p.B, b[G1Compressed:]); err != nil {
		return &PointError{Vector: "proof.b", Index: index, Offset: int64(index*ProofSize + G1Compressed), Err: err}
	}
	if err := decodeG1Compressed(&p.C, b[G1Compressed+G2Compressed:]); err != nil {
		return &PointError{Vector: "proof.c", Index: index, Offset: int64(index*ProofSize + G1Compressed + G2Compressed), Err: err}
	}
	return nil
}

// DecodeProofs decodes a concatenation of proofs (a multi-partition PoRep
// proof is one per partition, in partition order). Errors wrap
// ErrProofFormat.
func DecodeProofs(b []byte) ([]Proof, error) {
	if len(b) == 0 || len(b)%ProofSize != 0 {
		fe := &FormatError{What: fmt.Sprintf("%d bytes is not a whole number of %d-byte proofs", len(b), ProofSize),
			Offset: int64(len(b) - len(b)%ProofSize), Err: ErrTruncated}
		return nil, fmt.Errorf("groth16: %w: %w", ErrProofFormat, fe)
	}
	proofs := make([]Proof, len(b)/ProofSize)
	for i := range proofs {
		if err := proofs[i].decode(b[i*ProofSize:(i+1)*ProofSize], i); err != nil {
			return nil, fmt.Errorf("groth16: %w: %w", ErrProofFormat, err)
		}
	}
	return proofs, nil
}

// EncodeProofs concatenates the encodings of proofs.
func EncodeProofs(proofs []Proof) []byte {
	out := make([]byte, 0, len(proofs)*ProofSize)
	for i := range proofs {
		b := proofs[i].Bytes()
		out = append(out, b[:]...)
	}
	return out
}
