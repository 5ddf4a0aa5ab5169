package snapkind

import (
	"context"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// BenchmarkSynthUpdate2KiB synthesises the EmptySectorUpdate circuit the
// kind plans from a real update of a sealed 2 KiB CC sector (1,705,039
// rows), as the engine does (exact, templated, witness-only).
func BenchmarkSynthUpdate2KiB(b *testing.B) {
	plan, err := (&Planner{}).Plan(context.Background(), request(update(b)))
	if err != nil {
		b.Fatal(err)
	}
	testcircuits.BenchmarkSynthesis(b, plan.Partitions[0].Circuit)
}
