package circuit

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// BenchmarkUpdate2KiB synthesises the 2 KiB EmptySectorUpdate circuit
// (1,705,039 rows, 98 % SHA-256) into exact and templated proving
// assignments and a witness-only one, reporting ns/constraint.
func BenchmarkUpdate2KiB(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	u := newUpdatedSector(b, rng, mustParams(b, 2<<10))
	c := u.circuit(b, 0)
	cs, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		b.Fatal(err)
	}
	shape := cs.Size()
	exact := r1cs.NewProvingAssignment(shape)
	if _, err := r1cs.Synthesize(c, exact); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		new  func() r1cs.Sink
	}{
		{"exact", func() r1cs.Sink { return r1cs.NewProvingAssignment(shape) }},
		{"templated", func() r1cs.Sink { return r1cs.NewTemplatedAssignment(shape, exact.Density) }},
		{"witness", func() r1cs.Sink { return r1cs.NewWitnessAssignment(shape) }},
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
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(shape.Constraints), "ns/constraint")
		})
	}
}
