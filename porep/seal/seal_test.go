package seal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/graph"
)

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "testdata"}, parts...)...)
}

// TestSDRLabelVectors pins test_stacked_porep_generate_labels: 11 layers
// over 64 and 128 nodes, replica_id = 32 × 0x09, the last label of the last
// layer.
func TestSDRLabelVectors(t *testing.T) {
	var tv struct {
		SDR struct {
			Cases []struct {
				Nodes      uint64 `json:"nodes"`
				PoRepID    string `json:"porep_id_hex"`
				APIVersion string `json:"api_version"`
				Label      string `json:"last_label_le_hex"`
			} `json:"cases"`
		} `json:"sdr_last_labels"`
	}
	raw, err := os.ReadFile(testdata("upstream", "test_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &tv); err != nil {
		t.Fatal(err)
	}
	if len(tv.SDR.Cases) != 4 {
		t.Fatalf("%d cases", len(tv.SDR.Cases))
	}
	for _, tc := range tv.SDR.Cases {
		versions := []filecoin.APIVersion{filecoin.V1_0_0}
		if tc.APIVersion != "V1_0_0" {
			versions = []filecoin.APIVersion{filecoin.V1_1_0, filecoin.V1_2_0}
		}
		for _, v := range versions {
			g, err := graph.New(tc.Nodes, golden.Hex32(t, tc.PoRepID), v)
			if err != nil {
				t.Fatal(err)
			}
			labels, err := Labels(context.Background(), g, fill(9), 11, 2)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := labels[10][tc.Nodes-1], golden.Hex32(t, tc.Label); got != want {
				t.Errorf("%d nodes, api %v: last label %x, want %x", tc.Nodes, v, got, want)
			}
		}
	}
}

// TestCommDEmpty pins test_compute_comm_d_empty.
func TestCommDEmpty(t *testing.T) {
	for size, want := range map[int]string{
		2048: "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833",
		128:  "3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333",
	} {
		got, err := CommD(make([]byte, size), 1)
		if err != nil {
			t.Fatal(err)
		}
		if got != golden.Hex32(t, want) {
			t.Errorf("%d zero bytes: comm_d %x, want %s", size, got, want)
		}
	}
	// The same through a sealed empty 2 KiB sector.
	r, err := PreCommit(context.Background(), Input{Proof: filecoin.StackedDrg2KiBV1_1, Data: make([]byte, 2032)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.CommD() != golden.Hex32(t, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833") {
		t.Errorf("empty sector comm_d %x", r.CommD())
	}
}

// rustRefInput is the fixed input of tools/rustref seal.
func rustRefInput(p filecoin.RegisteredSealProof) (Input, [32]byte) {
	return DefaultInput(p), DefaultSeed
}

// compareRustRef seals with the harness's inputs and requires c1.json to
// be byte-identical to the one rust-fil-proofs wrote.
func compareRustRef(t *testing.T, size string, p filecoin.RegisteredSealProof) {
	dir := testdata("rustref", "seal", size)
	want, err := os.ReadFile(filepath.Join(dir, "c1.json"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s missing: regenerate with scripts/golden.sh", filepath.Join(dir, "c1.json"))
	}
	if err != nil {
		t.Fatal(err)
	}
	var cd struct {
		CommD, CommR, ReplicaID string
	}
	raw, err := os.ReadFile(filepath.Join(dir, "commdr.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &struct {
		CommD     *string `json:"comm_d"`
		CommR     *string `json:"comm_r"`
		ReplicaID *string `json:"replica_id"`
	}{&cd.CommD, &cd.CommR, &cd.ReplicaID}); err != nil {
		t.Fatal(err)
	}
	in, seed := rustRefInput(p)
	o, r, err := Seal(context.Background(), in, seed, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.CommD() != golden.Hex32(t, cd.CommD) || r.CommR() != golden.Hex32(t, cd.CommR) || r.ReplicaID() != golden.Hex32(t, cd.ReplicaID) {
		t.Errorf("comm_d %x comm_r %x replica_id %x; rust-fil-proofs: %s %s %s",
			r.CommD(), r.CommR(), r.ReplicaID(), cd.CommD, cd.CommR, cd.ReplicaID)
	}
	got := o.AppendJSON(nil)
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		lo := max(0, i-80)
		t.Fatalf("c1.json differs from rust-fil-proofs' at byte %d (lengths %d, %d):\n go: …%s\nrust: …%s",
			i, len(got), len(want), got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
	}
}

func TestRustRef2KiB(t *testing.T) { compareRustRef(t, "2KiB", filecoin.StackedDrg2KiBV1_1) }

func TestRustRef8MiB(t *testing.T) {
	testenv.Short(t, "8 MiB sealing takes seconds")
	compareRustRef(t, "8MiB", filecoin.StackedDrg8MiBV1_1)
}

// TestSealModes seals 2 KiB sectors of every api version and challenge
// mode; each C1 must validate, pass the native vanilla check (which derives
// the challenges independently) and survive a JSON round trip.
func TestSealModes(t *testing.T) {
	for _, p := range []filecoin.RegisteredSealProof{
		filecoin.StackedDrg2KiBV1,
		filecoin.StackedDrg2KiBV1_1,
		filecoin.StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
		filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
	} {
		t.Run(p.String(), func(t *testing.T) {
			in, seed := rustRefInput(p)
			o, r, err := Seal(context.Background(), in, seed, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(o.VanillaProofs) != p.Partitions() {
				t.Fatalf("%d partitions, want %d", len(o.VanillaProofs), p.Partitions())
			}
			if err := porep.VerifyVanilla(context.Background(), o, 2); err != nil {
				t.Fatal(err)
			}
			enc := o.AppendJSON(nil)
			back, err := c1.Parse(enc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back.AppendJSON(nil), enc) {
				t.Fatal("round trip changed the bytes")
			}
			// The circuit inputs give the verifier's public inputs.
			cfg, _ := porep.ConfigFor(p)
			pub := porep.SealPublic{Config: cfg, CommR: r.CommR(), CommD: r.CommD(), ProverID: in.ProverID,
				Sector: in.Sector, Ticket: in.Ticket, Seed: seed}
			for k := range o.VanillaProofs {
				want, err := pub.PublicInputs(k)
				if err != nil {
					t.Fatal(err)
				}
				ci, err := porep.CircuitInputs(o, k)
				if err != nil {
					t.Fatal(err)
				}
				got := ci.PublicInputs()
				for i := range want {
					if !got[i].Equal(&want[i]) {
						t.Fatalf("partition %d input %d differs", k, i)
					}
				}
			}
		})
	}
}

// TestDeterministic: the same inputs give the same bytes whatever the
// worker count.
func TestDeterministic(t *testing.T) {
	in, seed := rustRefInput(filecoin.StackedDrg2KiBV1_1)
	var prev []byte
	for _, workers := range []int{1, 3, 0} {
		o, _, err := Seal(context.Background(), in, seed, workers)
		if err != nil {
			t.Fatal(err)
		}
		b := o.AppendJSON(nil)
		if prev != nil && !bytes.Equal(b, prev) {
			t.Fatalf("workers=%d changed the output", workers)
		}
		prev = b
	}
	// Padded input gives the same sector as raw input.
	padded, err := PadData(in.Data, filecoin.SectorSize2KiB)
	if err != nil {
		t.Fatal(err)
	}
	in.Data = padded
	o, _, err := Seal(context.Background(), in, seed, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(o.AppendJSON(nil), prev) {
		t.Fatal("padded input sealed differently")
	}
	// Another seed changes the challenges, not the commitments.
	o2, _, err := Seal(context.Background(), in, fill(3), 1)
	if err != nil {
		t.Fatal(err)
	}
	if o2.CommR != o.CommR || bytes.Equal(o2.AppendJSON(nil), prev) {
		t.Fatal("seed did not change only the proofs")
	}
}

func TestSealErrors(t *testing.T) {
	ctx := context.Background()
	in, seed := rustRefInput(filecoin.StackedDrg2KiBV1_1)
	bad := in
	bad.Data = in.Data[:100]
	if _, err := PreCommit(ctx, bad, 1); !errors.Is(err, ErrDataLength) {
		t.Errorf("short data: %v", err)
	}
	bad.Data = bytes.Repeat([]byte{0xff}, 2048)
	if _, err := PreCommit(ctx, bad, 1); !errors.Is(err, ErrDataNotPadded) {
		t.Errorf("unpadded 2048 bytes: %v", err)
	}
	bad = in
	bad.Proof = filecoin.StackedDrg32GiBV1_1
	if _, err := PreCommit(ctx, bad, 1); !errors.Is(err, ErrSectorSize) {
		t.Errorf("32 GiB: %v", err)
	}
	bad.Proof = 42
	if _, err := PreCommit(ctx, bad, 1); !errors.Is(err, porep.ErrConfig) {
		t.Errorf("proof 42: %v", err)
	}
	r, err := PreCommit(ctx, in, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Commit(ctx, [32]byte{}, 1); !errors.Is(err, ErrZeroSeed) {
		t.Errorf("zero seed: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := PreCommit(cancelled, in, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := r.Commit(cancelled, seed, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled commit: %v", err)
	}
}

func benchmarkSeal(b *testing.B, p filecoin.RegisteredSealProof, workers int) {
	in, seed := rustRefInput(p)
	b.SetBytes(int64(p.SectorSize()))
	for b.Loop() {
		if _, _, err := Seal(context.Background(), in, seed, workers); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeal2KiB(b *testing.B) { benchmarkSeal(b, filecoin.StackedDrg2KiBV1_1, 2) }
func BenchmarkSeal8MiB(b *testing.B) { benchmarkSeal(b, filecoin.StackedDrg8MiBV1_1, 2) }

// BenchmarkSeal512MiB needs about 5 GB and minutes; run it explicitly.
func BenchmarkSeal512MiB(b *testing.B) { benchmarkSeal(b, filecoin.StackedDrg512MiBV1_1, 2) }

func BenchmarkLabels8MiB(b *testing.B) {
	g, err := graph.ForSealProof(filecoin.StackedDrg8MiBV1_1)
	if err != nil {
		b.Fatal(err)
	}
	parents, err := g.ParentCache(context.Background(), 2)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := labelsFromCache(context.Background(), parents, int(g.Nodes()), fill(9), 2); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*g.Nodes()), "ns/label")
}
