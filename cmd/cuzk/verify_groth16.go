package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
)

func runVerifyGroth16(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("verify-groth16", stderr)
	vkPath := fs.String("vk", "", "verifying key `file` (bellperson .vk layout)")
	proofPath := fs.String("proof", "", "proof `file`: one or more concatenated 192-byte proofs")
	inputsPath := fs.String("inputs", "", "public inputs `file`: JSON array of 64-hex little-endian Fr, or an array of such arrays (one per proof)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk verify-groth16")
	if *vkPath == "" || *proofPath == "" || *inputsPath == "" {
		return fail("--vk, --proof and --inputs are required")
	}
	vk, err := groth16.ReadVerifyingKeyFile(*vkPath)
	if err != nil {
		return fail("%v", err)
	}
	raw, err := os.ReadFile(*proofPath)
	if err != nil {
		return fail("%v", err)
	}
	proofs, err := groth16.DecodeProofs(raw)
	if err != nil {
		return fail("%s: %v", *proofPath, err)
	}
	inputs, err := readInputsFile(*inputsPath, len(proofs))
	if err != nil {
		return fail("%s: %v", *inputsPath, err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return fail("%v", err)
	}
	for i := range inputs {
		if len(inputs[i])+1 != len(vk.IC) {
			return fail("proof %d has %d public inputs, the verifying key takes %d", i, len(inputs[i]), len(vk.IC)-1)
		}
	}
	ok, err := groth16.VerifyBatch(pvk, proofs, inputs, nil)
	if err != nil {
		return fail("%v", err)
	}
	if !ok {
		fmt.Fprintln(stdout, "invalid")
		return exitInvalid
	}
	fmt.Fprintln(stdout, "valid")
	return exitOK
}

// readInputsFile reads one array of inputs (one proof) or an array of
// arrays (one per proof).
func readInputsFile(path string, nProofs int) ([][]fr.Element, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseInputs(b, nProofs)
}

// parseInputs decodes an inputs file's contents for nProofs proofs
// (readInputsFile, and FuzzParseInputs).
func parseInputs(b []byte, nProofs int) ([][]fr.Element, error) {
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

// parseFrHexList parses 64-hex-character little-endian field elements,
// rejecting non-canonical values (Filecoin's from_repr semantics).
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
