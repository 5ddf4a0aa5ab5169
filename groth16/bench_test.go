package groth16

import (
	"context"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Benchmarks at 2^16 and 2^18 rows (the domain is exactly that size: the
// circuit plus its input rows fill it). Report ns/constraint alongside ns/op.

func benchCircuit(logN int) testcircuits.Mixed {
	const inputs = 8
	return testcircuits.Mixed{Constraints: 1<<logN - inputs - 1, Inputs: inputs, Seed: uint64(logN)}
}

var benchParams = map[int]*Params{}

func paramsFor(b *testing.B, logN int) *Params {
	if p, ok := benchParams[logN]; ok {
		return p
	}
	p, err := Setup(benchCircuit(logN), fixedToxicWaste(), SetupOptions{})
	if err != nil {
		b.Fatal(err)
	}
	benchParams[logN] = p
	return p
}

func BenchmarkSetup(b *testing.B) {
	for _, logN := range []int{16, 18} {
		b.Run(fmt.Sprintf("2^%d", logN), func(b *testing.B) {
			for b.Loop() {
				if _, err := Setup(benchCircuit(logN), fixedToxicWaste(), SetupOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N<<logN), "ns/constraint")
		})
	}
}

func BenchmarkProve(b *testing.B) {
	for _, logN := range []int{16, 18} {
		c := benchCircuit(logN)
		b.Run(fmt.Sprintf("Start/2^%d", logN), func(b *testing.B) {
			p := paramsFor(b, logN)
			for b.Loop() {
				b.StopTimer()
				pa := testcircuits.Assignment(b, c)
				b.StartTimer()
				if _, err := Start(context.Background(), p, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N<<logN), "ns/constraint")
		})
		b.Run(fmt.Sprintf("Finish/2^%d", logN), func(b *testing.B) {
			p := paramsFor(b, logN)
			for b.Loop() {
				b.StopTimer()
				pa := testcircuits.Assignment(b, c)
				pend, err := Start(context.Background(), p, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := pend.Finish(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("Synthesize/2^%d", logN), func(b *testing.B) {
			for b.Loop() {
				testcircuits.Assignment(b, c)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N<<logN), "ns/constraint")
		})
	}
}

func BenchmarkVerify(b *testing.B) {
	p := paramsFor(b, 16)
	pa := testcircuits.Assignment(b, benchCircuit(16))
	inputs := publicInputs(pa)
	proofs, err := Prove(context.Background(), p, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{})
	if err != nil {
		b.Fatal(err)
	}
	pvk, _ := Prepare(p.VK)
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			if ok, _ := Verify(pvk, &proofs[0], inputs); !ok {
				b.Fatal("rejected")
			}
		}
	})
	b.Run("batch10", func(b *testing.B) {
		ps := make([]Proof, 10)
		ins := make([][]fr.Element, 10)
		for i := range ps {
			ps[i], ins[i] = proofs[0], inputs
		}
		for b.Loop() {
			if ok, _ := VerifyBatch(pvk, ps, ins, nil); !ok {
				b.Fatal("rejected")
			}
		}
	})
}
