package engine_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// awaitOrphan waits until the orphaned job id is final, without becoming
// a caller that came back for it (Await would), and returns its result.
func awaitOrphan(t *testing.T, r *rig, id string) engine.Result {
	t.Helper()
	waitFor(t, id+" final", 30*time.Second, func() bool {
		j, ok := jobStatus(r.eng, id)
		return !ok || j.State.Final()
	})
	res, err := r.eng.Await(context.Background(), id, 0)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return res
}

// proveLeaving runs a Prove of req whose caller gives up once the job is
// in state (as Curio's client does at its ProveTimeout) and returns when
// that call has returned.
func proveLeaving(t *testing.T, r *rig, req *engine.Request, state engine.State) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := r.eng.Prove(ctx, req); errc <- err }()
	waitFor(t, req.RequestID+" "+state.String(), 10*time.Second, func() bool {
		j, ok := jobStatus(r.eng, req.RequestID)
		return ok && j.State == state
	})
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that left: %v", err)
	}
}

// TestOrphanGrace: a job whose Prove caller gave up keeps running for the
// orphan grace, and a retry with the same request id (Curio's retried
// task) attaches to it and gets its proof; a result nobody collected is
// kept for the grace even when the TTL of results is shorter; a job nobody
// comes back for is cancelled when the grace is over and gives its memory
// back; CancelProof still cancels at once, and a job without a request id
// (nobody could come back for it) is cancelled at once.
func TestOrphanGrace(t *testing.T) {
	slow := testkind.Options{Partitions: 4, SynthesisDelayMS: 150}

	t.Run("retry attaches to the running job", func(t *testing.T) {
		r := newRig(t, engine.Config{SynthesisWorkers: 1, OrphanGrace: time.Minute}, 0, 0)
		req := testReq("wdpost-1000-0-7", 10, slow)
		proveLeaving(t, r, req, engine.StateRunning)
		j, ok := jobStatus(r.eng, req.RequestID)
		if !ok || j.State.Final() || j.Waiters != 0 || j.OrphanedFor <= 0 {
			t.Fatalf("after its caller left: %+v (found %v)", j, ok)
		}
		if c := r.eng.Status().Counters; c.Orphaned != 1 || c.Cancelled != 0 {
			t.Fatalf("counters %+v", c)
		}
		res, err := r.eng.Prove(context.Background(), req)
		if err != nil || res.State != engine.StateCompleted {
			t.Fatalf("retry: %v %v %v", res.State, res.Err, err)
		}
		verifyProof(t, 10, res.Proof, 4)
		c := r.eng.Status().Counters
		if c.Attached != 1 || c.Reclaimed != 1 || c.Completed != 1 {
			t.Fatalf("counters %+v, want one job, attached and reclaimed once", c)
		}
		if !strings.Contains(r.logs.String(), `msg="caller came back for an orphaned job" job=wdpost-1000-0-7`) {
			t.Fatalf("no log line for the reclaim:\n%s", r.logs.String())
		}
		r.waitIdleBudget(t)
	})

	t.Run("caller leaves while the job is planned", func(t *testing.T) {
		gk := newGateKind(honourCtx)
		r := newRigWith(t, engine.Config{OrphanGrace: time.Minute}, rigOptions{kind: gk})
		req := testReq("planned", 10, testkind.Options{})
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan error, 1)
		go func() { _, err := r.eng.Prove(ctx, req); first <- err }()
		waitPlanning(t, r.eng, "planned", 1)
		cancel()
		// The plan goes on without a holder (on the first caller's
		// goroutine, which returns when it ends).
		waitPlanning(t, r.eng, "planned", 0)
		type out struct {
			res engine.Result
			err error
		}
		retry := make(chan out, 1)
		go func() { res, err := r.eng.Prove(context.Background(), req); retry <- out{res, err} }()
		waitPlanning(t, r.eng, "planned", 1)
		gk.open()
		if err := <-first; !errors.Is(err, context.Canceled) {
			t.Fatalf("the caller that left: %v", err)
		}
		if o := <-retry; o.err != nil || o.res.State != engine.StateCompleted {
			t.Fatalf("retry: %v %v %v", o.res.State, o.res.Err, o.err)
		}
		if n := gk.calls.Load(); n != 1 {
			t.Fatalf("%d plans, want 1: the retry attaches to the orphaned one", n)
		}
	})

	t.Run("result kept for the grace", func(t *testing.T) {
		r := newRig(t, engine.Config{OrphanGrace: time.Minute, CompletedTTL: 10 * time.Millisecond}, 0, 0)
		req := testReq("collect-later", 10, testkind.Options{SynthesisDelayMS: 200})
		proveLeaving(t, r, req, engine.StateRunning)
		first := awaitOrphan(t, r, req.RequestID)
		if first.State != engine.StateCompleted {
			t.Fatalf("orphaned job: %v %v", first.State, first.Err)
		}
		// A job that still had its caller: its result goes with the TTL.
		if res, err := r.eng.Prove(context.Background(), testReq("collected", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
			t.Fatalf("collected: %v %v", res.State, err)
		}
		waitFor(t, "the collected result pruned", 10*time.Second, func() bool {
			_, err := r.eng.Await(context.Background(), "collected", 0)
			return errors.Is(err, engine.ErrJobNotFound)
		})
		res, err := r.eng.Prove(context.Background(), req)
		if err != nil || res.State != engine.StateCompleted || !bytes.Equal(res.Proof, first.Proof) {
			t.Fatalf("retry after the job ended: %v %v (same proof: %v)", res.State, err, bytes.Equal(res.Proof, first.Proof))
		}
		if c := r.eng.Status().Counters; c.Completed != 2 || c.Attached != 1 {
			t.Fatalf("counters %+v: the retry proved again", c)
		}
	})

	t.Run("grace over", func(t *testing.T) {
		const grace = 300 * time.Millisecond
		r := newRig(t, engine.Config{SynthesisWorkers: 1, OrphanGrace: grace}, 0, 0)
		req := testReq("forgotten", 10, testkind.Options{Partitions: 20, SynthesisDelayMS: 100})
		proveLeaving(t, r, req, engine.StateRunning)
		left := time.Now()
		res := awaitOrphan(t, r, req.RequestID)
		waited := time.Since(left)
		if res.State != engine.StateCancelled || res.Err == nil || !strings.Contains(res.Err.Error(), "orphan_grace") {
			t.Fatalf("forgotten job: %v %v", res.State, res.Err)
		}
		if waited < grace-50*time.Millisecond || waited > grace+time.Second {
			t.Fatalf("cancelled %v after its caller left, grace %v", waited, grace)
		}
		r.waitIdleBudget(t)
		// Cancelled is not a result to keep: the retry proves afresh.
		res, err := r.eng.Prove(context.Background(), testReq("forgotten", 10, testkind.Options{}))
		if err != nil || res.State != engine.StateCompleted {
			t.Fatalf("retry after the grace: %v %v", res.State, err)
		}
	})

	t.Run("CancelProof during the grace", func(t *testing.T) {
		r := newRig(t, engine.Config{SynthesisWorkers: 1, OrphanGrace: time.Minute}, 0, 0)
		req := testReq("cancel-me", 10, slow)
		proveLeaving(t, r, req, engine.StateRunning)
		if was, err := r.eng.Cancel(req.RequestID); err != nil || !was {
			t.Fatalf("cancel: %v %v", was, err)
		}
		if res := mustAwait(t, r.eng, req.RequestID); res.State != engine.StateCancelled {
			t.Fatalf("after cancel: %v", res.State)
		}
		r.waitIdleBudget(t)
	})

	t.Run("no request id", func(t *testing.T) {
		r := newRig(t, engine.Config{SynthesisWorkers: 1, OrphanGrace: time.Minute}, 0, 0)
		req := testReq("", 10, slow)
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := r.eng.Prove(ctx, req); errc <- err }()
		waitFor(t, "anonymous job running", 10*time.Second, func() bool {
			js := r.eng.Status().Jobs
			return len(js) == 1 && js[0].State == engine.StateRunning
		})
		cancel()
		<-errc
		waitFor(t, "anonymous job cancelled", 5*time.Second, func() bool { return r.eng.Status().Counters.Cancelled == 1 })
		if c := r.eng.Status().Counters; c.Orphaned != 0 {
			t.Fatalf("counters %+v: an anonymous job was orphaned", c)
		}
		r.waitIdleBudget(t)
	})
}

// TestRetainedResultsBounded: retained results are bounded by count and by
// the memory they hold (Status counts it); beyond either bound the oldest
// go first, results of orphaned jobs last.
func TestRetainedResultsBounded(t *testing.T) {
	r := newRig(t, engine.Config{OrphanGrace: time.Minute, CompletedMax: 3}, 0, 0)
	proveLeaving(t, r, testReq("orphan", 10, testkind.Options{SynthesisDelayMS: 200}), engine.StateRunning)
	if res := awaitOrphan(t, r, "orphan"); res.State != engine.StateCompleted {
		t.Fatalf("orphan: %v", res.State)
	}
	for _, id := range []string{"a", "b", "c"} {
		if res, err := r.eng.Prove(context.Background(), testReq(id, 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
			t.Fatalf("%s: %v %v", id, res.State, err)
		}
	}
	st := r.eng.Status().Counters
	if st.Retained != 3 {
		t.Fatalf("%d results retained, want 3", st.Retained)
	}
	// Each holds its proof (192 bytes), id, circuit id and a fixed share.
	if per := st.RetainedBytes / 3; per < 1<<10+192 || per > 1<<10+256 {
		t.Fatalf("retained results hold %d bytes each", per)
	}
	for id, kept := range map[string]bool{"orphan": true, "a": false, "b": true, "c": true} {
		_, err := r.eng.Await(context.Background(), id, 0)
		if kept != (err == nil) {
			t.Errorf("%s: kept %v, want %v (%v)", id, err == nil, kept, err)
		}
	}

	// By bytes: room for two results.
	r = newRig(t, engine.Config{CompletedMaxBytes: 2*(1<<10+192+16) + 100}, 0, 0)
	for _, id := range []string{"x", "y", "z"} {
		if res, err := r.eng.Prove(context.Background(), testReq(id, 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
			t.Fatalf("%s: %v %v", id, res.State, err)
		}
	}
	if st := r.eng.Status().Counters; st.Retained != 2 || st.RetainedBytes > 2*(1<<10+192+16)+100 {
		t.Fatalf("counters %+v, want 2 results within the byte bound", st)
	}
	if _, err := r.eng.Await(context.Background(), "x", 0); !errors.Is(err, engine.ErrJobNotFound) {
		t.Fatalf("oldest result kept beyond the byte bound: %v", err)
	}
}
