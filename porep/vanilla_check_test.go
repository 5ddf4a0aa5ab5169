package porep

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// commDR is testdata/rustref/seal/<size>/commdr.json.
type commDR struct {
	CommD     string `json:"comm_d"`
	CommR     string `json:"comm_r"`
	ProverID  string `json:"prover_id"`
	Ticket    string `json:"ticket"`
	Seed      string `json:"seed"`
	PoRepID   string `json:"porep_id"`
	ReplicaID string `json:"replica_id"`
	Sector    uint64 `json:"sector"`
	Proof     int64  `json:"registered_proof"`
	Size      uint64 `json:"sector_size"`
}

func rustSeal(t testing.TB, size string) (*c1.Output, SealPublic, commDR) {
	t.Helper()
	raw, err := os.ReadFile(testdata("rustref", "seal", size, "c1.json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := c1.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var cd commDR
	golden.ReadJSON(t, testdata("rustref", "seal", size, "commdr.json"), &cd)
	cfg, err := ConfigFor(filecoin.RegisteredSealProof(cd.Proof))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.PoRepID != golden.Hex32(t, cd.PoRepID) || uint64(cfg.SectorSize) != cd.Size {
		t.Fatalf("commdr.json: porep_id %s, size %d disagree with proof %d", cd.PoRepID, cd.Size, cd.Proof)
	}
	pub := SealPublic{
		Config: cfg, CommR: golden.Hex32(t, cd.CommR), CommD: golden.Hex32(t, cd.CommD), ProverID: golden.Hex32(t, cd.ProverID),
		Sector: cd.Sector, Ticket: golden.Hex32(t, cd.Ticket), Seed: golden.Hex32(t, cd.Seed),
	}
	return o, pub, cd
}

// TestRustC1 checks the C1s rust-fil-proofs sealed: they pass the self
// check, and the circuit inputs extracted from them give exactly the public
// inputs a verifier derives from the public values.
func TestRustC1(t *testing.T) {
	for _, size := range []string{"2KiB", "8MiB"} {
		t.Run(size, func(t *testing.T) {
			o, pub, cd := rustSeal(t, size)
			if err := VerifyVanilla(context.Background(), o, 2); err != nil {
				t.Fatal(err)
			}
			if got := pub.ReplicaID(); got != o.ReplicaID || got != golden.Hex32(t, cd.ReplicaID) {
				t.Fatalf("replica_id %x, C1 has %x", got, o.ReplicaID)
			}
			if pub.CommR != o.CommR || pub.CommD != o.CommD || pub.Seed != o.Seed || pub.Ticket != o.Ticket {
				t.Fatal("commdr.json disagrees with c1.json")
			}
			want, err := pub.PublicInputs(0)
			if err != nil {
				t.Fatal(err)
			}
			in, err := CircuitInputs(o, 0)
			if err != nil {
				t.Fatal(err)
			}
			got := in.PublicInputs()
			if len(got) != 39 || len(want) != 39 {
				t.Fatalf("%d and %d inputs, want 39", len(got), len(want))
			}
			for i := range got {
				if !got[i].Equal(&want[i]) {
					t.Errorf("input %d: C1 gives %x, public values give %x", i, fr32.FromElement(&got[i]), fr32.FromElement(&want[i]))
				}
			}
			sh := o.RegisteredProof.SealSpec()
			for _, c := range in.Challenges {
				if len(c.DRGParents) != 6 || len(c.ExpParents) != 8 || len(c.CommDPath) != sh.TreeDDepth() ||
					len(c.CommRLastPath) != sh.TreePathLength() || len(c.CommCPath) != sh.TreePathLength() ||
					len(c.DRGParents[0].Rows) != sh.Layers() || len(c.CommRLastPath[0].Siblings) != 7 || len(c.CommDPath[0].Siblings) != 1 {
					t.Fatalf("challenge %d: unexpected shapes", c.Challenge)
				}
			}
			commR := sectordir.CommR(in.CommC, in.CommRLast)
			if !commR.Equal(&in.CommR) {
				t.Error("comm_r != H(comm_c, comm_r_last)")
			}
			if _, err := CircuitInputs(o, 1); !errors.Is(err, ErrPartition) {
				t.Errorf("partition 1: %v", err)
			}
		})
	}
}

// TestVerifyVanillaTamper changes one value of a real C1 at a time; each must
// be reported with its sentinel at its JSON path.
func TestVerifyVanillaTamper(t *testing.T) {
	const p01 = "vanilla_proofs.StackedDrg2KiBV1[0][1]"
	inc := func(b *[32]byte) { b[0]++ }
	cases := []struct {
		name   string
		mutate func(o *c1.Output)
		err    error
		at     string
	}{
		{"comm_r", func(o *c1.Output) { inc(&o.CommR) }, ErrCommR, "vanilla_proofs.StackedDrg2KiBV1[0]"},
		{"comm_d", func(o *c1.Output) { inc(&o.CommD) }, ErrInconsistentRoots, "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs"},
		{"seed", func(o *c1.Output) { inc(&o.Seed) }, ErrChallenge, "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].node"},
		{"replica_id", func(o *c1.Output) { inc(&o.ReplicaID) }, ErrChallenge, "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].node"},
		{"one label (c_x row)", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].ReplicaColumnProofs.CX.Column.Rows[0]) }, ErrColumnHash, p01 + ".replica_column_proofs.c_x.inclusion_proof"},
		{"one parent row", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].ReplicaColumnProofs.ExpParents[3].Column.Rows[1]) }, ErrColumnHash, p01 + ".replica_column_proofs.exp_parents[3].inclusion_proof"},
		{"one labeling parent", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].LabelingProofs[1].Parents[20]) }, ErrLabel, p01 + ".labeling_proofs[1].parents[20]"},
		{"labeling layer", func(o *c1.Output) { o.VanillaProofs[0][1].LabelingProofs[1].LayerIndex = 3 }, ErrLabel, p01 + ".labeling_proofs[1].layer_index"},
		{"tree_d sibling", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].CommDProofs.Base[3].Hashes[0]) }, ErrMerkleProof, p01 + ".comm_d_proofs"},
		{"tree_d leaf", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].CommDProofs.Leaf) }, ErrMerkleProof, p01 + ".comm_d_proofs"},
		{"tree_d index", func(o *c1.Output) { o.VanillaProofs[0][1].CommDProofs.Base[0].Index ^= 1 }, ErrChallenge, p01 + ".comm_d_proofs"},
		{"tree_r sibling", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].CommRLastProof.Base[1].Hashes[5]) }, ErrMerkleProof, p01 + ".comm_r_last_proof"},
		{"tree_r leaf", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].CommRLastProof.Leaf) }, ErrMerkleProof, p01 + ".comm_r_last_proof"},
		{"tree_r root", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].CommRLastProof.Root) }, ErrInconsistentRoots, p01 + ".comm_r_last_proof"},
		{"tree_c root", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].ReplicaColumnProofs.DRGParents[5].InclusionProof.Root) }, ErrInconsistentRoots, p01 + ".replica_column_proofs.drg_parents[5].inclusion_proof"},
		{"tree_c sibling", func(o *c1.Output) {
			inc(&o.VanillaProofs[0][1].ReplicaColumnProofs.DRGParents[0].InclusionProof.Base[0].Hashes[0])
		}, ErrMerkleProof, p01 + ".replica_column_proofs.drg_parents[0].inclusion_proof"},
		{"parent swap", func(o *c1.Output) {
			r := &o.VanillaProofs[0][1].ReplicaColumnProofs
			r.ExpParents[0], r.ExpParents[1] = r.ExpParents[1], r.ExpParents[0]
		}, ErrParents, p01 + ".replica_column_proofs.exp_parents[0].column.index"},
		{"column index", func(o *c1.Output) { o.VanillaProofs[0][1].ReplicaColumnProofs.CX.Column.Index++ }, ErrChallenge, p01 + ".replica_column_proofs.c_x.column.index"},
		{"encoding parent", func(o *c1.Output) { inc(&o.VanillaProofs[0][1].EncodingProof.Parents[0]) }, ErrEncoding, p01 + ".encoding_proof.parents[0]"},
		{"encoding node", func(o *c1.Output) { o.VanillaProofs[0][1].EncodingProof.Node++ }, ErrEncoding, p01 + ".encoding_proof"},
		{"challenge", func(o *c1.Output) {
			for l := range o.VanillaProofs[0][1].LabelingProofs {
				o.VanillaProofs[0][1].LabelingProofs[l].Node++
			}
		}, ErrChallenge, p01 + ".labeling_proofs[0].node"},
		{"shape", func(o *c1.Output) { o.VanillaProofs[0] = o.VanillaProofs[0][:1] }, c1.ErrShape, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _ := rustSeal(t, "2KiB")
			tc.mutate(o)
			err := VerifyVanilla(context.Background(), o, 2)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if tc.at != "" && !strings.Contains(err.Error(), " at "+tc.at+":") {
				t.Errorf("error %q does not name %s", err, tc.at)
			}
		})
	}
}

func TestCircuitInputsRoots(t *testing.T) {
	o, _, _ := rustSeal(t, "2KiB")
	o.VanillaProofs[0][1].CommRLastProof.Root[0]++
	if _, err := CircuitInputs(o, 0); !errors.Is(err, ErrInconsistentRoots) {
		t.Errorf("comm_r_last: %v", err)
	}
	o, _, _ = rustSeal(t, "2KiB")
	o.VanillaProofs[0][1].ReplicaColumnProofs.CX.InclusionProof.Root[0]++
	if _, err := CircuitInputs(o, 0); !errors.Is(err, ErrInconsistentRoots) {
		t.Errorf("comm_c: %v", err)
	}
	// A tampered label is left for the circuit to reject, unless checked.
	o, _, _ = rustSeal(t, "2KiB")
	if err := VerifyVanilla(context.Background(), o, 2); err != nil {
		t.Fatalf("honest C1: %v", err)
	}
	o.VanillaProofs[0][1].ReplicaColumnProofs.CX.Column.Rows[0][0]++
	if _, err := CircuitInputs(o, 0); err != nil {
		t.Errorf("tampered label: %v", err)
	}
	if err := VerifyVanilla(context.Background(), o, 2); !errors.Is(err, ErrColumnHash) {
		t.Errorf("tampered label, checked: %v", err)
	}
	o.Seed = [32]byte{}
	if _, err := CircuitInputs(o, 0); !errors.Is(err, c1.ErrZeroSeed) {
		t.Errorf("zero seed: %v", err)
	}
}

func TestVerifyVanillaCancelled(t *testing.T) {
	o, _, _ := rustSeal(t, "2KiB")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := VerifyVanilla(ctx, o, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// FuzzVerifyVanilla: whatever parses must never make the extraction or the
// vanilla check panic.
func FuzzVerifyVanilla(f *testing.F) {
	raw, err := os.ReadFile(testdata("rustref", "seal", "2KiB", "c1.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(strings.Replace(string(raw), `"index":9,`, `"index":10,`, 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := c1.Parse(data)
		if err != nil {
			return
		}
		_, _ = CircuitInputs(o, 0)
		_ = VerifyVanilla(context.Background(), o, 2)
	})
}
