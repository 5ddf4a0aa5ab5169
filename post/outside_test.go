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

// outsideProof is a real 2 KiB WindowPoSt Groth16 proof made by
// rust-fil-proofs with its own (random) parameters, with its public values
// and the public inputs rust's verifier used.
type outsideProof struct {
	pub    Public
	vk     *groth16.VerifyingKey
	proof  []byte
	inputs []string // little-endian hex
}

func loadOutside(t *testing.T) outsideProof {
	t.Helper()
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
	o := outsideProof{pub: Public{Proof: filecoin.RegisteredPoStProof(pub.RegisteredProof), Partition: pub.PartitionIndex}, inputs: pub.PublicInputs}
	if b, err := hex.DecodeString(pub.Randomness); err != nil || len(b) != 32 {
		t.Fatalf("randomness %q", pub.Randomness)
	} else {
		copy(o.pub.Randomness[:], b)
	}
	o.pub.Sectors = make([]PublicSector, len(pub.Sectors))
	for i, s := range pub.Sectors {
		b, err := hex.DecodeString(s.CommR)
		if err != nil || len(b) != 32 {
			t.Fatalf("comm_r %q", s.CommR)
		}
		if o.pub.Sectors[i].CommR, err = fr.LittleEndian.Element((*[32]byte)(b)); err != nil {
			t.Fatal(err)
		}
		o.pub.Sectors[i].ID = s.SectorID
	}
	if o.vk, err = groth16.ReadVerifyingKeyFile(filepath.Join(dir, "vk.bin")); err != nil {
		t.Fatal(err)
	}
	if o.proof, err = os.ReadFile(filepath.Join(dir, "proof.bin")); err != nil {
		t.Fatal(err)
	}
	return o
}

// The outside proof verifies under its verifying key with the public
// inputs this package derives from public values alone (randomness,
// sector ids, comm_r's), which are rust's, and fails with any comm_r
// changed.
func TestOutsideWindowPoStProof(t *testing.T) {
	o := loadOutside(t)
	rp, rnd, sectors := o.pub.Proof, o.pub.Randomness, o.pub.Sectors
	pvk, err := groth16.Prepare(o.vk)
	if err != nil {
		t.Fatal(err)
	}
	var proof groth16.Proof
	if err := proof.UnmarshalBinary(o.proof); err != nil {
		t.Fatal(err)
	}
	verify := func(sectors []PublicSector) bool {
		t.Helper()
		inputs, err := PublicInputs(rp, rnd, sectors, o.pub.Partition)
		if err != nil {
			t.Fatal(err)
		}
		ok, err := groth16.Verify(pvk, &proof, inputs)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	inputs, _ := PublicInputs(rp, rnd, sectors, o.pub.Partition)
	if len(inputs) != len(o.inputs) {
		t.Fatalf("%d public inputs, rust's verifier used %d", len(inputs), len(o.inputs))
	}
	for i := range inputs {
		b := inputs[i].Bytes() // big-endian
		for l, r := 0, len(b)-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
		if got := hex.EncodeToString(b[:]); got != o.inputs[i] {
			t.Errorf("public input %d: %s, rust %s", i, got, o.inputs[i])
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
