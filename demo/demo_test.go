package demo

import (
	"context"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap"
)

// The demo's randomness is a canonical field element, as the chain's is.
func TestRandomness(t *testing.T) {
	if err := post.CheckRandomness(Randomness()); err != nil {
		t.Fatal(err)
	}
}

// Each kind's fixture is a request of that kind whose public values give
// the inputs of every partition it proves.
func TestNewFixture(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []proofkind.Kind{proofkind.WinningPoSt, proofkind.SnapDeals} {
		f, err := NewFixture(ctx, kind, filecoin.SectorSize2KiB, 1000, 1)
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		r := f.Request
		if r.Kind != kind || r.MinerID != 1000 || r.SectorSize != 2048 || len(r.VanillaProofs) == 0 || f.What == "" || f.Check == "" || f.Method == "" {
			t.Fatalf("%v: %+v", kind, f)
		}
		want := 1
		if kind == proofkind.SnapDeals {
			want = f.Public.(*snap.Public).Proof.Partitions()
		} else if _, ok := f.Public.(*post.Public); !ok {
			t.Fatalf("%v: public %T", kind, f.Public)
		}
		if in, err := f.Public.Inputs(); err != nil || len(in) != want || f.Public.Partitions() != want {
			t.Fatalf("%v: %d partitions, %d input vectors, %v; want %d", kind, f.Public.Partitions(), len(in), err, want)
		}
		// A proof of the wrong length is refused, not taken as valid.
		if ok, _ := f.Verify(&groth16.VerifyingKey{}, []byte{1, 2, 3}); ok {
			t.Fatalf("%v: three bytes verified", kind)
		}
	}
	if _, err := NewFixture(ctx, proofkind.Test, filecoin.SectorSize2KiB, 1000, 1); err == nil {
		t.Fatal("a test-circuit fixture was made")
	}
}

// The PoRep request carries the sealed sector's C1 in Curio's envelope,
// and its public values are the seal's.
func TestPoRepFixture(t *testing.T) {
	f, err := NewFixture(context.Background(), proofkind.PoRep, filecoin.SectorSize2KiB, seal.DefaultMinerID, 1)
	if err != nil {
		t.Fatal(err)
	}
	o, w, err := c1.ParseAny(f.Request.VanillaProof)
	if err != nil || w == nil || w.SectorNum != f.Request.SectorNumber {
		t.Fatalf("C1 envelope %+v: %v", w, err)
	}
	pub := f.Public.(*porep.SealPublic)
	if o.CommR != pub.CommR || o.CommD != pub.CommD || o.Seed != pub.Seed || f.Request.Kind != proofkind.PoRep || o.RegisteredProof != filecoin.StackedDrg2KiBV1_1 {
		t.Fatalf("public values %+v do not match the C1", f.Public)
	}
	if pub.ReplicaID() != o.ReplicaID {
		t.Fatal("the public values do not give the C1's replica id")
	}
	if ok, _ := f.Verify(&groth16.VerifyingKey{}, make([]byte, groth16.ProofSize)); ok {
		t.Fatal("a zero proof verified")
	}
}
