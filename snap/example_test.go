package snap_test

import (
	"encoding/hex"
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/snap"
)

// An update proof is checked from the three commitments alone, as
// verify_empty_sector_update_proof does; every partition's public inputs
// follow from them (Public.Inputs). The proof is bellperson's proof of
// rust-fil-proofs' 2 KiB update circuit (testdata/rustref/update/2KiB)
// under cuzk's INSECURE test parameters, whose verifying key is beside it.
func ExampleVerifyProof() {
	vk, err := groth16.ReadVerifyingKeyFile("testdata/example/update-2KiB.vk")
	if err != nil {
		fmt.Println(err)
		return
	}
	proof, err := os.ReadFile("testdata/example/update-2KiB.proof")
	if err != nil {
		fmt.Println(err)
		return
	}
	pub := snap.Public{
		Proof:    filecoin.StackedDrg2KiBUpdateV1,
		CommROld: element("77424390b36f74acd595c40d0e341f4fbff18623feaf8ad72fe73d7490d0d65c"),
		CommRNew: element("58ba967167061cb86dab1133f5198aabd2c2c93696c8eff2426a25a173fea428"),
		CommDNew: hex32("37cf84913f27c576ebb04b9b4347696efe62d03e04ce09edc6d77ce8d2d30924"),
	}
	ok, err := snap.VerifyProof(vk, proof, pub)
	fmt.Printf("%d partition(s): %v %v\n", pub.Partitions(), ok, err)

	// Claimed for another sector key, the proof is invalid.
	pub.CommROld = element("6d489385518f862bfa95ff3bddcce2484b8c7b305737c1ac8841b7a5251bd954")
	ok, err = snap.VerifyProof(vk, proof, pub)
	fmt.Printf("another comm_r_old: %v %v\n", ok, err)
	// Output:
	// 1 partition(s): true <nil>
	// another comm_r_old: false <nil>
}

// hex32 reads 64 hex characters, as Filecoin tools print commitments.
func hex32(s string) (b [32]byte) {
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		panic(err)
	}
	return b
}

// element reads a commitment as its field element (little-endian).
func element(s string) fr.Element {
	b := hex32(s)
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		panic(err)
	}
	return e
}
