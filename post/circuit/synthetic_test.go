package circuit

import (
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// TestSyntheticCounts: a synthetic circuit has the rows, inputs and aux
// variables of the blank one the parameters come from; fewer sectors give
// proportionally fewer rows.
func TestSyntheticCounts(t *testing.T) {
	for _, p := range []filecoin.RegisteredPoStProof{filecoin.StackedDrgWindow2KiBV1_2, filecoin.StackedDrgWinning2KiBV1} {
		shape, err := DimsOf(p)
		if err != nil {
			t.Fatal(err)
		}
		blank, err := Blank(shape)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Synthetic(p, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := testcircuits.Size(t, s), testcircuits.Size(t, blank); got != want {
			t.Fatalf("%v: synthetic %+v, blank %+v", p, got, want)
		}
	}
	shape, _ := DimsOf(filecoin.StackedDrgWindow32GiBV1_2)
	s, err := Synthetic(filecoin.StackedDrgWindow32GiBV1_2, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sectors) != 3 || shape.Sectors != 2349 {
		t.Fatalf("%d sectors (shape %d)", len(s.Sectors), shape.Sectors)
	}
}
