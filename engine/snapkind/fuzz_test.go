package snapkind

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// FuzzPlan: what a SnapDeals SubmitProofRequest carries from the wire
// (the partition proofs, the three commitments, the registered proof)
// goes through Plan. No input may panic, and one that is rejected must be
// rejected quickly, within the allocation bound, with an error wrapping
// engine.ErrInvalidRequest. Seed: a valid 2 KiB update request; the
// partition-proof decoder has its own target
// (snap.FuzzDecodePartitionProof).
func FuzzPlan(f *testing.F) {
	good := request(update(f))
	f.Add(good.VanillaProofs[0], good.CommROld, good.CommRNew, good.CommDNew, uint8(good.RegisteredProof))
	f.Fuzz(func(t *testing.T, vanilla, commROld, commRNew, commDNew []byte, proof uint8) {
		req := &engine.Request{Kind: proofkind.SnapDeals, RegisteredProof: uint64(proof % 8), VanillaProofs: [][]byte{vanilla},
			CommROld: commROld, CommRNew: commRNew, CommDNew: commDNew}
		_, err := (&Planner{}).Plan(context.Background(), req)
		if err == nil {
			return // a valid request: the plan's exactness is TestPlan's
		}
		if !errors.Is(err, engine.ErrInvalidRequest) {
			t.Fatalf("rejection does not wrap ErrInvalidRequest: %v", err)
		}
		n := len(vanilla) + len(commROld) + len(commRNew) + len(commDNew)
		fuzzcheck.Check(t, n, func() { _, _ = (&Planner{}).Plan(context.Background(), req) })
	})
}
