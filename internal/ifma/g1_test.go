package ifma

import (
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

func randomG1(rng *rand.Rand) bls.G1Affine {
	_, _, g, _ := bls.Generators()
	var p bls.G1Affine
	p.ScalarMultiplication(&g, new(big.Int).SetUint64(rng.Uint64()|1))
	return p
}

func randomG2(rng *rand.Rand) bls.G2Affine {
	_, _, _, g := bls.Generators()
	var p bls.G2Affine
	p.ScalarMultiplication(&g, new(big.Int).SetUint64(rng.Uint64()|1))
	return p
}

// testAdder checks batches against gnark-crypto's complete affine
// addition: random pairs, doublings (acc = q), cancellations (acc = −q),
// negated points, and batch sizes around the group size.
func testAdder[P comparable, PP point[P], Grp, Work any](t *testing.T, a *Adder[P, PP, Grp, Work], random func(*rand.Rand) P, sizes []int) {
	rng := rand.New(rand.NewPCG(5, 6))
	pool := make([]P, 64)
	for i := range pool {
		pool[i] = random(rng)
	}
	for _, n := range sizes {
		accs := make([]P, n)
		qs := make([]P, n)
		neg := make([]bool, n)
		want := make([]P, n)
		for i := range accs {
			accs[i] = pool[rng.IntN(len(pool))]
			qs[i] = pool[rng.IntN(len(pool))]
			neg[i] = rng.IntN(3) == 0
			switch rng.IntN(8) {
			case 0: // doubling
				qs[i] = accs[i]
				neg[i] = false
			case 1: // acc + (−acc) = infinity, written either way
				qs[i] = accs[i]
				neg[i] = true
			case 2:
				PP(&qs[i]).Neg(&accs[i])
				neg[i] = false
			}
			q := qs[i]
			if neg[i] {
				PP(&q).Neg(&q)
			}
			PP(&want[i]).Add(&accs[i], &q)
		}
		for i := range accs {
			a.Add(&accs[i], &qs[i], neg[i])
		}
		if a.Len() != n {
			t.Fatalf("Len %d after %d adds", a.Len(), n)
		}
		inf := a.Flush()
		nInf := 0
		for i := range accs {
			if !equalPoints(&accs[i], &want[i]) {
				t.Fatalf("batch of %d, entry %d: got %v, want %v", n, i, accs[i], want[i])
			}
			if PP(&want[i]).IsInfinity() {
				nInf++
			}
		}
		if len(inf) != nInf {
			t.Fatalf("batch of %d: %d reported at infinity, %d are", n, len(inf), nInf)
		}
		for _, p := range inf {
			if !PP(p).IsInfinity() {
				t.Fatalf("reported %v at infinity", p)
			}
		}
		if a.Len() != 0 {
			t.Fatal("Flush left entries queued")
		}
	}
}

// equalPoints compares affine points as values (infinity is (0, 0) in both
// representations here).
func equalPoints[P comparable](a, b *P) bool { return *a == *b }

func testG1Adder(t *testing.T, k kernels, sizes []int) {
	testAdder(t, newG1Adder(k, 72), randomG1, sizes)
}

func testG2Adder(t *testing.T, k kernels, sizes []int) {
	testAdder(t, newG2Adder(k, 72), randomG2, sizes)
}

var adderSizes = []int{1, 7, 8, 9, 16, 31, 72}

func TestG1AdderGo(t *testing.T) { testG1Adder(t, goKernels, adderSizes) }

func TestG2AdderGo(t *testing.T) { testG2Adder(t, goKernels, adderSizes) }

func TestG1AdderFull(t *testing.T) {
	a := newG1Adder(goKernels, 3) // rounds up to 8
	var p bls.G1Affine
	for i := 0; i < 8; i++ {
		a.Add(&p, &p, false)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Add to a full batch did not panic")
		}
	}()
	a.Add(&p, &p, false)
}
