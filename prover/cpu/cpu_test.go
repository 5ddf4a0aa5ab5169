package cpu

import (
	"context"
	"errors"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// TestYieldFromContext: the prover.Yield the engine puts in the context is
// called at the prover's yield points in Start and Finish, the proof still
// verifies, and a Yield error ends the proof.
func TestYieldFromContext(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 300, Inputs: 2, Seed: 3}
	var tw groth16.ToxicWaste
	for i, e := range []*fr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		e.SetUint64(uint64(11 + i))
	}
	p, err := groth16.Setup(c, tw, groth16.SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rnd, _ := groth16.RandomRandomness(1)
	calls := 0
	ctx := prover.WithYield(context.Background(), func(context.Context) error { calls++; return nil })
	pa := testcircuits.Assignment(t, c)
	b := &Backend{Workers: 2}
	pend, err := b.Start(ctx, p, []*r1cs.ProvingAssignment{pa}, rnd)
	if err != nil {
		t.Fatal(err)
	}
	inStart := calls
	proofs, err := pend.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Every multi-exponentiation runs in Start; Finish only assembles.
	if inStart < 8 || calls != inStart {
		t.Fatalf("%d yields in Start, %d in Finish", inStart, calls-inStart)
	}
	pvk, err := groth16.Prepare(p.VK)
	if err != nil {
		t.Fatal(err)
	}
	if err := prover.Verify(pvk, proofs, [][]fr.Element{pa.Input[1:]}); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	ctx = prover.WithYield(context.Background(), func(context.Context) error { return stop })
	if _, err := b.Start(ctx, p, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, rnd); !errors.Is(err, stop) {
		t.Fatalf("Start with a failing Yield: %v", err)
	}
	if prover.YieldFrom(context.Background()) != nil {
		t.Fatal("a Yield in a bare context")
	}
}
