package groth16

import (
	"errors"
	"fmt"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// CheckShape verifies that pa fits p exactly, as bellperson's
// ParameterSource would (a wrong split of the a or b queries would silently
// shift every aux base and produce a proof that does not verify): the input
// count against the verifying key's IC points, the aux count against the
// l query, the rows against the h query's domain, the dense a and the b
// variables against their queries, and the assignment's own consistency
// (r1cs.ProvingAssignment.Check: densities covering every variable, a, b
// and c of one length). Every backend checks it before proving: the CPU's
// Start, and the CUDA backend, whose kernels only assert shapes (an
// assert aborts the process).
func CheckShape(p *Params, pa *r1cs.ProvingAssignment) error {
	nIn, nAux := len(pa.Input), len(pa.Aux)
	m, err := DomainSize(len(pa.A))
	if err != nil {
		return err
	}
	aDense := pa.Density.AAux.Count()
	bIn, bAux := pa.Density.BInput.Count(), pa.Density.BAux.Count()
	q := p.Queries()
	switch {
	case len(p.VK.IC) != nIn:
		return fmt.Errorf("%w: %d inputs, verifying key has %d IC points", ErrShape, nIn, len(p.VK.IC))
	case q.L != nAux:
		return fmt.Errorf("%w: %d aux variables, l query has %d points", ErrShape, nAux, q.L)
	case q.H != m-1:
		return fmt.Errorf("%w: %d rows need %d h points, params have %d", ErrShape, len(pa.A), m-1, q.H)
	case q.A != nIn+aDense:
		return fmt.Errorf("%w: a query needs %d points (%d inputs + %d dense aux), params have %d", ErrShape, nIn+aDense, nIn, aDense, q.A)
	case q.B != bIn+bAux || (!p.Mapped() && len(p.BG2) != len(p.BG1)):
		return fmt.Errorf("%w: b queries need %d points (%d inputs + %d aux), params have %d (G1) and %d (G2)", ErrShape, bIn+bAux, bIn, bAux, q.B, len(p.BG2))
	}
	if err := pa.Check(); err != nil {
		return fmt.Errorf("%w: %w", ErrShape, err)
	}
	return nil
}

// CheckBatch checks a batch before any proving work: circuits to prove,
// one randomness pair each, a δ that is not the identity (bellperson
// refuses one too: it is a subversion attempt), and every assignment's
// shape (CheckShape). Start checks it, and so does every device backend
// before anything reaches the device.
func CheckBatch(p *Params, parts []*r1cs.ProvingAssignment, rnd []Randomness) error {
	if len(parts) == 0 {
		return errors.New("groth16: nothing to prove")
	}
	if len(rnd) != len(parts) {
		return fmt.Errorf("groth16: %d circuits but %d randomness pairs", len(parts), len(rnd))
	}
	if p.VK.DeltaG1.IsInfinity() || p.VK.DeltaG2.IsInfinity() {
		return errors.New("groth16: δ is the identity in the parameters")
	}
	for i, pa := range parts {
		if err := CheckShape(p, pa); err != nil {
			return fmt.Errorf("circuit %d: %w", i, err)
		}
	}
	return nil
}
