package post

import (
	"context"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

// sealedTreeRLast seals a 2 KiB CC sector natively and rebuilds its
// tree_r_last from the last-layer labels (data is zero, so the replica is
// the key).
func sealedTreeRLast(t *testing.T, sector uint64) (*seal.Replica, *merkle.PoseidonTree, fr.Element) {
	t.Helper()
	in := seal.Input{Proof: filecoin.StackedDrg2KiBV1_1, Data: make([]byte, 2032), ProverID: filecoin.ProverID(1000), Sector: sector}
	in.Ticket[0] = 1
	r, err := seal.PreCommit(context.Background(), in, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := filecoin.SectorSize2KiB.Nodes()
	leaves := make([]fr.Element, n)
	for i := range leaves {
		b := r.Label(2, uint64(i))
		if leaves[i], err = fr.LittleEndian.Element(&b); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := merkle.BuildPoseidon(merkle.ShapeBase, leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.Root(); frLE(r.CommRLast()) != got {
		t.Fatal("rebuilt tree_r_last differs from the sealed comm_r_last")
	}
	return r, tree, frLE(r.CommC())
}

// TestSealedSectorPoSt: WindowPoSt and WinningPoSt vanilla proofs of a
// sector sealed by porep/seal verify against its comm_r.
func TestSealedSectorPoSt(t *testing.T) {
	r1, tree1, commC1 := sealedTreeRLast(t, 1)
	r2, tree2, commC2 := sealedTreeRLast(t, 2)
	var rnd [32]byte
	rnd[3] = 9
	window := filecoin.StackedDrgWindow2KiBV1_2
	var vs []*VanillaProof
	for i, s := range []struct {
		id    uint64
		tree  *merkle.PoseidonTree
		commC fr.Element
	}{{1, tree1, commC1}, {2, tree2, commC2}} {
		v, err := GenerateVanillaProof(window, rnd, s.id, i, s.tree, s.commC)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := v.Encode(window)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeVanillaProof(enc, window)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, back)
	}
	pt, err := NewWindowPartition(window, rnd, vs, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := pt.Verify(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := pt.CheckSectors([]PublicSector{{1, frLE(r1.CommR())}, {2, frLE(r2.CommR())}}); err != nil {
		t.Fatal(err)
	}
	winning := filecoin.StackedDrgWinning2KiBV1
	v, err := GenerateVanillaProof(winning, rnd, 1, 0, tree1, commC1)
	if err != nil {
		t.Fatal(err)
	}
	wp, err := NewWinningPartition(winning, rnd, []*VanillaProof{v})
	if err != nil {
		t.Fatal(err)
	}
	if err := wp.Verify(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if err := wp.CheckSectors([]PublicSector{{1, frLE(r1.CommR())}}); err != nil {
		t.Fatal(err)
	}
}
