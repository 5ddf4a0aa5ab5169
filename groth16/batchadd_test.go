package groth16

import (
	"math/big"
	"math/rand/v2"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// groupPoint is what checkBatchEdges needs of bls.G1Affine and bls.G2Affine
// (a test only: the adders themselves stay one per group, unboxed).
type groupPoint[T any] interface {
	*T
	SetInfinity() *T
	Neg(*T) *T
	Add(a, b *T) *T
	Equal(*T) bool
}

// batchAdder is g1Batch or g2Batch.
type batchAdder[T any] interface {
	init(n int)
	reset()
	add(acc, q *T, negate bool)
	flush()
}

// TestG1BatchEdges: the batch adder (IFMA where in use, scalar otherwise)
// against gnark-crypto's complete addition for every case the summer and
// the fixed-base tables meet: an accumulator at infinity, q at infinity,
// acc = q (doubling), acc = −q (cancelling), negated points, and ordinary
// pairs, over several batches of one adder.
func TestG1BatchEdges(t *testing.T) {
	checkBatchEdges[bls.G1Affine](t, &g1Batch{}, rand.New(rand.NewPCG(21, 22)), manyPoints(16, 5), 64, 4)
}

// TestG2BatchEdges is TestG1BatchEdges for g2Batch.
func TestG2BatchEdges(t *testing.T) {
	_, _, _, gen := bls.Generators()
	pool := make([]bls.G2Affine, 12)
	for i := range pool {
		pool[i].ScalarMultiplication(&gen, big.NewInt(int64(1000+7*i)))
	}
	checkBatchEdges[bls.G2Affine](t, &g2Batch{}, rand.New(rand.NewPCG(23, 24)), pool, 32, 3)
}

// checkBatchEdges runs rounds batches of up to size additions of points
// drawn from pool through b and compares each sum with T's Add.
func checkBatchEdges[T any, P groupPoint[T]](t *testing.T, b batchAdder[T], rng *rand.Rand, pool []T, size, rounds int) {
	t.Helper()
	b.init(size)
	for round := range rounds {
		n := 1 + rng.IntN(size)
		accs := make([]T, n)
		qs := make([]T, n)
		neg := make([]bool, n)
		want := make([]T, n)
		for i := range accs {
			accs[i], qs[i], neg[i] = pool[rng.IntN(len(pool))], pool[rng.IntN(len(pool))], rng.IntN(2) == 0
			switch rng.IntN(6) {
			case 0:
				P(&accs[i]).SetInfinity()
			case 1:
				P(&qs[i]).SetInfinity()
			case 2:
				qs[i], neg[i] = accs[i], false
			case 3:
				qs[i], neg[i] = accs[i], true
			}
			q := qs[i]
			if neg[i] {
				P(&q).Neg(&q)
			}
			P(&want[i]).Add(&accs[i], &q)
		}
		b.reset()
		for i := range accs {
			b.add(&accs[i], &qs[i], neg[i])
		}
		b.flush()
		for i := range accs {
			if !P(&accs[i]).Equal(&want[i]) {
				t.Fatalf("round %d, entry %d of %d: got %v, want %v", round, i, n, accs[i], want[i])
			}
		}
	}
}
