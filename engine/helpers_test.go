package engine_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/srs"
)

// paramDir holds the parameters of test-k10 and test-k12 only, linked from
// the machine's cache (testkit.RunWithTestParams): test-k11 deliberately has
// none.
var paramDir string

func TestMain(m *testing.M) { os.Exit(testkit.RunWithTestParams(m, &paramDir, 10, 12)) }

type rig struct {
	eng    *engine.Engine
	budget *budget.Budget
	params *srs.Manager
	logs   *testkit.SyncBuffer
}

// rigOptions change what newRigWith builds; zero fields mean the defaults
// of newRig.
type rigOptions struct {
	total   int64 // 0: a generous budget
	minIdle time.Duration
	kind    engine.Planner // registered for proofkind.Test; nil: testkind
	backend prover.Backend // nil: the CPU backend
	// more kinds, lanes and the reserved lane's backend (engine.Options).
	kinds  []engine.Kind
	lanes  []engine.Lane
	urgent prover.Backend
	// locator finds the parameters; nil: the test kind's in paramDir.
	locator srs.Locator
}

// newRig starts an engine with the test kind over paramDir. total 0 means a
// generous budget.
func newRig(t *testing.T, cfg engine.Config, total int64, minIdle time.Duration) *rig {
	t.Helper()
	return newRigWith(t, cfg, rigOptions{total: total, minIdle: minIdle})
}

func newRigWith(t *testing.T, cfg engine.Config, o rigOptions) *rig {
	t.Helper()
	if o.kind == nil {
		o.kind = testkind.New()
	}
	logs := &testkit.SyncBuffer{}
	if o.locator == nil {
		o.locator = testkind.Locator(paramDir)
	}
	kinds := append([]engine.Kind{engine.Builtin(proofkind.Test, o.kind)}, o.kinds...)
	e := testkit.NewEngine(t, testkit.EngineOptions{Config: cfg, Kinds: kinds, Locator: o.locator, Budget: o.total,
		MinIdle: o.minIdle, Backend: o.backend, Lanes: o.lanes, UrgentBackend: o.urgent, Log: testkit.Logger(t, logs)})
	if g, ok := o.kind.(interface{ open() }); ok {
		t.Cleanup(g.open) // runs before the engine's shutdown
	}
	return &rig{eng: e.Engine, budget: e.Budget, params: e.Params, logs: logs}
}

// testReq builds a test-kind request for 2^k rows.
func testReq(id string, k int, opt testkind.Options) *engine.Request {
	r := testkind.NewRequest(k, opt)
	r.RequestID = id
	return r
}

// verifyProof checks proof bytes against the test circuit's .vk file.
func verifyProof(t *testing.T, k int, proof []byte, partitions int) {
	t.Helper()
	if len(proof) != partitions*groth16.ProofSize {
		t.Fatalf("proof is %d bytes, want %d", len(proof), partitions*groth16.ProofSize)
	}
	vk, err := groth16.ReadVerifyingKeyFile(paramDir + "/" + testkind.FileBase(k) + ".vk")
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		t.Fatal(err)
	}
	in := testkind.PublicInputs(k)
	for i := range proofs {
		ok, err := groth16.Verify(pvk, &proofs[i], in)
		if err != nil || !ok {
			t.Fatalf("partition %d does not verify (ok=%v, err=%v)", i, ok, err)
		}
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitIdleBudget waits until only resident parameters hold memory.
func (r *rig) waitIdleBudget(t *testing.T) {
	t.Helper()
	waitFor(t, "budget back to idle", 20*time.Second, func() bool {
		return r.budget.Used() == r.params.HotBytes()
	})
}

func mustSubmit(t *testing.T, e *engine.Engine, req *engine.Request) engine.SubmitResult {
	t.Helper()
	res, err := e.Submit(context.Background(), req)
	if err != nil {
		t.Fatalf("submit %s: %v", req.RequestID, err)
	}
	return res
}

func mustAwait(t *testing.T, e *engine.Engine, id string) engine.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := e.Await(ctx, id, 0)
	if err != nil {
		t.Fatalf("await %s: %v", id, err)
	}
	return r
}
