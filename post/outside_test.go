package post

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
)

// A real 2 KiB WindowPoSt Groth16 proof made by rust-fil-proofs with its
// own (random) parameters verifies under its verifying key with the public
// inputs this package derives from public values alone (randomness, sector
// ids, comm_r's), and fails with any comm_r changed.
func TestOutsideWindowPoStProof(t *testing.T) {
	dir := filepath.Join(golden.Dir(), "post", "outside-window-2k")
	raw, err := os.ReadFile(filepath.Join(dir, "public.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pub struct {
		RegisteredProof int64  `json:"registered_proof"`
		Randomness      string `json:"randomness"`
		PartitionIndex  int    `json:"partition_index"`
		Sectors         []struct {
			CommR    string `json:"comm_r"`
			SectorID uint64 `json:"sector_id"`
		} `json:"sectors"`
		PublicInputs []string `json:"public_inputs"`
	}
	if err := json.Unmarshal(raw, &pub); err != nil {
		t.Fatal(err)
	}
	rp := filecoin.RegisteredPoStProof(pub.RegisteredProof)
	var rnd [32]byte
	if b, err := hex.DecodeString(pub.Randomness); err != nil || len(b) != 32 {
		t.Fatalf("randomness %q", pub.Randomness)
	} else {
		copy(rnd[:], b)
	}
	sectors := make([]PublicSector, len(pub.Sectors))
	for i, s := range pub.Sectors {
		b, err := hex.DecodeString(s.CommR)
		if err != nil || len(b) != 32 {
			t.Fatalf("comm_r %q", s.CommR)
		}
		if sectors[i].CommR, err = fr.LittleEndian.Element((*[32]byte)(b)); err != nil {
			t.Fatal(err)
		}
		sectors[i].ID = s.SectorID
	}
	vk, err := groth16.ReadVerifyingKeyFile(filepath.Join(dir, "vk.bin"))
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := os.ReadFile(filepath.Join(dir, "proof.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var proof groth16.Proof
	if err := proof.UnmarshalBinary(pb); err != nil {
		t.Fatal(err)
	}
	verify := func(sectors []PublicSector) bool {
		t.Helper()
		inputs, err := PublicInputs(rp, rnd, sectors, pub.PartitionIndex)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := groth16.Verify(pvk, &proof, inputs)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	inputs, _ := PublicInputs(rp, rnd, sectors, pub.PartitionIndex)
	if len(inputs) != len(pub.PublicInputs) {
		t.Fatalf("%d public inputs, rust's verifier used %d", len(inputs), len(pub.PublicInputs))
	}
	for i := range inputs {
		b := inputs[i].Bytes() // big-endian
		for l, r := 0, len(b)-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
		if got := hex.EncodeToString(b[:]); got != pub.PublicInputs[i] {
			t.Errorf("public input %d: %s, rust %s", i, got, pub.PublicInputs[i])
		}
	}
	if !verify(sectors) {
		t.Fatal("rust-fil-proofs' WindowPoSt proof does not verify with our public inputs")
	}
	for i := range sectors {
		bad := append([]PublicSector(nil), sectors...)
		var one fr.Element
		one.SetOne()
		bad[i].CommR.Add(&bad[i].CommR, &one)
		if verify(bad) {
			t.Errorf("proof verifies with sector %d's comm_r changed", i)
		}
	}
}
