package testkit

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// inputsCircuit has public inputs only, each bound by one constraint (an
// aux copy · ONE = the input), so that a proof of it holds for exactly
// the inputs it was made with.
type inputsCircuit []fr.Element

func (c inputsCircuit) Synthesize(cs *r1cs.CS) error {
	for i := range c {
		x := cs.AllocInput(c[i])
		y := cs.Alloc(c[i])
		cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(y); b.Add(r1cs.One); cc.Add(x) })
	}
	return nil
}

// StubProof makes a verifying key and one proof per set of public inputs
// (ONE excluded; every set the same length) of a circuit that holds for
// exactly those inputs: a stand-in for a circuit too large to prove in a
// unit test, which checks that a verifier derives the inputs the real
// circuit takes. The proofs are concatenated in order, 192 bytes each.
func StubProof(t testing.TB, inputs [][]fr.Element) (*groth16.VerifyingKey, []byte) {
	t.Helper()
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		t.Fatal(err)
	}
	params, err := groth16.Setup(inputsCircuit(inputs[0]), tw, groth16.SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]*r1cs.ProvingAssignment, len(inputs))
	for k := range parts {
		parts[k] = r1cs.NewProvingAssignment(r1cs.Size{})
		cs, err := r1cs.Synthesize(inputsCircuit(inputs[k]), parts[k])
		if err != nil {
			t.Fatal(err)
		}
		cs.AppendInputRows()
	}
	rnd, err := groth16.RandomRandomness(len(parts))
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.Prove(context.Background(), params, parts, rnd, groth16.ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return params.VK, groth16.EncodeProofs(proofs)
}
