package circuit

import (
	"math/rand/v2"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/merkle"
)

func benchPoSt(b *testing.B, p filecoin.RegisteredPoStProof) {
	shape, err := DimsOf(p)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	var sectors []Sector
	for i := 0; i < shape.Sectors; i++ {
		sectors = append(sectors, testSector(b, rng, merkle.ShapeBase, 64, shape.Challenges))
	}
	f, err := New(shape, sectors)
	if err != nil {
		b.Fatal(err)
	}
	testcircuits.BenchmarkSynthesis(b, f)
}

// BenchmarkWindowPoSt2KiB is a full 2 KiB WindowPoSt partition (21,866 rows).
func BenchmarkWindowPoSt2KiB(b *testing.B) { benchPoSt(b, filecoin.StackedDrgWindow2KiBV1_2) }

// BenchmarkWinningPoSt2KiB is a 2 KiB WinningPoSt (90,750 rows).
func BenchmarkWinningPoSt2KiB(b *testing.B) { benchPoSt(b, filecoin.StackedDrgWinning2KiBV1) }
