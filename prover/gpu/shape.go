package gpu

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ErrShape is returned when a circuit does not fit the parameters. The
// kernels only assert shapes (an assert aborts the process), so every
// count they rely on is checked here first.
var ErrShape = errors.New("gpu: circuit does not match the parameters")

// checkShape verifies pa against p exactly as groth16.Start does, plus
// what supraseal assumes: a, b and c no longer than the domain the h query
// implies, and density bitmaps covering every variable.
func checkShape(p *groth16.Params, pa *r1cs.ProvingAssignment) error {
	if err := pa.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	nIn, nAux := len(pa.Input), len(pa.Aux)
	m, err := groth16.DomainSize(len(pa.A))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	d := pa.Density
	aDense, bIn, bAux := d.AAux.Count(), d.BInput.Count(), d.BAux.Count()
	q := p.Queries()
	switch {
	case nIn == 0:
		return fmt.Errorf("%w: no inputs (ONE is missing)", ErrShape)
	case len(p.VK.IC) != nIn:
		return fmt.Errorf("%w: %d inputs, verifying key has %d IC points", ErrShape, nIn, len(p.VK.IC))
	case q.L != nAux:
		return fmt.Errorf("%w: %d aux variables, l query has %d points", ErrShape, nAux, q.L)
	case q.H != m-1:
		return fmt.Errorf("%w: %d rows need %d h points, params have %d", ErrShape, len(pa.A), m-1, q.H)
	case q.A != nIn+aDense:
		return fmt.Errorf("%w: a query needs %d points, params have %d", ErrShape, nIn+aDense, q.A)
	case q.B != bIn+bAux:
		return fmt.Errorf("%w: b queries need %d points, params have %d", ErrShape, bIn+bAux, q.B)
	case len(d.AAux.Words())*64 < nAux || len(d.BAux.Words())*64 < nAux || len(d.BInput.Words())*64 < nIn:
		return fmt.Errorf("%w: density bitmaps shorter than the assignment", ErrShape)
	}
	return nil
}

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
		if err := checkShape(p, pa); err != nil {
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
