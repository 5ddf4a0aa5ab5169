package testcircuits

import (
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// InputValues are exactly the inputs Plan draws, without drawing the
// rest (the test kind computes them for circuits of up to 2^26 rows from
// requests).
func TestInputValuesMatchPlan(t *testing.T) {
	for _, m := range []Mixed{
		{Constraints: 1000, Inputs: 4, Seed: 10},
		{Constraints: 3, Inputs: 4, Seed: 1},
		{Constraints: 500, Inputs: 0, Seed: 2},
		{Constraints: 700, Inputs: 9, BitShare: 0.3, Seed: 3},
	} {
		var want []fr.Element
		for _, op := range m.Plan() {
			if op.Kind == OpInput {
				want = append(want, op.X)
			}
		}
		if got := m.InputValues(); !slices.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("%+v: InputValues %d values, Plan's inputs %d", m, len(got), len(want))
		}
	}
	if n := testing.AllocsPerRun(3, func() { _ = (Mixed{Constraints: 1 << 26, Inputs: 4, Seed: 26}).InputValues() }); n > 20 {
		t.Errorf("InputValues of a 2^26-row circuit: %v allocations", n)
	}
}
