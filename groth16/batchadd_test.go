package groth16

import (
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// TestG1BatchEdges: the batch adder (IFMA where in use, scalar otherwise)
// against gnark-crypto's complete addition for every case the summer and
// the fixed-base tables meet: an accumulator at infinity, q at infinity,
// acc = q (doubling), acc = −q (cancelling), negated points, and ordinary
// pairs, over several batches of one adder.
func TestG1BatchEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	pool := manyPoints(16, 5)
	var b g1Batch
	b.init(64)
	for round := 0; round < 4; round++ {
		n := 1 + rng.IntN(64)
		accs := make([]bls.G1Affine, n)
		qs := make([]bls.G1Affine, n)
		neg := make([]bool, n)
		want := make([]bls.G1Affine, n)
		for i := range accs {
			accs[i], qs[i], neg[i] = pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))], rng.IntN(2) == 0
			switch rng.IntN(6) {
			case 0:
				accs[i].SetInfinity()
			case 1:
				qs[i].SetInfinity()
			case 2:
				qs[i], neg[i] = accs[i], false
			case 3:
				qs[i], neg[i] = accs[i], true
			}
			q := qs[i]
			if neg[i] {
				q.Neg(&q)
			}
			want[i].Add(&accs[i], &q)
		}
		b.reset()
		for i := range accs {
			b.add(&accs[i], &qs[i], neg[i])
		}
		b.flush()
		for i := range accs {
			if !accs[i].Equal(&want[i]) {
				t.Fatalf("round %d, entry %d of %d: got %v, want %v", round, i, n, accs[i], want[i])
			}
		}
	}
}

// TestG2BatchEdges is TestG1BatchEdges for g2Batch.
func TestG2BatchEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	_, _, _, gen := bls.Generators()
	pool := make([]bls.G2Affine, 12)
	for i := range pool {
		pool[i].ScalarMultiplication(&gen, big.NewInt(int64(1000+7*i)))
	}
	var b g2Batch
	b.init(32)
	for round := 0; round < 3; round++ {
		n := 1 + rng.IntN(32)
		accs := make([]bls.G2Affine, n)
		qs := make([]bls.G2Affine, n)
		neg := make([]bool, n)
		want := make([]bls.G2Affine, n)
		for i := range accs {
			accs[i], qs[i], neg[i] = pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))], rng.IntN(2) == 0
			switch rng.IntN(6) {
			case 0:
				accs[i].SetInfinity()
			case 1:
				qs[i].SetInfinity()
			case 2:
				qs[i], neg[i] = accs[i], false
			case 3:
				qs[i], neg[i] = accs[i], true
			}
			q := qs[i]
			if neg[i] {
				q.Neg(&q)
			}
			want[i].Add(&accs[i], &q)
		}
		b.reset()
		for i := range accs {
			b.add(&accs[i], &qs[i], neg[i])
		}
		b.flush()
		for i := range accs {
			if !accs[i].Equal(&want[i]) {
				t.Fatalf("round %d, entry %d of %d: got %v, want %v", round, i, n, accs[i], want[i])
			}
		}
	}
}
