package gpu

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// checkBatch checks a whole batch before anything is handed to the device.
func checkBatch(p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) error {
	if len(parts) == 0 {
		return errors.New("gpu: nothing to prove")
	}
	if len(rnd) != len(parts) {
		return fmt.Errorf("gpu: %d circuits but %d randomness pairs", len(parts), len(rnd))
	}
	if p.VK.DeltaG1.IsInfinity() || p.VK.DeltaG2.IsInfinity() {
		return errors.New("gpu: δ is the identity in the parameters")
	}
	for i, pa := range parts {
		// The kernels only assert shapes (an assert aborts the process),
		// so every count they rely on is checked first.
		if err := groth16.CheckShape(p, pa); err != nil {
			return fmt.Errorf("circuit %d: %w", i, err)
		}
	}
	return nil
}

// materializeC gives an assignment that omits c (r1cs.AssignmentOptions.
// OmitC) its c = a∘b row by row, which supraseal takes as an input: equal
// to the real c for a satisfied witness, and a witness that is not gives a
// proof the CPU re-check rejects either way. The daemon keeps c for GPU
// lanes (srs.Options.KeepC), so this runs only for assignments made
// elsewhere.
func materializeC(pa *r1cs.ProvingAssignment) {
	if pa.HasC() || len(pa.C) == len(pa.A) {
		return
	}
	c := make([]fr.Element, len(pa.A), cap(pa.A))
	for i := range c {
		c[i].Mul(&pa.A[i], &pa.B[i])
	}
	pa.C = c
}
