package benchspec

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
)

func rustC1File(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/rustref/seal/2KiB/c1.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPoRepSpec(t *testing.T) {
	plain := rustC1File(t)
	spec, err := PoRepSpec(plain, PoRepOptions{MinerID: 1000, RegisteredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Template.RegisteredProof != uint64(filecoin.StackedDrg2KiBV1_1) || spec.Template.SectorSize != 2048 || spec.Template.SectorNumber != 1 ||
		spec.Circuit != "porep-2k" || spec.Partitions != 1 || spec.C1 == nil {
		t.Fatalf("%+v", spec)
	}
	// A plain C1 travels wrapped, as the daemon requires.
	o, w, err := c1.ParseWrapped(spec.Template.VanillaProof)
	if err != nil || w.SectorNum != 1 || o.CommR != spec.C1.CommR {
		t.Fatalf("envelope: %v %+v", err, w)
	}
	req := spec.Request("r-1")
	if req.GetRequestId() != "r-1" || req.GetProofKind() != cuzkv1.ProofKind_POREP_SEAL_COMMIT || req.GetMinerId() != 1000 ||
		req.GetSectorNumber() != 1 || &req.GetVanillaProof()[0] != &spec.Template.VanillaProof[0] {
		t.Fatalf("request %v", req)
	}

	// An envelope is sent as is and gives the sector number.
	wrapped, _ := c1.Wrap(spec.C1, 42).MarshalJSON()
	s2, err := PoRepSpec(wrapped, PoRepOptions{RegisteredProof: 5})
	if err != nil || s2.Template.SectorNumber != 42 || string(s2.Template.VanillaProof) != string(wrapped) {
		t.Fatalf("%v %+v", err, s2)
	}
	for _, bad := range []struct {
		data []byte
		opt  PoRepOptions
		want string
	}{
		{wrapped, PoRepOptions{SectorNumber: 7, RegisteredProof: -1}, "envelope says 42"},
		{plain, PoRepOptions{RegisteredProof: 6}, "the C1 is for"},
		{[]byte(`{"registered_proof":"StackedDrg2KiBV1_1"}`), PoRepOptions{RegisteredProof: -1}, "C1:"},
	} {
		if _, err := PoRepSpec(bad.data, bad.opt); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.opt, err, bad.want)
		}
	}
}

func TestTestSpec(t *testing.T) {
	spec, err := TestSpec(12, testkind.Options{Partitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	var opt testkind.Options
	if err := json.Unmarshal(spec.Template.VanillaProof, &opt); err != nil || opt.Partitions != 3 {
		t.Fatalf("options %s: %v", spec.Template.VanillaProof, err)
	}
	if spec.Template.RegisteredProof != 12 || spec.Template.SectorSize != 4096 || spec.Circuit != "test-k12" || spec.Partitions != 3 {
		t.Fatalf("%+v", spec)
	}
	if s, _ := TestSpec(10, testkind.Options{}); s.Template.VanillaProof != nil || s.Partitions != 1 {
		t.Fatalf("default options sent: %q", s.Template.VanillaProof)
	}
	if _, err := TestSpec(3, testkind.Options{}); err == nil {
		t.Fatal("k=3 accepted")
	}
}

func TestVerifyReplicaMismatch(t *testing.T) {
	spec, err := PoRepSpec(rustC1File(t), PoRepOptions{MinerID: 1001, RegisteredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The wrong miner id is caught before any pairing (no key needed).
	if _, _, err := spec.Verify(nil, make([]byte, 192)); !errors.Is(err, ErrReplicaMismatch) {
		t.Fatalf("%v", err)
	}
	if _, _, err := (&Spec{Spec: &bench.Spec{Template: &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE}}}).Verify(nil, nil); !errors.Is(err, ErrNoVerifier) {
		t.Fatal(err)
	}
	p, err := spec.VerifyingKeyPath("/params")
	if err != nil || !strings.HasPrefix(p, "/params/v28-stacked-proof-of-replication") || !strings.HasSuffix(p, ".vk") {
		t.Fatal(p, err)
	}
	if p, _ := (&Spec{Spec: &bench.Spec{Template: client.TestRequest("", 10, nil)}, LogRows: 10}).VerifyingKeyPath("/d"); p != "/d/cuzk-test-mixed-k10.vk" {
		t.Fatal(p)
	}
}

// Verifier reads the key given, or the one VerifyingKeyPath names, and
// fails up front when there is none; its Verify is the spec's.
func TestVerifier(t *testing.T) {
	spec, err := PoRepSpec(rustC1File(t), PoRepOptions{MinerID: 1001, RegisteredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	vk := filepath.Join("..", "testdata", "polka-2kib-porep", "vk.bin")
	v, err := spec.Verifier(vk, "/nonexistent")
	if err != nil || v.Path != vk {
		t.Fatalf("given key: %+v, %v", v, err)
	}
	if _, _, err := v.Verify(make([]byte, 192)); !errors.Is(err, ErrReplicaMismatch) {
		t.Errorf("Verify is not the spec's: %v", err)
	}
	dir := t.TempDir()
	want, err := spec.VerifyingKeyPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spec.Verifier("", dir); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Base(want)) {
		t.Errorf("no key in the parameter directory: %v, want one naming %s", err, want)
	}
	snapSpec := &Spec{Spec: &bench.Spec{Template: &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE}}}
	if _, err := snapSpec.Verifier("", dir); !errors.Is(err, ErrNoVerifier) {
		t.Errorf("no circuit: %v", err)
	}
}

func TestPartitionProofs(t *testing.T) {
	for n, want := range map[int]int{0: 0, 191: 0, 192: 1, 10 * 192: 10, 10*192 + 5: 10} {
		if got := PartitionProofs(n); got != want {
			t.Errorf("%d bytes: %d partition proofs, want %d", n, got, want)
		}
	}
}
