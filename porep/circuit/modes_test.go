package circuit

import (
	"encoding/hex"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/internal/testenv"
)

// The proving assignment of the real 2 KiB partition (rust-fil-proofs'
// C1) is the same in every mode the engine synthesises in (exact,
// templated, with and without c), it is satisfied row by row (c = a∘b, what
// a prover that omits c recomputes), and its digest is pinned, so no
// change to synthesis alters what is proved. The digest was taken from
// the exact assignment of the tree whose proofs are bellperson's bytes
// (TestGoldenPoRep2KiB pins the R1CS and witness it evaluates).
func TestAssignmentModes2KiB(t *testing.T) {
	testenv.Short(t, "2.7 M rows, four times")
	exact, digest, err := testcircuits.Modes(partition(t, rustC1(t, "2KiB"), 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := testcircuits.Satisfied(exact); err != nil {
		t.Error(err)
	}
	const want = "b5930e80765a1fa568a2cb7fcaf785d09ec2c57d7887d81ba0a14e7dc801f447"
	if got := hex.EncodeToString(digest[:]); got != want {
		t.Errorf("2 KiB proving assignment digest %s, pinned %s", got, want)
	}
}
