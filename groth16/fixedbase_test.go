package groth16

import (
	"math/big"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func TestFixedBaseMatchesScalarMultiplication(t *testing.T) {
	_, _, g1, g2 := bls.Generators()
	scalars := make([]fr.Element, 300)
	for i := range scalars {
		scalars[i].MustSetRandom()
	}
	scalars[0].SetZero()
	scalars[1].SetOne()
	scalars[2].SetInt64(-1)
	scalars[3].SetUint64(1 << 15) // exactly half a window: digit edge case
	scalars[4].SetUint64(1<<16 - 1)
	for _, c := range []int{8, 12, 16} {
		if c == 16 && testing.Short() {
			continue
		}
		t1 := newG1Table(&g1, c, 2)
		t2 := newG2Table(&g2, c, 2)
		got1 := make([]bls.G1Affine, len(scalars))
		got2 := make([]bls.G2Affine, len(scalars))
		t1.mulInto(got1, scalars, 2)
		t2.mulInto(got2, scalars, 2)
		for i := range scalars {
			k := scalars[i].BigInt(new(big.Int))
			var w1 bls.G1Affine
			var w2 bls.G2Affine
			w1.ScalarMultiplication(&g1, k)
			w2.ScalarMultiplication(&g2, k)
			if !w1.Equal(&got1[i]) {
				t.Fatalf("c=%d: G1 scalar %d wrong", c, i)
			}
			if !w2.Equal(&got2[i]) {
				t.Fatalf("c=%d: G2 scalar %d wrong", c, i)
			}
		}
	}
}

func BenchmarkFixedBaseG1(b *testing.B) {
	_, _, g1, _ := bls.Generators()
	tab := newG1Table(&g1, 16, 1)
	scalars := make([]fr.Element, 1<<14)
	for i := range scalars {
		scalars[i].MustSetRandom()
	}
	out := make([]bls.G1Affine, len(scalars))
	b.ResetTimer()
	for b.Loop() {
		tab.mulInto(out, scalars, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(scalars)), "ns/point")
}

func BenchmarkFixedBaseG2(b *testing.B) {
	_, _, _, g2 := bls.Generators()
	tab := newG2Table(&g2, 16, 1)
	scalars := make([]fr.Element, 1<<12)
	for i := range scalars {
		scalars[i].MustSetRandom()
	}
	out := make([]bls.G2Affine, len(scalars))
	b.ResetTimer()
	for b.Loop() {
		tab.mulInto(out, scalars, 1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(scalars)), "ns/point")
}
