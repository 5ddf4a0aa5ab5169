package postkind

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// FuzzPlan: what a PoSt SubmitProofRequest carries from the wire (the
// vanilla proofs, randomness, registered proof and partition index) goes
// through Plan. No input may panic, and one that is rejected must be
// rejected quickly, within the allocation bound, with an error wrapping
// engine.ErrInvalidRequest. Seeds: a valid WindowPoSt and WinningPoSt
// request over 2 KiB sectors; the decoder of each entry has its own
// target (post.FuzzDecodeVanillaProof).
func FuzzPlan(f *testing.F) {
	secs := sectors(f)
	rnd := [32]byte{1, 2, 3}
	w := windowRequest(f, filecoin.StackedDrgWindow2KiBV1_2, rnd, secs[:2], 0)
	f.Add(w.VanillaProofs[0], w.VanillaProofs[1], rnd[:], uint8(w.RegisteredProof), uint8(0), false)
	win := winningRequest(f, rnd, secs[0])
	f.Add(win.VanillaProofs[0], []byte(nil), rnd[:], uint8(win.RegisteredProof), uint8(0), true)
	f.Fuzz(func(t *testing.T, v0, v1, randomness []byte, proof, partition uint8, winning bool) {
		k, kind := Window(), proofkind.WindowPoSt
		if winning {
			k, kind = Winning(), proofkind.WinningPoSt
		}
		req := &engine.Request{Kind: kind, RegisteredProof: uint64(proof % 20), Randomness: randomness,
			PartitionIndex: uint32(partition % 4), VanillaProofs: [][]byte{v0}}
		if v1 != nil {
			req.VanillaProofs = append(req.VanillaProofs, v1)
		}
		_, err := k.Plan(context.Background(), req)
		if err == nil {
			return // a valid request: the plan's exactness is TestPlanWindow's
		}
		if !errors.Is(err, engine.ErrInvalidRequest) {
			t.Fatalf("rejection does not wrap ErrInvalidRequest: %v", err)
		}
		fuzzcheck.Check(t, len(v0)+len(v1)+len(randomness), func() { _, _ = k.Plan(context.Background(), req) })
	})
}
