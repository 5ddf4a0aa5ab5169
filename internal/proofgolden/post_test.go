package proofgolden

import (
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/post/circuit"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// A 2 KiB WindowPoSt partition (2 sectors × 10 challenges, 21,866 rows)
// and a 2 KiB WinningPoSt (66 × 1, 90,750 rows), built from the vanilla
// proofs filecoin-proofs-api made, proved as bellperson proves them.
func TestWindowPoSt2KiBMatchesBellperson(t *testing.T) {
	testenv.E2E(t, "sets up and proves the 2 KiB WindowPoSt circuit")
	testPoSt(t, "window_post_2KiB", filecoin.StackedDrgWindow2KiBV1_2)
}

func TestWinningPoSt2KiBMatchesBellperson(t *testing.T) {
	testenv.E2E(t, "sets up and proves the 2 KiB WinningPoSt circuit")
	testPoSt(t, "winning_post_2KiB", filecoin.StackedDrgWinning2KiBV1)
}

func testPoSt(t *testing.T, name string, want filecoin.RegisteredPoStProof) {
	g := loadProofFile(t, name)
	v, rnd, entries := golden.ReadPoStVanilla(t, filepath.Join(golden.Dir(), g.Vanilla))
	rp := filecoin.RegisteredPoStProof(v.RegisteredProof)
	if rp != want || g.Partition != 0 {
		t.Fatalf("%s holds %v partition %d, want %v partition 0", g.Vanilla, rp, g.Partition, want)
	}
	proofs, err := post.DecodeVanillaProofs(entries, rp)
	if err != nil {
		t.Fatal(err)
	}

	// The circuit, as FallbackPoStCompound::circuit builds it.
	part, err := post.NewPartition(rp, rnd, proofs, 0)
	if err != nil {
		t.Fatal(err)
	}
	dims, err := circuit.DimsOf(rp)
	if err != nil {
		t.Fatal(err)
	}
	sectors, err := circuit.FromPartition(dims, part)
	if err != nil {
		t.Fatal(err)
	}
	circ, err := circuit.New(dims, sectors)
	if err != nil {
		t.Fatal(err)
	}
	compareInputs(t, "the circuit's public inputs", circ.PublicInputs(), g.PublicInputs)

	// The verifier's inputs, from public values only (sector ids and
	// comm_rs as listed in the file, the randomness).
	pub := make([]post.PublicSector, len(v.Sectors))
	for i, s := range v.Sectors {
		pub[i] = post.PublicSector{ID: s.SectorID, CommR: golden.Fr(t, s.CommR)}
	}
	if rp.Type() == filecoin.WinningPoSt {
		if len(pub) != 1 {
			t.Fatalf("winning: %d sectors", len(pub))
		}
		pub = post.WinningPublicSectors(rp, pub[0])
	}
	inputs, err := post.PublicInputs(rp, rnd, pub, 0)
	if err != nil {
		t.Fatal(err)
	}
	kind := proofkind.WindowPoSt
	k := postkind.Window()
	if rp.Type() == filecoin.WinningPoSt {
		kind, k = proofkind.WinningPoSt, postkind.Winning()
	}
	// The request as Curio sends it: one bincode entry per sector.
	req := &engine.Request{Kind: kind, RegisteredProof: uint64(rp), Randomness: rnd[:], VanillaProofs: entries}
	check(t, g, rp.CircuitID(), k, req, sizeOf(t, circ), inputs)
}
