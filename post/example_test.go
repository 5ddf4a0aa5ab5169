package post_test

import (
	"encoding/hex"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
)

// A WindowPoSt proof file is checked from public values alone, as
// verify_window_post does: the registered proof, the randomness and the
// proven sectors' ids and comm_r. VerifyFile names the partitions that do
// not verify. The proof is a 2 KiB WindowPoSt made by rust-fil-proofs
// (random parameters) of two sectors.
func ExampleVerifyFile() {
	pub := post.Public{
		Proof:      filecoin.StackedDrgWindow2KiBV1_2,
		Randomness: hex32("32136a7cf4d9f035bf66d65cdafba249a86738f562fcbd196719c27f21df072d"),
		Sectors: []post.PublicSector{
			{ID: 1, CommR: element("6d489385518f862bfa95ff3bddcce2484b8c7b305737c1ac8841b7a5251bd954")},
			{ID: 2, CommR: element("6acfb139a6032ab1d4ffcd8db4ff68e651ffd1fa6f9013f851705fd457c65a2b")},
		},
	}
	dir := "../testdata/rustref/post/outside-window-2k/"
	bad, partitions, err := post.VerifyFile(dir+"vk.bin", dir+"proof.bin", pub)
	fmt.Printf("%d partition(s), invalid %v, %v\n", partitions, bad, err)

	// The sectors in another order are other public inputs.
	pub.Sectors[0], pub.Sectors[1] = pub.Sectors[1], pub.Sectors[0]
	bad, partitions, err = post.VerifyFile(dir+"vk.bin", dir+"proof.bin", pub)
	fmt.Printf("%d partition(s), invalid %v, %v\n", partitions, bad, err)
	// Output:
	// 1 partition(s), invalid [], <nil>
	// 1 partition(s), invalid [0], <nil>
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
