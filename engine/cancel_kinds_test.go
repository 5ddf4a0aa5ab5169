package engine_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// TestCancelStopsRealKinds is TestCancelStopsRunningWork for the Filecoin
// kinds at 2 KiB on the CPU backend: each is cancelled once in synthesis
// and once in Start (the prover), and within cancelLatency the lane is
// free and the budget holds only the resident parameters. A stage too
// short to be caught by polling every millisecond is reported, not failed.
func TestCancelStopsRealKinds(t *testing.T) {
	testenv.E2E(t, "2 KiB PoRep, PoSt and SnapDeals test parameters (minutes to generate once) and eight partial proofs")
	dir := testparams.DefaultDir(os.LookupEnv)
	ctx := context.Background()
	porep := filecoin.StackedDrg2KiBV1_1
	window, winning, update := filecoin.StackedDrgWindow2KiBV1_2, filecoin.StackedDrgWinning2KiBV1, filecoin.StackedDrg2KiBUpdateV1
	if _, _, err := testparams.Ensure(ctx, porep, dir, testparams.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []filecoin.CircuitID{window.CircuitID(), winning.CircuitID(), update.CircuitID()} {
		if _, _, err := testparams.EnsureCircuit(ctx, c, dir, testparams.Options{}); err != nil {
			t.Fatal(err)
		}
	}

	in := seal.DefaultInput(porep)
	o, _, err := seal.Seal(ctx, in, seal.DefaultSeed, 2)
	if err != nil {
		t.Fatal(err)
	}
	c1json, err := c1.Wrap(o, in.Sector).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	sectors := testkit.CCSectors(t, porep, 1, 2)
	rnd := testkit.Randomness(3)
	wv := testkit.PoStVanilla(t, window, rnd, sectors, 0)
	nv := testkit.PoStVanilla(t, winning, rnd, sectors[:1], 0)
	u := testkit.SnapUpdate(t, update, sectors[1], 5)
	snapReq := snapkind.UpdateRequest(u)
	snapReq.SectorNumber, snapReq.MinerID = sectors[1].ID, seal.DefaultMinerID
	kinds := []struct {
		name string
		req  *engine.Request
	}{
		{"porep", &engine.Request{Kind: proofkind.PoRep, RegisteredProof: uint64(porep), SectorNumber: in.Sector,
			MinerID: seal.DefaultMinerID, VanillaProof: c1json}},
		{"window-post", &engine.Request{Kind: proofkind.WindowPoSt, RegisteredProof: uint64(window), MinerID: seal.DefaultMinerID,
			Randomness: rnd[:], VanillaProofs: wv}},
		{"winning-post", &engine.Request{Kind: proofkind.WinningPoSt, RegisteredProof: uint64(winning), MinerID: seal.DefaultMinerID,
			Randomness: rnd[:], VanillaProofs: nv}},
		{"snap", snapReq},
	}

	r := newRigWith(t, engine.Config{SynthesisWorkers: 1}, rigOptions{total: 8 << 30, locator: srs.FilecoinLocator(dir),
		kinds: []engine.Kind{
			engine.Builtin(proofkind.PoRep, &porepkind.Planner{}),
			engine.Builtin(proofkind.WindowPoSt, postkind.Window()),
			engine.Builtin(proofkind.WinningPoSt, postkind.Winning()),
			engine.Builtin(proofkind.SnapDeals, &snapkind.Planner{}),
		}})
	for _, k := range kinds {
		for _, stage := range []string{"synthesizing", "proving"} {
			req := *k.req
			req.RequestID = k.name + "-" + stage
			mustSubmit(t, r.eng, &req)
			caught := false
			for end := time.Now().Add(10 * time.Minute); time.Now().Before(end); time.Sleep(time.Millisecond) {
				j, ok := jobStatus(r.eng, req.RequestID)
				if !ok {
					break // final before the stage was seen
				}
				if len(j.Partitions) > 0 && j.Partitions[0].State == stage {
					caught = true
					break
				}
			}
			if !caught {
				t.Logf("%s: %s ended before it was seen; not cancelled there", k.name, stage)
				mustAwait(t, r.eng, req.RequestID)
				r.waitIdleBudget(t)
				continue
			}
			time.Sleep(20 * time.Millisecond) // into the stage's work
			d := r.cancelAndWaitFree(t, req.RequestID)
			res := mustAwait(t, r.eng, req.RequestID)
			t.Logf("%s cancelled while %s: free %v after the cancel (%v)", k.name, stage, d.Round(time.Millisecond), res.State)
			if res.State == engine.StateCancelled && d > cancelLatency {
				t.Errorf("%s cancelled while %s: free %v after the cancel, want at most %v", k.name, stage, d, cancelLatency)
			}
		}
		// One kind's parameters at a time (the 2 KiB PoRep's are 1.1 GB).
		for _, p := range r.params.Status() {
			if _, _, err := r.params.Evict(p.CircuitID); err != nil {
				t.Fatal(err)
			}
		}
	}
}
