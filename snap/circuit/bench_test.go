package circuit

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// BenchmarkUpdate2KiB synthesises the 2 KiB EmptySectorUpdate circuit
// (1,705,039 rows, 98 % SHA-256) into exact and templated proving
// assignments and a witness-only one, reporting ns/constraint.
func BenchmarkUpdate2KiB(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	u := newUpdatedSector(b, rng, mustParams(b, 2<<10))
	c := u.circuit(b, 0)
	testcircuits.BenchmarkSynthesis(b, c)
}
