package proofgolden

import (
	"encoding/hex"
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/circuit"
)

// The 2 KiB EmptySectorUpdate circuit (1,705,039 rows), built from the
// vanilla partition proof filecoin-proofs-api made, proved as bellperson
// proves it.
func TestUpdate2KiBMatchesBellperson(t *testing.T) {
	testenv.E2E(t, "sets up and proves the 2 KiB EmptySectorUpdate circuit (1.7 M rows)")
	g := loadProofFile(t, "update_2KiB_p0")
	u, entries := golden.ReadUpdate(t, filepath.Join(golden.Dir(), g.Vanilla))
	rp := filecoin.RegisteredUpdateProof(u.RegisteredProof)
	if rp != filecoin.StackedDrg2KiBUpdateV1 || u.SectorSize != 2048 {
		t.Fatalf("%s holds %v (%d bytes), want the 2 KiB update", g.Vanilla, rp, u.SectorSize)
	}
	vp, err := snap.DecodePartitionProofs(entries, rp)
	if err != nil {
		t.Fatal(err)
	}
	k := g.Partition
	if k < 0 || k >= len(vp) {
		t.Fatalf("partition %d of %d", k, len(vp))
	}

	// The circuit, as EmptySectorUpdateCompound::circuit builds it
	// (generate_empty_sector_update_proof_with_vanilla: h = h_default).
	cp, err := circuit.ParamsFor(u.SectorSize)
	if err != nil {
		t.Fatal(err)
	}
	commROld, commRNew := golden.Fr(t, u.CommROld), golden.Fr(t, u.CommRNew)
	pubIn, err := circuit.NewPublicInputs(cp, k, u.H, commROld, golden.Fr(t, u.CommDNew), commRNew)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := circuit.PrivateFromVanilla(vp[k])
	if err != nil {
		t.Fatal(err)
	}
	circ, err := circuit.New(cp, pubIn, priv)
	if err != nil {
		t.Fatal(err)
	}
	compareInputs(t, "the circuit's public inputs", circ.Public.Vector(), g.PublicInputs)

	// The verifier's inputs, from the three commitments alone.
	pub := snap.Public{Proof: rp, CommROld: commROld, CommRNew: commRNew}
	if b, err := hex.DecodeString(u.CommDNew); err != nil || len(b) != 32 {
		t.Fatalf("comm_d_new %q", u.CommDNew)
	} else {
		copy(pub.CommDNew[:], b)
	}
	inputs, err := pub.PartitionInputs(k)
	if err != nil {
		t.Fatal(err)
	}
	// The request as Curio sends it: raw 32-byte commitments, one bincode
	// entry per partition (one at 2 KiB).
	if len(entries) != 1 || k != 0 {
		t.Fatalf("the 2 KiB update has %d partitions, golden for partition %d", len(entries), k)
	}
	req := &engine.Request{Kind: proofkind.SnapDeals, RegisteredProof: uint64(rp), VanillaProofs: entries,
		CommROld: hexBytes(t, u.CommROld), CommRNew: hexBytes(t, u.CommRNew), CommDNew: pub.CommDNew[:]}
	check(t, g, rp.CircuitID(), &snapkind.Planner{}, req, sizeOf(t, circ), inputs)
}

func hexBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad 64-hex value %q", s)
	}
	return b
}
