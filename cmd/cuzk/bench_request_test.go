package main

import (
	"encoding/json"
	"errors"
	"os"
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
	b, err := os.ReadFile("../../testdata/rustref/seal/2KiB/c1.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBenchPoRepSpec(t *testing.T) {
	plain := rustC1File(t)
	spec, err := poRepSpec(plain, poRepOptions{minerID: 1000, registeredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Template.RegisteredProof != uint64(filecoin.StackedDrg2KiBV1_1) || spec.Template.SectorSize != 2048 || spec.Template.SectorNumber != 1 ||
		spec.Circuit != "porep-2k" || spec.Partitions != 1 || spec.c1 == nil {
		t.Fatalf("%+v", spec)
	}
	// A plain C1 travels wrapped, as the daemon requires.
	o, w, err := c1.ParseWrapped(spec.Template.VanillaProof)
	if err != nil || w.SectorNum != 1 || o.CommR != spec.c1.CommR {
		t.Fatalf("envelope: %v %+v", err, w)
	}
	req := spec.Request("r-1")
	if req.GetRequestId() != "r-1" || req.GetProofKind() != cuzkv1.ProofKind_POREP_SEAL_COMMIT || req.GetMinerId() != 1000 ||
		req.GetSectorNumber() != 1 || &req.GetVanillaProof()[0] != &spec.Template.VanillaProof[0] {
		t.Fatalf("request %v", req)
	}

	// An envelope is sent as is and gives the sector number.
	wrapped, _ := c1.Wrap(spec.c1, 42).MarshalJSON()
	s2, err := poRepSpec(wrapped, poRepOptions{registeredProof: 5})
	if err != nil || s2.Template.SectorNumber != 42 || string(s2.Template.VanillaProof) != string(wrapped) {
		t.Fatalf("%v %+v", err, s2)
	}
	for _, bad := range []struct {
		data []byte
		opt  poRepOptions
		want string
	}{
		{wrapped, poRepOptions{sectorNumber: 7, registeredProof: -1}, "envelope says 42"},
		{plain, poRepOptions{registeredProof: 6}, "the C1 is for"},
		{[]byte(`{"registered_proof":"StackedDrg2KiBV1_1"}`), poRepOptions{registeredProof: -1}, "C1:"},
	} {
		if _, err := poRepSpec(bad.data, bad.opt); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.opt, err, bad.want)
		}
	}
}

func TestBenchTestSpec(t *testing.T) {
	spec, err := testSpec(12, testkind.Options{Partitions: 3})
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
	if s, _ := testSpec(10, testkind.Options{}); s.Template.VanillaProof != nil || s.Partitions != 1 {
		t.Fatalf("default options sent: %q", s.Template.VanillaProof)
	}
	if _, err := testSpec(3, testkind.Options{}); err == nil {
		t.Fatal("k=3 accepted")
	}
}

func TestBenchVerifyReplicaMismatch(t *testing.T) {
	spec, err := poRepSpec(rustC1File(t), poRepOptions{minerID: 1001, registeredProof: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The wrong miner id is caught before any pairing (no key needed).
	if _, _, err := verifyBenchProof(spec, nil, make([]byte, 192)); !errors.Is(err, errReplicaMismatch) {
		t.Fatalf("%v", err)
	}
	if _, _, err := verifyBenchProof(&benchSpec{Spec: &bench.Spec{Template: &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_SNAP_DEALS_UPDATE}}}, nil, nil); !errors.Is(err, errNoVerifier) {
		t.Fatal(err)
	}
	p, err := verifyingKeyPath(spec, "/params")
	if err != nil || !strings.HasPrefix(p, "/params/v28-stacked-proof-of-replication") || !strings.HasSuffix(p, ".vk") {
		t.Fatal(p, err)
	}
	if p, _ := verifyingKeyPath(&benchSpec{Spec: &bench.Spec{Template: client.TestRequest("", 10, nil)}, logRows: 10}, "/d"); p != "/d/cuzk-test-mixed-k10.vk" {
		t.Fatal(p)
	}
}
