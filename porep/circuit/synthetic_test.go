package circuit

import (
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/r1cs"
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
	want, err := r1cs.Synthesize(blank, r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Synthetic(p, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r1cs.Synthesize(s, r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Size() != want.Size() {
		t.Fatalf("synthetic %+v, blank %+v", got.Size(), want.Size())
	}
	one, err := Synthetic(p, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	cs1, err := r1cs.Synthesize(one, r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.In.Challenges) != 1 || cs1.Size().Constraints >= got.Size().Constraints || d.Challenges < 2 {
		t.Fatalf("one challenge: %d rows of %d", cs1.Size().Constraints, got.Size().Constraints)
	}
}
