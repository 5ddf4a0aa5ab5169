package circuit

import (
	"encoding/hex"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// The proving assignment of the real 2 KiB SnapDeals partition
// (rust-fil-proofs' vanilla proof) is the same in every mode the engine
// synthesises in (exact, templated, with and without c), is satisfied row
// by row (c = a∘b), and its digest is pinned: taken from the exact
// assignment of the tree whose R1CS and witness TestGoldenUpdate pins.
func TestAssignmentModes2KiB(t *testing.T) {
	u, vps := loadUpdate(t, "2KiB")
	c := circuitFromVanilla(t, mustParams(t, u.SectorSize), 0, u, vps[0])
	exact, digest, err := testcircuits.Modes(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := testcircuits.Satisfied(exact); err != nil {
		t.Error(err)
	}
	const want = "b8ff2bbb9eec47e58af66c2dd1f3cf792f30b3d673cf21bf7807f6cea9b2dd56"
	if got := hex.EncodeToString(digest[:]); got != want {
		t.Errorf("proving assignment digest %s, pinned %s", got, want)
	}
}
