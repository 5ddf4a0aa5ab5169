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
	testG2HalfZeroDen(t, newG2Adder(k, 72))
}

// testG2HalfZeroDen adds to each accumulator a point whose x shares one
// component with the accumulator's: den = q.x − acc.x is then zero in
// that component alone, a lane the kernels must neither mark as a
// doubling or cancellation nor get wrong (random points never give one). The points are on the
// curve but not in the subgroup, which the affine formulas ignore.
func testG2HalfZeroDen(t *testing.T, a *G2Adder) {
	rng := rand.New(rand.NewPCG(7, 8))
	var b bls.E2 // the twist's b = 4(1 + u)
	b.A0.SetUint64(4)
	b.A1.SetUint64(4)
	accs, qs, want := make([]bls.G2Affine, 8), make([]bls.G2Affine, 8), make([]bls.G2Affine, 8)
	for i := range accs {
		accs[i] = randomG2(rng)
		for {
			x := accs[i].X
			other := &x.A1
			if i%2 == 1 {
				other = &x.A0
			}
			other.SetUint64(rng.Uint64())
			var rhs bls.E2
			rhs.Square(&x).Mul(&rhs, &x).Add(&rhs, &b)
			if rhs.Legendre() != 1 {
				continue
			}
			qs[i].X = x
			qs[i].Y.Sqrt(&rhs)
			break
		}
		if !qs[i].IsOnCurve() {
			t.Fatalf("entry %d: %v is not on the curve", i, qs[i])
		}
		q := qs[i]
		neg := i%3 == 0
		if neg {
			q.Neg(&q)
		}
		want[i].Add(&accs[i], &q)
		a.Add(&accs[i], &qs[i], neg)
	}
	if inf := a.Flush(); len(inf) != 0 {
		t.Fatalf("%d entries reported at infinity", len(inf))
	}
	// Go's complete formula would mend a lane marked wrongly: the marks
	// themselves are checked.
	if a.zero[0] != 0 {
		t.Fatalf("lanes %08b marked as den = 0", a.zero[0])
	}
	for i := range accs {
		if accs[i] != want[i] {
			t.Fatalf("entry %d (x shares component %d): got %v, want %v", i, 1-i%2, accs[i], want[i])
		}
	}
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
