package bench

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
)

func TestParseProofType(t *testing.T) {
	for in, want := range map[string]ProofType{
		"porep": TypePoRep, "PoRep-C2": TypePoRep, "seal-commit": TypePoRep,
		"snap": TypeSnap, "snap-deals": TypeSnap, "update": TypeSnap,
		"wpost": TypeWPoSt, "window-post": TypeWPoSt, "windowpost": TypeWPoSt,
		"winning": TypeWinning, "winning-post": TypeWinning, "winningpost": TypeWinning,
		"test": TypeTest,
	} {
		got, err := ParseProofType(in)
		if err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseProofType("c2"); !errors.Is(err, ErrUnknownType) {
		t.Fatal(err)
	}
	if TypeTest.Kind() != client.TestProofKind || TypePoRep.Kind() != cuzkv1.ProofKind_POREP_SEAL_COMMIT || TypeWinning.Kind() != cuzkv1.ProofKind_WINNING_POST {
		t.Fatal("wire kinds")
	}
}

func rustC1(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../testdata/rustref/seal/2KiB/c1.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPoRepSpec(t *testing.T) {
	plain := rustC1(t)
	spec, err := PoRepSpec(plain, PoRepOptions{MinerID: 1000, RegisteredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	if spec.RegisteredProof != uint64(filecoin.StackedDrg2KiBV1_1) || spec.SectorSize != 2048 || spec.SectorNumber != 1 ||
		spec.Circuit != "porep-2k" || spec.Partitions != 1 || spec.C1 == nil {
		t.Fatalf("%+v", spec)
	}
	// A plain C1 travels wrapped, as the daemon requires.
	o, w, err := c1.ParseWrapped(spec.VanillaProof)
	if err != nil || w.SectorNum != 1 || o.CommR != spec.C1.CommR {
		t.Fatalf("envelope: %v %+v", err, w)
	}
	req := spec.Request("r-1")
	if req.GetRequestId() != "r-1" || req.GetProofKind() != cuzkv1.ProofKind_POREP_SEAL_COMMIT || req.GetMinerId() != 1000 ||
		req.GetSectorNumber() != 1 || &req.GetVanillaProof()[0] != &spec.VanillaProof[0] {
		t.Fatalf("request %v", req)
	}

	// An envelope is sent as is and gives the sector number.
	wrapped, _ := c1.Wrap(spec.C1, 42).MarshalJSON()
	s2, err := PoRepSpec(wrapped, PoRepOptions{RegisteredProof: 5})
	if err != nil || s2.SectorNumber != 42 || string(s2.VanillaProof) != string(wrapped) {
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
	if err := json.Unmarshal(spec.VanillaProof, &opt); err != nil || opt.Partitions != 3 {
		t.Fatalf("options %s: %v", spec.VanillaProof, err)
	}
	if spec.RegisteredProof != 12 || spec.SectorSize != 4096 || spec.Circuit != "test-k12" || spec.Partitions != 3 {
		t.Fatalf("%+v", spec)
	}
	if s, _ := TestSpec(10, testkind.Options{}); s.VanillaProof != nil || s.Partitions != 1 {
		t.Fatalf("default options sent: %q", s.VanillaProof)
	}
	if _, err := TestSpec(3, testkind.Options{}); err == nil {
		t.Fatal("k=3 accepted")
	}
}

func TestParseVanillaFile(t *testing.T) {
	b64 := `["` + base64.StdEncoding.EncodeToString([]byte("one")) + `", "` + base64.StdEncoding.EncodeToString([]byte("two")) + `"]`
	got, err := ParseVanillaFile([]byte(b64))
	if err != nil || len(got) != 2 || string(got[0]) != "one" || string(got[1]) != "two" {
		t.Fatalf("%q %v", got, err)
	}
	raw := []byte{0, 1, 2}
	if got, err := ParseVanillaFile(raw); err != nil || len(got) != 1 || string(got[0]) != string(raw) {
		t.Fatalf("raw: %q %v", got, err)
	}
	if _, err := ParseVanillaFile([]byte(`["not base64!"]`)); err == nil || !strings.Contains(err.Error(), "vanilla proof 0") {
		t.Fatal(err)
	}
}

func TestVerifyReplicaMismatch(t *testing.T) {
	spec, err := PoRepSpec(rustC1(t), PoRepOptions{MinerID: 1001, RegisteredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The wrong miner id is caught before any pairing (no key needed).
	if _, _, err := Verify(spec, nil, make([]byte, 192)); !errors.Is(err, ErrReplicaMismatch) {
		t.Fatalf("%v", err)
	}
	if _, _, err := Verify(&Spec{Type: TypeSnap}, nil, nil); !errors.Is(err, ErrNoVerifier) {
		t.Fatal(err)
	}
	p, err := VerifyingKeyPath(spec, "/params")
	if err != nil || !strings.HasPrefix(p, "/params/v28-stacked-proof-of-replication") || !strings.HasSuffix(p, ".vk") {
		t.Fatal(p, err)
	}
	if p, _ := VerifyingKeyPath(&Spec{Type: TypeTest, LogRows: 10}, "/d"); p != "/d/cuzk-test-mixed-k10.vk" {
		t.Fatal(p)
	}
}
