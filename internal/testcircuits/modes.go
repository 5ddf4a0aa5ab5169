package testcircuits

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// evaluating hides an exact assignment from the CS's type check, so that
// every row reaches it through Enforce and is evaluated term by term,
// rows with known values (r1cs.CS.EnforceKnown) included.
type evaluating struct{ *r1cs.ProvingAssignment }

// Modes synthesises c, with the prover's input rows appended, into each
// proving assignment the engine can ask for (exact and templated, with c
// and without) and checks that they record the same proving assignment as
// an exact one that evaluates every row's combinations: a, b, the witness
// and the densities equal everywhere, c equal where it is kept. It returns
// the exact assignment (with c), for further checks, and its digest
// (r1cs.ProvingAssignment.Digest).
func Modes(c r1cs.Circuit) (*r1cs.ProvingAssignment, [32]byte, error) {
	counted, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		return nil, [32]byte{}, err
	}
	hint := counted.Size()
	hint.Constraints += hint.Inputs
	synth := func(template *r1cs.Densities, omitC bool) (*r1cs.ProvingAssignment, error) {
		pa := r1cs.NewAssignment(hint, template, r1cs.AssignmentOptions{OmitC: omitC})
		cs, err := r1cs.Synthesize(c, pa)
		if err != nil {
			return nil, err
		}
		cs.AppendInputRows()
		return pa, pa.Check()
	}
	exact := evaluating{r1cs.NewAssignment(hint, nil, r1cs.AssignmentOptions{})}
	cs, err := r1cs.Synthesize(c, exact)
	if err != nil {
		return nil, [32]byte{}, fmt.Errorf("exact, evaluated: %w", err)
	}
	cs.AppendInputRows()
	if err := exact.Check(); err != nil {
		return nil, [32]byte{}, fmt.Errorf("exact, evaluated: %w", err)
	}
	want := exact.Digest()
	withoutC := *exact.ProvingAssignment
	withoutC.C = nil
	wantNoC := withoutC.Digest()
	for _, m := range []struct {
		name     string
		template *r1cs.Densities
		omitC    bool
		want     [32]byte
	}{
		{"exact", nil, false, want},
		{"templated", exact.Density, false, want},
		{"exact, omit c", nil, true, wantNoC},
		{"templated, omit c", exact.Density, true, wantNoC},
	} {
		pa, err := synth(m.template, m.omitC)
		if err != nil {
			return nil, [32]byte{}, fmt.Errorf("%s: %w", m.name, err)
		}
		if got := pa.Digest(); got != m.want {
			return nil, [32]byte{}, fmt.Errorf("%s: assignment differs from the evaluated one: %s", m.name, firstDifference(exact.ProvingAssignment, pa))
		}
	}
	return exact.ProvingAssignment, want, nil
}

// firstDifference names the first vector and index where pa differs from
// exact (c is skipped when pa omits it).
func firstDifference(exact, pa *r1cs.ProvingAssignment) string {
	vectors := []struct {
		name string
		x, y []fr.Element
	}{{"a", exact.A, pa.A}, {"b", exact.B, pa.B}, {"input", exact.Input, pa.Input}, {"aux", exact.Aux, pa.Aux}}
	if pa.HasC() {
		vectors = append(vectors, struct {
			name string
			x, y []fr.Element
		}{"c", exact.C, pa.C})
	}
	for _, v := range vectors {
		if len(v.x) != len(v.y) {
			return fmt.Sprintf("%s has %d elements, exact %d", v.name, len(v.y), len(v.x))
		}
		for i := range v.x {
			if !v.x[i].Equal(&v.y[i]) {
				return fmt.Sprintf("%s[%d] = %s, exact %s", v.name, i, v.y[i].String(), v.x[i].String())
			}
		}
	}
	d, e := pa.Density, exact.Density
	for _, b := range []struct {
		name string
		x, y *r1cs.Bitset
	}{{"a aux density", &e.AAux, &d.AAux}, {"b input density", &e.BInput, &d.BInput}, {"b aux density", &e.BAux, &d.BAux}} {
		if !b.x.Equal(b.y) {
			return b.name
		}
	}
	return "digest only"
}

// Satisfied reports the first row of pa where a·b ≠ c (pa must keep c).
func Satisfied(pa *r1cs.ProvingAssignment) error {
	if !pa.HasC() {
		return fmt.Errorf("the assignment omits c")
	}
	for i := range pa.A {
		var ab fr.Element
		ab.Mul(&pa.A[i], &pa.B[i])
		if !ab.Equal(&pa.C[i]) {
			return fmt.Errorf("row %d: a·b ≠ c", i)
		}
	}
	return nil
}
