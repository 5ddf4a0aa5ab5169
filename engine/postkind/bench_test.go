package postkind

import (
	"context"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// The circuits the kinds plan from real vanilla proofs of sealed 2 KiB
// sectors, synthesised as the engine synthesises them (exact, templated,
// witness-only): ns/constraint.

func BenchmarkSynthWindowPoSt2KiB(b *testing.B) {
	plan, err := Window().Plan(context.Background(), windowRequest(b, filecoin.StackedDrgWindow2KiBV1_2, testkit.Randomness(1), sectors(b)[:2], 0))
	if err != nil {
		b.Fatal(err)
	}
	testcircuits.BenchmarkSynthesis(b, plan.Partitions[0].Circuit)
}

func BenchmarkSynthWinningPoSt2KiB(b *testing.B) {
	plan, err := Winning().Plan(context.Background(), winningRequest(b, testkit.Randomness(1), sectors(b)[0]))
	if err != nil {
		b.Fatal(err)
	}
	testcircuits.BenchmarkSynthesis(b, plan.Partitions[0].Circuit)
}
