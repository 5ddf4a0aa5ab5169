package hash_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/hash"
)

// Filecoin's two hashes: SHA-254 (SHA-256 with the top two bits of the
// little-endian digest cleared, so that it is a BLS12-381 scalar) for
// tree_d and the commitments, and Poseidon over scalars for tree_c,
// tree_r_last and comm_r (neptune's constants, one set per arity).
func Example() {
	in := []byte("filecoin")
	sha := sha256.Sum256(in)
	d := hash.Sha254(in)
	fmt.Printf("last byte: sha-256 %08b, sha-254 %08b\n", sha[31], d[31])
	_, errSha := fr32.ToElement(sha)
	_, errD := fr32.ToElement(d)
	fmt.Println("scalars:", errSha == nil, errD == nil)

	h := hash.Poseidon(2).Hash([]fr.Element{fr.NewElement(1), fr.NewElement(2)})
	b := fr32.FromElement(&h)
	fmt.Printf("poseidon-2(1, 2) starts %x\n", b[:4])
	// Output:
	// last byte: sha-256 11100100, sha-254 00100100
	// scalars: false true
	// poseidon-2(1, 2) starts bea95f3e
}
