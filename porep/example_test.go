package porep_test

import (
	"encoding/hex"
	"fmt"
	"os"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
)

// A seal proof is checked from the sector's public values alone, as
// verify_seal does: the commitments, the prover id, the sector number,
// the ticket and the seed, under the sector's registered proof. The proof
// is a 2 KiB seal made by rust-fil-proofs (polka-storage's random
// parameters, api version 1.2.0).
func ExampleVerifySeal() {
	vk, err := groth16.ReadVerifyingKeyFile("../testdata/polka-2kib-porep/vk.bin")
	if err != nil {
		fmt.Println(err)
		return
	}
	proof, err := os.ReadFile("../testdata/polka-2kib-porep/proof.bin")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := porep.ConfigFor(filecoin.StackedDrg2KiBV1)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg.APIVersion = filecoin.V1_2_0 // the sector was sealed with 1.2.0's graph
	pub := porep.SealPublic{
		Config: cfg,
		CommR:  hex32("70e82695a03f9dbd96e568fef583283266a2048766e2c7abe78dcd9896996d68"),
		CommD:  hex32("129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421"),
		Sector: 77,
		Ticket: hex32("0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c"),
		Seed:   hex32("0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d"),
	}
	ok, err := porep.VerifySeal(vk, proof, pub)
	fmt.Println("sector 77:", ok, err)

	// Another sector number gives other public inputs: the proof is
	// invalid for it, which is not an error.
	pub.Sector = 78
	ok, err = porep.VerifySeal(vk, proof, pub)
	fmt.Println("sector 78:", ok, err)
	// Output:
	// sector 77: true <nil>
	// sector 78: false <nil>
}

// hex32 reads 64 hex characters, as Filecoin tools print commitments.
func hex32(s string) (b [32]byte) {
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		panic(err)
	}
	return b
}
