package merkle

import (
	"errors"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The periodic tree must give exactly the roots and proofs of the dense
// tree over the same leaves, in every shape a sector uses, whether the
// range is below, equal to or above a base tree and the period below or
// equal to the range.
func TestPeriodicPoseidonMatchesDense(t *testing.T) {
	for _, c := range []struct {
		name                string
		shape               Shape
		leaves, rng, period int
	}{
		{"8-0-0 ranges of 32, period 8", ShapeBase, 64, 32, 8},
		{"8-0-0 one range", ShapeBase, 512, 512, 64},
		{"8-0-0 period = range", ShapeBase, 4096, 512, 512},
		{"8-8-0 range of two base trees", ShapeSub8, 4096, 1024, 64},
		{"8-8-0 ranges inside a base tree", ShapeSub8, 4096, 128, 8},
		{"8-8-2 ranges of a quarter base tree", ShapeTop2, 1024, 16, 8},
		{"8-8-2 period 1", ShapeTop2, 1024, 256, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			leaf := func(r, o int) fr.Element {
				var v fr.Element
				v.SetUint64(uint64(1 + 1000*r + o))
				return v
			}
			dense := make([]fr.Element, c.leaves)
			for i := range dense {
				dense[i] = leaf(i/c.rng, i%c.period)
			}
			dt, err := BuildPoseidon(c.shape, dense, 1)
			if err != nil {
				t.Fatal(err)
			}
			pt, err := BuildPeriodicPoseidon(c.shape, c.leaves, c.rng, c.period, leaf, 3)
			if err != nil {
				t.Fatal(err)
			}
			if pt.Root() != dt.Root() {
				t.Fatal("root differs")
			}
			if pt.NumLeaves() != c.leaves || pt.Shape() != c.shape {
				t.Fatalf("NumLeaves %d, Shape %s", pt.NumLeaves(), pt.Shape())
			}
			if pt.Kept() >= 2*c.leaves {
				t.Fatalf("keeps %d nodes of a %d-leaf tree", pt.Kept(), c.leaves)
			}
			for i := 0; i < c.leaves; i += 1 + c.leaves/61 {
				for _, j := range []int{i, c.leaves - 1 - i} {
					want, _ := dt.Prove(j)
					got, err := pt.Prove(j)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("proof of leaf %d differs", j)
					}
				}
			}
			if _, err := pt.Prove(c.leaves); !errors.Is(err, ErrIndex) {
				t.Fatalf("leaf %d of %d: %v, want ErrIndex", c.leaves, c.leaves, err)
			}
		})
	}
}

func TestPeriodicPoseidonRefusesBadPeriods(t *testing.T) {
	one := func(int, int) fr.Element { return fr.One() }
	for _, c := range []struct {
		name                string
		leaves, rng, period int
	}{
		{"range does not divide", 512, 96, 8},
		{"period does not divide the range", 512, 64, 128},
		{"period is not a subtree", 512, 64, 16},
		{"zero range", 512, 0, 8},
	} {
		if _, err := BuildPeriodicPoseidon(ShapeBase, c.leaves, c.rng, c.period, one, 1); !errors.Is(err, ErrLeafCount) {
			t.Errorf("%s: %v, want ErrLeafCount", c.name, err)
		}
	}
}

// Node must be the dense tree's node at every height.
func TestRepeatedSha254Node(t *testing.T) {
	block := make([][32]byte, 8)
	for i := range block {
		block[i][0] = byte(i + 1)
	}
	rt, err := BuildRepeatedSha254(block, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	dense := make([][32]byte, 64)
	for i := range dense {
		dense[i] = block[i%8]
	}
	dt, err := BuildSha254(dense, 1)
	if err != nil {
		t.Fatal(err)
	}
	for h := 0; h <= dt.Depth(); h++ {
		for i, want := range dt.Level(h) {
			got, err := rt.Node(h, i)
			if err != nil || got != want {
				t.Fatalf("node %d of row %d: %x, %v", i, h, got, err)
			}
		}
	}
	if _, err := rt.Node(dt.Depth()+1, 0); !errors.Is(err, ErrIndex) {
		t.Fatalf("row above the root: %v", err)
	}
	if _, err := rt.Node(3, 8); !errors.Is(err, ErrIndex) {
		t.Fatalf("node 8 of row 3 (8 nodes): %v", err)
	}
}
