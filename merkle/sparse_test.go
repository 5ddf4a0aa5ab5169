package merkle

import (
	"errors"
	"reflect"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The sparse and repeated trees must give exactly the roots and proofs of
// the dense trees over the same leaves, in every shape a sector uses.
func TestSparsePoseidonMatchesDense(t *testing.T) {
	for _, c := range []struct {
		shape  Shape
		leaves int
	}{
		{ShapeBase, 64}, {ShapeSub8, 512}, {ShapeTop2, 1024}, {ShapeSub2, 128},
	} {
		t.Run(c.shape.String(), func(t *testing.T) {
			var def fr.Element
			def.SetUint64(7)
			set := map[int]fr.Element{}
			for _, i := range []int{0, 1, 9, c.leaves / 2, c.leaves/2 + 1, c.leaves - 1} {
				var v fr.Element
				v.SetUint64(uint64(1000 + i))
				set[i] = v
			}
			dense := make([]fr.Element, c.leaves)
			for i := range dense {
				dense[i] = def
				if v, ok := set[i]; ok {
					dense[i] = v
				}
			}
			dt, err := BuildPoseidon(c.shape, dense, 1)
			if err != nil {
				t.Fatal(err)
			}
			st, err := BuildSparsePoseidon(c.shape, c.leaves, def, set)
			if err != nil {
				t.Fatal(err)
			}
			if st.Root() != dt.Root() {
				t.Fatalf("root differs")
			}
			for _, i := range []int{0, 1, 2, 9, 17, c.leaves / 2, c.leaves - 2, c.leaves - 1} {
				want, _ := dt.Prove(i)
				got, err := st.Prove(i)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("proof of leaf %d differs", i)
				}
				if err := VerifyPoseidon(got, c.shape, c.leaves); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
			}
		})
	}
}

func TestSparsePoseidonErrors(t *testing.T) {
	if _, err := BuildSparsePoseidon(ShapeSub8, 100, fr.Element{}, nil); !errors.Is(err, ErrLeafCount) {
		t.Fatalf("100 leaves in 8-8-0: %v, want ErrLeafCount", err)
	}
	if _, err := BuildSparsePoseidon(ShapeBase, 64, fr.Element{}, map[int]fr.Element{64: {}}); !errors.Is(err, ErrIndex) {
		t.Fatalf("leaf 64 of 64: %v, want ErrIndex", err)
	}
	st, err := BuildSparsePoseidon(ShapeBase, 64, fr.Element{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Prove(64); !errors.Is(err, ErrIndex) {
		t.Fatalf("prove 64 of 64: %v, want ErrIndex", err)
	}
}

func TestRepeatedSha254MatchesDense(t *testing.T) {
	for _, c := range []struct{ block, leaves int }{{2, 2}, {4, 64}, {16, 16}, {8, 1024}} {
		block := make([][32]byte, c.block)
		for i := range block {
			block[i][0] = byte(i + 1)
			block[i][5] = byte(3 * i)
		}
		dense := make([][32]byte, c.leaves)
		for i := range dense {
			dense[i] = block[i%c.block]
		}
		dt, err := BuildSha254(dense, 1)
		if err != nil {
			t.Fatal(err)
		}
		rt, err := BuildRepeatedSha254(block, c.leaves, 1)
		if err != nil {
			t.Fatal(err)
		}
		if rt.Root() != dt.Root() {
			t.Fatalf("%d/%d: root differs", c.block, c.leaves)
		}
		for i := 0; i < c.leaves; i += max(1, c.leaves/13) {
			want, _ := dt.Prove(i)
			got, err := rt.Prove(i)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%d/%d: proof of leaf %d differs", c.block, c.leaves, i)
			}
			if rt.Leaf(i) != dense[i] {
				t.Fatalf("leaf %d differs", i)
			}
		}
	}
	if _, err := BuildRepeatedSha254(make([][32]byte, 4), 2, 1); !errors.Is(err, ErrLeafCount) {
		t.Fatalf("block larger than tree: %v", err)
	}
	if _, err := BuildRepeatedSha254(make([][32]byte, 4), 24, 1); !errors.Is(err, ErrLeafCount) {
		t.Fatalf("24 leaves: %v", err)
	}
}

// An all-zero block gives the empty sector's comm_d.
func TestRepeatedSha254Empty(t *testing.T) {
	rt, err := BuildRepeatedSha254(make([][32]byte, 8), 1<<30, 1)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Root() != EmptySha254Root(30) {
		t.Fatal("zero block: root is not the empty root")
	}
}
