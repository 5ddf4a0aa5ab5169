package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// panicKind plans like the test kind, but its Plan panics for requests
// whose vanilla proof is "plan", and its circuits panic in synthesis for
// "synthesis".
type panicKind struct{ inner *testkind.Planner }

func (k panicKind) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	switch string(req.VanillaProof) {
	case "plan":
		var fields []int
		_ = fields[len(req.VanillaProof)] // an index out of range, as a malformed input might cause
	case "synthesis":
		return &engine.Plan{CircuitID: testkind.CircuitID(10), Partitions: []engine.Partition{
			{Circuit: panicCircuit{}, PublicInputs: testkind.PublicInputs(10)},
		}}, nil
	}
	return k.inner.Plan(ctx, req)
}

type panicCircuit struct{}

func (panicCircuit) Synthesize(*r1cs.CS) error { panic("circuit exploded") }

// panicBackend proves on the CPU, but its next Start or Finish panics
// when armed.
type panicBackend struct {
	gatedBackend
	start, finish atomic.Bool
}

func (b *panicBackend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	if b.start.CompareAndSwap(true, false) {
		panic("Start exploded")
	}
	pend, err := b.gatedBackend.Start(ctx, p, parts, rnd)
	if err != nil || !b.finish.CompareAndSwap(true, false) {
		return pend, err
	}
	return panicPending{pend}, nil
}

type panicPending struct{ prover.Pending }

func (panicPending) Finish(context.Context) ([]groth16.Proof, error) { panic("Finish exploded") }

// TestPanicsFailTheJobNotTheEngine: a panic while planning rejects the
// request as invalid; one in synthesis, Start or Finish fails the job. The
// engine keeps serving, logs the stack, and no memory stays reserved.
func TestPanicsFailTheJobNotTheEngine(t *testing.T) {
	be := &panicBackend{}
	r := newRigWith(t, engine.Config{}, rigOptions{kind: panicKind{testkind.New()}, backend: be})
	ctx := context.Background()

	q := testReq("plan", 10, testkind.Options{})
	q.VanillaProof = []byte("plan")
	if _, err := r.eng.Submit(ctx, q); !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), "panic") {
		t.Fatalf("panicking plan: %v", err)
	}
	q = testReq("synth", 10, testkind.Options{})
	q.VanillaProof = []byte("synthesis")
	if res, err := r.eng.Prove(ctx, q); err != nil || res.State != engine.StateFailed || !strings.Contains(res.Err.Error(), "circuit exploded") {
		t.Fatalf("panicking synthesis: %v %v %v", err, res.State, res.Err)
	}
	be.start.Store(true)
	if res, err := r.eng.Prove(ctx, testReq("start", 10, testkind.Options{})); err != nil || res.State != engine.StateFailed ||
		!strings.Contains(res.Err.Error(), "Start exploded") {
		t.Fatalf("panicking Start: %v %v %v", err, res.State, res.Err)
	}
	be.finish.Store(true)
	if res, err := r.eng.Prove(ctx, testReq("finish", 10, testkind.Options{Partitions: 2})); err != nil || res.State != engine.StateFailed ||
		!strings.Contains(res.Err.Error(), "Finish exploded") {
		t.Fatalf("panicking Finish: %v %v %v", err, res.State, res.Err)
	}
	if n := strings.Count(r.logs.String(), "recovered from a panic"); n != 4 {
		t.Errorf("%d panic log lines, want 4", n)
	}
	if !strings.Contains(r.logs.String(), "runtime/debug.Stack") {
		t.Error("panic logs carry no stack")
	}
	if res, err := r.eng.Prove(ctx, testReq("fine", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
		t.Fatalf("after the panics: %v %v %v", err, res.State, res.Err)
	}
	r.waitIdleBudget(t)
}

// TestPlanningIsBounded: at most PlanConcurrency requests are planned at
// once, and beyond MaxPending jobs that are not final a submission is
// refused with ErrTooManyJobs.
func TestPlanningIsBounded(t *testing.T) {
	gk := newGateKind(ignoreCtx)
	r := newRigWith(t, engine.Config{MaxPending: 2, PlanConcurrency: 1}, rigOptions{kind: gk})
	errc := make(chan error, 2)
	for _, id := range []string{"a", "b"} {
		go func() { _, err := r.eng.Submit(context.Background(), testReq(id, 10, testkind.Options{})); errc <- err }()
	}
	waitFor(t, "two jobs planning", 5*time.Second, func() bool { return len(r.eng.Status().Jobs) == 2 })
	time.Sleep(20 * time.Millisecond)
	if n := gk.active.Load(); n != 1 {
		t.Fatalf("%d plans running at once, want 1", n)
	}
	if _, err := r.eng.Submit(context.Background(), testReq("c", 10, testkind.Options{})); !errors.Is(err, engine.ErrTooManyJobs) {
		t.Fatalf("third submission: %v", err)
	}
	gk.open()
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"a", "b"} {
		if res := mustAwait(t, r.eng, id); res.State != engine.StateCompleted {
			t.Fatalf("%s: %v", id, res.State)
		}
	}
	if p := gk.peak.Load(); p != 1 {
		t.Fatalf("peak of %d plans at once, want 1", p)
	}
	if res, err := r.eng.Prove(context.Background(), testReq("c", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
		t.Fatalf("after the backlog: %v %v", err, res.State)
	}
}
