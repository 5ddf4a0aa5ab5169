package engine_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// BenchmarkWinningPoSt2KiB is the latency a storage provider waits for
// when it wins a block: one real 2 KiB WinningPoSt (a CC sector sealed in
// process, its vanilla proof from post.GenerateVanillaProofs) submitted to an idle engine
// with the parameters resident, submit to self-checked proof, as the
// daemon runs it (urgent lane, every core). The target is ≤ 3 s on
// two cores. The INSECURE test parameters (47 MB) are generated once into
// testparams.DefaultDir ($CUZK_TEST_PARAMS). Reports the median with its
// stage split (synthesis, prove) per op.
func BenchmarkWinningPoSt2KiB(b *testing.B) {
	p := filecoin.StackedDrgWinning2KiBV1
	dir := testparams.DefaultDir(os.LookupEnv)
	if _, _, err := testparams.EnsureCircuit(context.Background(), p.CircuitID(), dir, testparams.Options{}); err != nil {
		b.Fatal(err)
	}
	rnd := testkit.Randomness(1)
	vanilla := testkit.PoStVanilla(b, p, rnd, []*sectordir.Sector{testkit.CCSector(b, filecoin.StackedDrg2KiBV1_1, 7)}, 0)
	e := testkit.NewEngine(b, testkit.EngineOptions{Config: engine.Config{ReservedLane: true},
		Kinds:   []engine.Kind{engine.Builtin(proofkind.WinningPoSt, postkind.Winning())},
		Locator: srs.FilecoinLocator(dir), TrustParams: true, UrgentBackend: &cpu.Backend{}})
	params := e.Params
	ctx := context.Background()
	if _, _, err := params.Preload(ctx, string(p.CircuitID()), 0); err != nil {
		b.Fatal(err)
	}
	n := 0
	prove := func() engine.Timings {
		n++
		q := &engine.Request{RequestID: fmt.Sprintf("winning-%d", n), Kind: proofkind.WinningPoSt,
			RegisteredProof: uint64(p), MinerID: seal.DefaultMinerID, Randomness: rnd[:], VanillaProofs: vanilla}
		res, err := e.Prove(ctx, q)
		if err != nil || res.State != engine.StateCompleted {
			b.Fatalf("winning: %v %v %v", err, res.State, res.Err)
		}
		return res.Timings
	}
	prove() // templates, tables
	var total, synth, pr []time.Duration
	for b.Loop() {
		t0 := time.Now()
		tm := prove()
		total = append(total, time.Since(t0))
		synth = append(synth, tm.Synthesis)
		pr = append(pr, tm.Prove)
	}
	b.ReportMetric(float64(medianDur(total).Milliseconds()), "latency-ms")
	b.ReportMetric(float64(medianDur(synth).Milliseconds()), "synth-ms")
	b.ReportMetric(float64(medianDur(pr).Milliseconds()), "prove-ms")
	b.ReportMetric(0, "ns/op")
	b.Logf("%d proofs: latency %s, synthesis %s, prove %s (GOMAXPROCS %d)", len(total), durStats(total), durStats(synth), durStats(pr), runtimeProcs())
}
