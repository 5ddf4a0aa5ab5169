package merkle

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// A tree reassembled from its levels is the tree: same root, arities and
// proofs; levels of the wrong number or length are refused.
func TestPoseidonFromLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range testShapes {
		t.Run(c.shape.String(), func(t *testing.T) {
			n := c.perBase * c.shape.BaseTreeCount()
			tree, err := BuildPoseidon(c.shape, randomLeaves(rng, n), 1)
			if err != nil {
				t.Fatal(err)
			}
			var lv [][]fr.Element
			for l := 0; l <= len(tree.Arities()); l++ {
				lv = append(lv, append([]fr.Element(nil), tree.Level(l)...))
			}
			back, err := PoseidonFromLevels(c.shape, lv)
			if err != nil {
				t.Fatal(err)
			}
			if back.Root() != tree.Root() || back.Shape() != c.shape || back.NumLeaves() != n {
				t.Fatal("reassembled tree differs")
			}
			for _, i := range []int{0, n / 3, n - 1} {
				p, err := back.Prove(i)
				if err != nil {
					t.Fatal(err)
				}
				if err := VerifyPoseidon(p, c.shape, n); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
			}
			short := append([][]fr.Element(nil), lv...)
			short[1] = short[1][:len(short[1])-1] // a level one node short
			bad := [][][]fr.Element{
				nil,
				lv[:len(lv)-1],
				append(append([][]fr.Element(nil), lv...), lv[len(lv)-1]),
				short,
				append([][]fr.Element{lv[0][:n-1]}, lv[1:]...),
			}
			for j, b := range bad {
				if _, err := PoseidonFromLevels(c.shape, b); !errors.Is(err, ErrLeafCount) {
					t.Errorf("bad levels %d: %v", j, err)
				}
			}
		})
	}
}
