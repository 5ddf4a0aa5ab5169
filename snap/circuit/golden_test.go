package circuit

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/snap"
)

// circuitFromVanilla is EmptySectorUpdateCompound::circuit for partition k
// of a vanilla PartitionProof.
func circuitFromVanilla(t testing.TB, p Params, k int, u *golden.Update, vp *snap.PartitionProof) *EmptySectorUpdate {
	t.Helper()
	pub, err := NewPublicInputs(p, k, u.H, golden.Fr(t, u.CommROld), golden.Fr(t, u.CommDNew), golden.Fr(t, u.CommRNew))
	if err != nil {
		t.Fatal(err)
	}
	priv, err := PrivateFromVanilla(vp)
	if err != nil {
		t.Fatal(err)
	}
	circ, err := New(p, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return circ
}

func loadUpdate(t *testing.T, size string) (*golden.Update, []*snap.PartitionProof) {
	t.Helper()
	u, entries := golden.ReadUpdate(t, filepath.Join(golden.Dir(), "update", size, "update.json"))
	out, err := snap.DecodePartitionProofs(entries, filecoin.RegisteredUpdateProof(u.RegisteredProof))
	if err != nil {
		t.Fatal(err)
	}
	return u, out
}

// The EmptySectorUpdate circuits built from the vanilla partition proofs
// rust-fil-proofs made (tools/rustref snap-encode: a CC sector updated with
// new data) must be the real EmptySectorUpdateCircuit's rows, inputs and
// witness, partition by partition. 8 MiB partition 3 (both partition bits
// set) runs by default; partitions 0..2 (10 M rows each into a recorder) run
// in the end-to-end pass, CUZK_E2E=1 (golden_e2e_test.go).
func TestGoldenUpdate(t *testing.T) {
	t.Run("update_2KiB_p0", func(t *testing.T) { compareUpdateGolden(t, "2KiB", 0) })
	t.Run("update_8MiB_p3", func(t *testing.T) {
		testenv.Short(t, "10 M rows into a recorder")
		compareUpdateGolden(t, "8MiB", 3)
	})
}

func compareUpdateGolden(t *testing.T, size string, k int) {
	t.Helper()
	g := golden.Require(t, fmt.Sprintf("update_%s_p%d", size, k))
	u, vps := loadUpdate(t, size)
	p := mustParams(t, u.SectorSize)
	if len(vps) != p.Partitions {
		t.Fatalf("%d partition proofs, want %d", len(vps), p.Partitions)
	}
	c := circuitFromVanilla(t, p, k, u, vps[k])
	rec := r1cs.NewRecorder()
	if _, err := r1cs.Synthesize(c, rec); err != nil {
		t.Fatal(err)
	}
	golden.Compare(t, g, rec.Digest())
	want := c.Public.Vector()
	if len(g.PublicInputs) != len(want) {
		t.Fatalf("golden has %d public inputs, circuit %d", len(g.PublicInputs), len(want))
	}
	for i := range want {
		if golden.FrHex(want[i]) != g.PublicInputs[i] {
			t.Errorf("public input %d: %s, rust %s", i, golden.FrHex(want[i]), g.PublicInputs[i])
		}
	}
}
