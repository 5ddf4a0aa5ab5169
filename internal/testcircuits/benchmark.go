package testcircuits

import (
	"testing"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// BenchmarkSynthesis synthesises c once per iteration into a fresh backend and
// reports ns/constraint. Templated assignments reuse the densities of one
// exact synthesis, as the prover does for every proof after the first;
// the -omitc variants leave c out (r1cs.AssignmentOptions.OmitC), as the
// CPU prover takes them.
func BenchmarkSynthesis(b *testing.B, c r1cs.Circuit) {
	cs, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		b.Fatal(err)
	}
	size := cs.Size()
	exact := r1cs.NewProvingAssignment(size)
	if _, err := r1cs.Synthesize(c, exact); err != nil {
		b.Fatal(err)
	}
	omitC := r1cs.AssignmentOptions{OmitC: true}
	for _, mode := range []struct {
		name string
		new  func() r1cs.Sink
	}{
		{"exact", func() r1cs.Sink { return r1cs.NewProvingAssignment(size) }},
		{"templated", func() r1cs.Sink { return r1cs.NewTemplatedAssignment(size, exact.Density) }},
		{"exact-omitc", func() r1cs.Sink { return r1cs.NewAssignment(size, nil, omitC) }},
		{"templated-omitc", func() r1cs.Sink { return r1cs.NewAssignment(size, exact.Density, omitC) }},
		{"witness", func() r1cs.Sink { return r1cs.NewWitnessAssignment(size) }},
	} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				be := mode.new()
				b.StartTimer()
				if _, err := r1cs.Synthesize(c, be); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size.Constraints), "ns/constraint")
		})
	}
}

// Size is c's size (rows without the input rows, inputs, aux variables),
// counted by synthesising c into an r1cs.Counter; t fails if c does not
// synthesise.
func Size(t testing.TB, c r1cs.Circuit) r1cs.Size {
	t.Helper()
	cs, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	return cs.Size()
}

// Assignment is c's proving assignment with its input rows appended
// (r1cs.CS.AppendInputRows), as Groth16 setup and proving see the circuit;
// t fails if c does not synthesise.
func Assignment(t testing.TB, c r1cs.Circuit) *r1cs.ProvingAssignment {
	t.Helper()
	pa := r1cs.NewProvingAssignment(r1cs.Size{})
	cs, err := r1cs.Synthesize(c, pa)
	if err != nil {
		t.Fatal(err)
	}
	cs.AppendInputRows()
	return pa
}
