package merkle_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/cuzk-dev/cuzk/merkle"
)

// comm_d is the root of the binary SHA-254 tree over a sector's padded
// data. An empty 2 KiB sector's is the root of 64 zero leaves, which
// EmptySha254Root computes without building the tree (rust-fil-proofs'
// test vectors have the same value); an inclusion proof
// of one leaf checks against it, and fails for any other leaf value.
func ExampleBuildSha254() {
	data := make([]byte, 2048)
	leaves, err := merkle.Sha254Leaves(data)
	if err != nil {
		log.Fatal(err)
	}
	tree, err := merkle.BuildSha254(leaves, 1)
	if err != nil {
		log.Fatal(err)
	}
	root := tree.Root()
	fmt.Printf("%d leaves, depth %d, comm_d %x\n", tree.NumLeaves(), tree.Depth(), root)
	fmt.Println("as the empty root:", root == merkle.EmptySha254Root(tree.Depth()))

	p, err := tree.Prove(5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("leaf", p.LeafIndex(), "verifies:", merkle.VerifySha254(p, tree.NumLeaves()))
	p.Leaf[0] = 1
	err = merkle.VerifySha254(p, tree.NumLeaves())
	fmt.Println(errors.Is(err, merkle.ErrRootMismatch), err)
	// Output:
	// 64 leaves, depth 6, comm_d fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833
	// as the empty root: true
	// leaf 5 verifies: <nil>
	// true leaf 5: merkle: proof does not lead to its root
}
