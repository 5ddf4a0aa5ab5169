package circuit

import (
	"encoding/hex"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// The proving assignments of the real 2 KiB WindowPoSt and WinningPoSt
// partitions (rust-fil-proofs' vanilla proofs) are the same in every mode
// the engine synthesises in (exact, templated, with and without c), are
// satisfied row by row (c = a∘b), and their digests are pinned: taken from
// the exact assignments of the tree whose proofs verify against
// bellperson's keys (TestGoldenPoSt2KiB pins their R1CS and witness).
func TestAssignmentModes2KiB(t *testing.T) {
	for kind, want := range map[string]string{
		"window":  "9fde2b05383304769b045127437c0f8ad1f7b8b41d4243012b55ced4be7d2f72",
		"winning": "7a9fa1adc9023b6738a59b5441eb48d1fe2dc3babc37185c3571e09cf12cd986",
	} {
		t.Run(kind, func(t *testing.T) {
			exact, digest, err := testcircuits.Modes(circuitFromVanilla(t, kind))
			if err != nil {
				t.Fatal(err)
			}
			if err := testcircuits.Satisfied(exact); err != nil {
				t.Error(err)
			}
			if got := hex.EncodeToString(digest[:]); got != want {
				t.Errorf("proving assignment digest %s, pinned %s", got, want)
			}
		})
	}
}
