package circuit

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// benchSynth synthesises c once per iteration into a fresh backend and
// reports ns/constraint. Templated assignments reuse the densities of one
// exact synthesis, as the prover does for every proof after the first.
func benchSynth(b *testing.B, c r1cs.Circuit) {
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

func benchPoSt(b *testing.B, p filecoin.RegisteredPoStProof) {
	shape, err := DimsOf(p)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var sectors []Sector
	for i := 0; i < shape.Sectors; i++ {
		sectors = append(sectors, testSector(b, rng, merkle.ShapeBase, 64, shape.Challenges))
	}
	f, err := New(shape, sectors)
	if err != nil {
		b.Fatal(err)
	}
	benchSynth(b, f)
}

// BenchmarkWindowPoSt2KiB is a full 2 KiB WindowPoSt partition (21,866 rows).
func BenchmarkWindowPoSt2KiB(b *testing.B) { benchPoSt(b, filecoin.StackedDrgWindow2KiBV1_2) }

// BenchmarkWinningPoSt2KiB is a 2 KiB WinningPoSt (90,750 rows).
func BenchmarkWinningPoSt2KiB(b *testing.B) { benchPoSt(b, filecoin.StackedDrgWinning2KiBV1) }
