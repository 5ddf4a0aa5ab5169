package circuit

import (
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// TestSyntheticCounts: a synthetic partition has exactly the rows, inputs
// and aux variables of the real one (counted from the blank circuit the
// parameters are generated from), and a reduced one scales with its
// challenges.
func TestSyntheticCounts(t *testing.T) {
	p := filecoin.StackedDrg2KiBV1_1
	d, in, err := Blank(p)
	if err != nil {
		t.Fatal(err)
	}
	blank, err := New(d, in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Synthetic(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, want := testcircuits.Size(t, s), testcircuits.Size(t, blank)
	if got != want {
		t.Fatalf("synthetic %+v, blank %+v", got, want)
	}
	one, err := Synthetic(p, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rows := testcircuits.Size(t, one).Constraints; len(one.In.Challenges) != 1 || rows >= got.Constraints || d.Challenges < 2 {
		t.Fatalf("one challenge: %d rows of %d", rows, got.Constraints)
	}
}
