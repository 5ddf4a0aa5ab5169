package ifma

import (
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// BenchmarkFpMul compares the 8-lane multiplication with gnark-crypto's
// scalar fp.Mul on independent data (throughput), per element; the
// scalar and vector sub-benchmarks alternate under -count.
//
//	go test -run '^$' -bench FpMul -count 5 ./internal/ifma
func BenchmarkFpMul(b *testing.B) {
	const n = 1024 // elements: 3 × 64 KiB of vectors, in L2
	rng := rand.New(rand.NewPCG(3, 4))
	xs, ys := make([]fp.Element, n), make([]fp.Element, n)
	for i := range xs {
		xs[i], ys[i] = randomElement(rng), randomElement(rng)
	}
	b.Run("scalar", func(b *testing.B) {
		zs := make([]fp.Element, n)
		for b.Loop() {
			for i := range zs {
				zs[i].Mul(&xs[i], &ys[i])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/element")
	})
	if !Enabled() {
		return
	}
	gx, gy, gz := make([]Fp8, n/8), make([]Fp8, n/8), make([]Fp8, n/8)
	asmKernels.fpFrom64(&gx[0], &xs[0], 6, n/8)
	asmKernels.fpFrom64(&gy[0], &ys[0], 6, n/8)
	b.Run("ifma", func(b *testing.B) {
		for b.Loop() {
			asmKernels.fpMul(&gz[0], &gx[0], &gy[0], n/8)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/element")
	})
	b.Run("ifma-add", func(b *testing.B) {
		for b.Loop() {
			asmKernels.fpAdd(&gz[0], &gx[0], &gy[0], n/8)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/element")
	})
	b.Run("ifma-sub", func(b *testing.B) {
		for b.Loop() {
			asmKernels.fpSub(&gz[0], &gx[0], &gy[0], n/8)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/element")
	})
	b.Run("ifma-from64", func(b *testing.B) {
		for b.Loop() {
			asmKernels.fpFrom64(&gz[0], &xs[0], 6, n/8)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/element")
	})
}

// BenchmarkG1Batch compares batches of independent affine additions on
// the IFMA adder with the scalar batch-affine loop (Montgomery's trick
// over gnark-crypto's fp, as groth16's g1Batch), per addition.
func BenchmarkG1Batch(b *testing.B) {
	const batch = 1024
	rng := rand.New(rand.NewPCG(7, 8))
	accs, qs := make([]bls.G1Affine, batch), make([]bls.G1Affine, batch)
	for i := range accs {
		accs[i], qs[i] = randomG1(rng), randomG1(rng)
	}
	b.Run("scalar", func(b *testing.B) {
		den, prefix := make([]fp.Element, batch), make([]fp.Element, batch)
		for b.Loop() {
			run := fp.One()
			for i := range accs {
				den[i].Sub(&qs[i].X, &accs[i].X)
				prefix[i] = run
				run.Mul(&run, &den[i])
			}
			var inv fp.Element
			inv.Inverse(&run)
			for i := batch - 1; i >= 0; i-- {
				var di, lambda, x3, t fp.Element
				di.Mul(&inv, &prefix[i])
				inv.Mul(&inv, &den[i])
				a, q := &accs[i], &qs[i]
				lambda.Sub(&q.Y, &a.Y).Mul(&lambda, &di)
				x3.Square(&lambda).Sub(&x3, &a.X).Sub(&x3, &q.X)
				t.Sub(&a.X, &x3).Mul(&t, &lambda)
				a.Y.Sub(&t, &a.Y)
				a.X = x3
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/add")
	})
	if !Enabled() {
		return
	}
	a := NewG1Adder(batch)
	b.Run("ifma", func(b *testing.B) {
		for b.Loop() {
			for i := range accs {
				a.Add(&accs[i], &qs[i], false)
			}
			a.Flush()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/add")
	})
}

// BenchmarkG2Batch is the G2 adder's cost per addition (1024 random
// pairs), the G1 kernels' template over fp2.
func BenchmarkG2Batch(b *testing.B) {
	if !Enabled() {
		b.Skip("no IFMA kernels on this CPU")
	}
	const batch = 1024
	rng := rand.New(rand.NewPCG(7, 8))
	accs, qs := make([]bls.G2Affine, batch), make([]bls.G2Affine, batch)
	for i := range accs {
		accs[i], qs[i] = randomG2(rng), randomG2(rng)
	}
	a := NewG2Adder(batch)
	for b.Loop() {
		for i := range accs {
			a.Add(&accs[i], &qs[i], false)
		}
		a.Flush()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/add")
}

// BenchmarkFrButterfly compares the fused IFMA butterfly with
// gnark-crypto's vector multiplication followed by its scalar butterfly,
// and the scalar loop, per pair (1024 pairs, in L1/L2).
func BenchmarkFrButterfly(b *testing.B) {
	const n = 1024
	lo, hi := make(fr.Vector, n), make(fr.Vector, n)
	for i := range lo {
		lo[i].SetUint64(uint64(i + 1)).Square(&lo[i]).Square(&lo[i])
		hi[i].SetUint64(uint64(i + 7)).Square(&hi[i]).Square(&hi[i])
	}
	var z fr.Element
	z.SetUint64(12345).Square(&z).Square(&z)
	per := func(b *testing.B) { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair") }
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			goFrCT(&lo[0], &hi[0], &z, n/8)
		}
		per(b)
	})
	b.Run("gnark-vector", func(b *testing.B) {
		for b.Loop() {
			hi.ScalarMul(hi, &z)
			for j := range lo {
				fr.Butterfly(&lo[j], &hi[j])
			}
		}
		per(b)
	})
	if !Enabled() {
		return
	}
	b.Run("ifma", func(b *testing.B) {
		for b.Loop() {
			asmKernels.frCT(&lo[0], &hi[0], &z, n/8)
		}
		per(b)
	})
}

// BenchmarkFrVectorMul is gnark-crypto's fr.Vector.Mul against its
// scalar fr.Mul loop, per element. gnark-crypto picks its IFMA code from
// golang.org/x/sys/cpu, as this package does, so GODEBUG=cpu.avx512ifma=off
// must bring "vector" down to "scalar": that is how a CPU without IFMA is
// emulated on one with it (docs/performance.md, issue 21).
func BenchmarkFrVectorMul(b *testing.B) {
	const n = 1024
	x, y, z := make(fr.Vector, n), make(fr.Vector, n), make(fr.Vector, n)
	for i := range x {
		x[i].SetUint64(uint64(i + 1)).Square(&x[i]).Square(&x[i])
		y[i].SetUint64(uint64(i + 9)).Square(&y[i]).Square(&y[i])
	}
	per := func(b *testing.B) { b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/element") }
	b.Run("scalar", func(b *testing.B) {
		for b.Loop() {
			for i := range z {
				z[i].Mul(&x[i], &y[i])
			}
		}
		per(b)
	})
	b.Run("vector", func(b *testing.B) {
		for b.Loop() {
			z.Mul(x, y)
		}
		per(b)
	})
}

// BenchmarkKnownAnswers is the start-up check's cost.
func BenchmarkKnownAnswers(b *testing.B) {
	k := goKernels
	if Enabled() {
		k = asmKernels
	}
	for b.Loop() {
		if err := knownAnswers(k); err != nil {
			b.Fatal(err)
		}
	}
}
