package groth16

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// VerifyFiles checks the proofs in proofPath (one or more concatenated
// 192-byte proofs) against the verifying key in vkPath and the public
// inputs in inputsPath (ParseInputs' JSON), as the circuit-specific
// VerifyFile functions (seal, post, snap) do for their proofs: the key is
// read first, so that a missing parameter is told before a missing proof.
// An invalid proof is false with a nil error; an error means the check
// could not be made, and names the file at fault.
func VerifyFiles(vkPath, proofPath, inputsPath string) (bool, error) {
	vk, raw, err := ReadKeyAndProof(vkPath, proofPath)
	if err != nil {
		return false, err
	}
	proofs, err := DecodeProofs(raw)
	if err != nil {
		return false, fmt.Errorf("%s: %w", proofPath, err)
	}
	b, err := os.ReadFile(inputsPath)
	if err != nil {
		return false, err
	}
	inputs, err := ParseInputs(b, len(proofs))
	if err != nil {
		return false, fmt.Errorf("%s: %w", inputsPath, err)
	}
	pvk, err := Prepare(vk)
	if err != nil {
		return false, err
	}
	for i := range inputs {
		if len(inputs[i])+1 != len(vk.IC) {
			return false, fmt.Errorf("proof %d has %d public inputs, the verifying key takes %d", i, len(inputs[i]), len(vk.IC)-1)
		}
	}
	return VerifyBatch(pvk, proofs, inputs, nil)
}

// ReadKeyAndProof reads the verifying key in vkPath and the proof bytes
// in proofPath, the key first, so that a missing parameter is told before
// a missing proof: the reading of every VerifyFile (seal, post, snap) and
// of VerifyFiles.
func ReadKeyAndProof(vkPath, proofPath string) (*VerifyingKey, []byte, error) {
	vk, err := ReadVerifyingKeyFile(vkPath)
	if err != nil {
		return nil, nil, err
	}
	proof, err := os.ReadFile(proofPath)
	if err != nil {
		return nil, nil, err
	}
	return vk, proof, nil
}

// ParseInputs decodes the public inputs of nProofs proofs from JSON: one
// array of 64-hex-character little-endian field elements (one proof), or
// an array of such arrays (one per proof). Non-canonical values are
// refused, as Filecoin's from_repr does.
func ParseInputs(b []byte, nProofs int) ([][]fr.Element, error) {
	var flat []string
	if err := json.Unmarshal(b, &flat); err == nil {
		if nProofs != 1 {
			return nil, fmt.Errorf("one input vector given for %d proofs (use an array of arrays)", nProofs)
		}
		v, err := parseFrHexList(flat)
		if err != nil {
			return nil, err
		}
		return [][]fr.Element{v}, nil
	}
	var nested [][]string
	if err := json.Unmarshal(b, &nested); err != nil {
		return nil, fmt.Errorf("not a JSON array of hex strings or of arrays of them: %w", err)
	}
	if len(nested) != nProofs {
		return nil, fmt.Errorf("%d input vectors for %d proofs", len(nested), nProofs)
	}
	out := make([][]fr.Element, len(nested))
	for i, l := range nested {
		v, err := parseFrHexList(l)
		if err != nil {
			return nil, fmt.Errorf("vector %d: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}

func parseFrHexList(l []string) ([]fr.Element, error) {
	out := make([]fr.Element, len(l))
	for i, h := range l {
		e, err := parseFrHex(h)
		if err != nil {
			return nil, fmt.Errorf("input %d: %w", i, err)
		}
		out[i] = e
	}
	return out, nil
}

func parseFrHex(h string) (fr.Element, error) {
	if len(h) != 64 {
		return fr.Element{}, fmt.Errorf("%q: want 64 hex characters, got %d", h, len(h))
	}
	var b [32]byte
	if _, err := hex.Decode(b[:], []byte(h)); err != nil {
		return fr.Element{}, fmt.Errorf("%q: %w", h, err)
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		return fr.Element{}, fmt.Errorf("%q: not a canonical field element: %w", h, err)
	}
	return e, nil
}
