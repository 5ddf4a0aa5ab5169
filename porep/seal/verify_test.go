package seal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/porep"
)

// polkaDir holds a 2 KiB seal proof made by rust-fil-proofs under
// porep_id 0 (StackedDrg2KiBV1) with api version 1.2.0.
var polkaDir = filepath.Join("..", "..", "testdata", "polka-2kib-porep")

func polkaPublic(t *testing.T) porep.SealPublic {
	t.Helper()
	h := func(s string) [32]byte { return golden.Hex32(t, s) }
	return porep.SealPublic{
		CommR:  h("70e82695a03f9dbd96e568fef583283266a2048766e2c7abe78dcd9896996d68"),
		CommD:  h("129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421"),
		Ticket: h("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c"),
		Seed:   h("0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d"),
		Sector: 77,
	}
}

// The proof verifies when the sector is named by its proof with the api
// override, or by its porep_id alone, and not under its proof's own api
// version or with a public value changed.
func TestVerifyFilePolka(t *testing.T) {
	vk, proof := filepath.Join(polkaDir, "vk.bin"), filepath.Join(polkaDir, "proof.bin")
	pub := polkaPublic(t)
	for _, s := range []Sealed{
		{Proof: filecoin.RegisteredSealProof(0), APIVersion: "1.2.0"},
		{Custom: true, SectorSize: filecoin.SectorSize2KiB, APIVersion: "1.2.0"},
	} {
		cfg, err := s.Config()
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		if ok, err := verifyFile(vk, proof, cfg, pub, nil); !ok || err != nil {
			t.Errorf("%+v: ok=%v err=%v", s, ok, err)
		}
	}
	cfg, err := Sealed{Proof: filecoin.RegisteredSealProof(0)}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.APIVersion != filecoin.V1_0_0 {
		t.Fatalf("api version %v", cfg.APIVersion)
	}
	if ok, err := verifyFile(vk, proof, cfg, pub, nil); ok || err != nil {
		t.Errorf("under api 1.0.0: ok=%v err=%v, want invalid", ok, err)
	}
	cfg.APIVersion = filecoin.V1_2_0
	bad := pub
	bad.Sector++
	if ok, err := verifyFile(vk, proof, cfg, bad, nil); ok || err != nil {
		t.Errorf("another sector: ok=%v err=%v, want invalid", ok, err)
	}
	if _, err := verifyFile(filepath.Join(t.TempDir(), "none.vk"), proof, cfg, pub, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing key: %v", err)
	}
	if _, err := verifyFile(vk, filepath.Join(t.TempDir(), "none"), cfg, pub, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing proof: %v", err)
	}
	short := filepath.Join(t.TempDir(), "short")
	if err := os.WriteFile(short, make([]byte, 100), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := verifyFile(vk, short, cfg, pub, nil); !errors.Is(err, porep.ErrProofLength) {
		t.Errorf("short proof: %v", err)
	}
}

// One partition is checked against its own public inputs: partition 0 of
// a one-partition proof verifies, with its sector changed it does not, and
// a partition the sector does not have is an error.
func TestVerifyFilePartition(t *testing.T) {
	vk, proof := filepath.Join(polkaDir, "vk.bin"), filepath.Join(polkaDir, "proof.bin")
	pub := polkaPublic(t)
	cfg, err := Sealed{Proof: filecoin.RegisteredSealProof(0), APIVersion: "1.2.0"}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := verifyFile(vk, proof, cfg, pub, part(0)); !ok || err != nil {
		t.Errorf("partition 0: ok=%v err=%v", ok, err)
	}
	bad := pub
	bad.Sector++
	if ok, err := verifyFile(vk, proof, cfg, bad, part(0)); ok || err != nil {
		t.Errorf("partition 0, another sector: ok=%v err=%v, want invalid", ok, err)
	}
	if _, err := verifyFile(vk, proof, cfg, pub, part(1)); !errors.Is(err, porep.ErrPartition) {
		t.Errorf("partition 1 of 1: %v, want ErrPartition", err)
	}
}

func TestSealedConfig(t *testing.T) {
	p := filecoin.SealProofs()[len(filecoin.SealProofs())-1]
	cfg, err := Sealed{Proof: p}.Config()
	if err != nil || cfg.PoRepID != p.PoRepID() || cfg.SectorSize != p.SectorSize() || cfg.APIVersion != p.APIVersion() {
		t.Fatalf("%v: %+v %v", p, cfg, err)
	}
	id := [32]byte{9}
	cfg, err = Sealed{Custom: true, PoRepID: id, SectorSize: filecoin.SectorSize8MiB}.Config()
	if err != nil || cfg.PoRepID != id || cfg.APIVersion != filecoin.V1_1_0 || cfg.Mode != filecoin.Interactive {
		t.Fatalf("custom: %+v %v", cfg, err)
	}
	for name, s := range map[string]Sealed{
		"unknown proof": {Proof: filecoin.RegisteredSealProof(1 << 20)},
		"bad version":   {Proof: p, APIVersion: "9.9"},
		"bad size":      {Custom: true, SectorSize: 4096 * 3},
	} {
		if _, err := s.Config(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func part(k int) *int { return &k }

// verifyFile is VerifyFile of the sector sealed as cfg, valid when no
// partition is bad.
func verifyFile(vk, proof string, cfg porep.Config, pub porep.SealPublic, partition *int) (bool, error) {
	pub.Config, pub.Partition = cfg, partition
	bad, _, err := VerifyFile(vk, proof, pub)
	return err == nil && len(bad) == 0, err
}
