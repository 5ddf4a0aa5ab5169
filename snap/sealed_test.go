package snap

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// TestSealedCCSectorUpdate updates a CC sector sealed by porep/seal with
// random data and verifies the partition proof against the sealed comm_r.
func TestSealedCCSectorUpdate(t *testing.T) {
	in := seal.Input{Proof: filecoin.StackedDrg2KiBV1_1, Data: make([]byte, 2032), ProverID: filecoin.ProverID(1000), Sector: 5}
	r, err := seal.PreCommit(context.Background(), in, 1)
	if err != nil {
		t.Fatal(err)
	}
	p := filecoin.StackedDrg2KiBUpdateV1
	n := p.Nodes()
	old := make([]fr.Element, n)
	for i := range old {
		b := r.Label(2, uint64(i))
		if old[i], err = fr.LittleEndian.Element(&b); err != nil {
			t.Fatal(err)
		}
	}
	treeROld, err := merkle.BuildPoseidon(TreeRShape(p), old, 1)
	if err != nil {
		t.Fatal(err)
	}
	commC, _ := fr.LittleEndian.Element(new([32]byte(r.CommC())))
	commROld, _ := fr.LittleEndian.Element(new([32]byte(r.CommR())))
	if sectordir.CommR(commC, treeROld.Root()) != commROld {
		t.Fatal("rebuilt tree_r_old does not give the sealed comm_r")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	data := make([][32]byte, n)
	dataFr := make([]fr.Element, n)
	for i := range data {
		for j := range 31 {
			data[i][j] = byte(rng.Uint32())
		}
		dataFr[i], _ = fr.LittleEndian.Element(&data[i])
	}
	treeD, err := merkle.BuildSha254(data, 1)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeReplica(p, treeD.Root(), commROld, old, dataFr)
	if err != nil {
		t.Fatal(err)
	}
	treeRNew, err := merkle.BuildPoseidon(TreeRShape(p), enc, 1)
	if err != nil {
		t.Fatal(err)
	}
	pub := Public{Proof: p, CommROld: commROld, CommDNew: treeD.Root(), CommRNew: sectordir.CommR(commC, treeRNew.Root())}
	pp, err := GeneratePartitionProof(p, 0, commC, treeROld, treeD, treeRNew)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pp.Encode(p)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodePartitionProof(b, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(context.Background(), pub, 0, back); err != nil {
		t.Fatal(err)
	}
}
