package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// TestCriticalGetsNextProverSlot: with the prover busy and NORMAL jobs
// already synthesised and waiting, a CRITICAL job is proved next.
func TestCriticalGetsNextProverSlot(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 1, Lookahead: 1}, 0, 0)
	// Warm the parameters so the order is not disturbed by a load.
	if _, _, err := r.params.Preload(context.Background(), testkind.CircuitID(12), 0); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	await := func(id string) {
		defer wg.Done()
		res := mustAwait(t, r.eng, id)
		if res.State != engine.StateCompleted {
			t.Errorf("%s: %v %v", id, res.State, res.Err)
		}
		mu.Lock()
		order = append(order, id)
		mu.Unlock()
	}
	submit := func(id string, prio proofkind.Priority, k int) {
		q := testReq(id, k, testkind.Options{})
		q.Priority = prio
		mustSubmit(t, r.eng, q)
		wg.Add(1)
		go await(id)
	}
	// A is long enough to prove that B and C are synthesised meanwhile.
	submit("A", proofkind.PriorityNormal, 12)
	submit("B", proofkind.PriorityNormal, 12)
	submit("C", proofkind.PriorityNormal, 12)
	waitFor(t, "A proving with B and C waiting", 10*time.Second, func() bool {
		p := r.eng.Status().Pipeline
		return p.Proving == 1 && p.Ready == 2
	})
	submit("D", proofkind.PriorityCritical, 12)
	wg.Wait()
	want := []string{"A", "D", "B", "C"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("completion order %v, want %v", order, want)
		}
	}
}

// TestPriorityOvertakesQueue: queued jobs run by priority, then arrival.
func TestPriorityOvertakesQueue(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 1, Lookahead: 1}, 0, 0)
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	blocker := testReq("blocker", 10, testkind.Options{SynthesisDelayMS: 300})
	mustSubmit(t, r.eng, blocker)
	waitFor(t, "blocker running", 5*time.Second, func() bool { return r.eng.Status().Pipeline.Synthesizing == 1 })
	for _, s := range []struct {
		id   string
		prio proofkind.Priority
	}{{"low", proofkind.PriorityLow}, {"n1", proofkind.PriorityNormal}, {"high", proofkind.PriorityHigh}, {"n2", proofkind.PriorityNormal}, {"crit", proofkind.PriorityCritical}} {
		q := testReq(s.id, 10, testkind.Options{})
		q.Priority = s.prio
		res := mustSubmit(t, r.eng, q)
		if s.id == "crit" && res.QueuePosition != 0 {
			t.Errorf("critical job queue position %d, want 0", res.QueuePosition)
		}
		if s.id == "n2" && res.QueuePosition != 2 {
			t.Errorf("n2 queue position %d, want 2 (n1, high)", res.QueuePosition)
		}
		wg.Add(1)
		go func(id string) {
			defer wg.Done()
			mustAwait(t, r.eng, id)
			mu.Lock()
			order = append(order, id)
			mu.Unlock()
		}(s.id)
	}
	wg.Wait()
	want := []string{"crit", "high", "n1", "n2", "low"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("completion order %v, want %v", order, want)
		}
	}
}

func TestBatching(t *testing.T) {
	t.Run("full batch", func(t *testing.T) {
		r := newRig(t, engine.Config{MaxBatchSize: 2, MaxBatchWait: time.Minute}, 0, 0)
		mustSubmit(t, r.eng, testReq("x", 10, testkind.Options{Partitions: 2}))
		mustSubmit(t, r.eng, testReq("y", 10, testkind.Options{Partitions: 2}))
		rx, ry := mustAwait(t, r.eng, "x"), mustAwait(t, r.eng, "y")
		if rx.State != engine.StateCompleted || ry.State != engine.StateCompleted {
			t.Fatalf("states %v %v", rx.State, ry.State)
		}
		if rx.Batch == 0 || rx.Batch != ry.Batch {
			t.Fatalf("batches %d and %d, want one shared batch", rx.Batch, ry.Batch)
		}
		verifyProof(t, 10, rx.Proof, 2)
		verifyProof(t, 10, ry.Proof, 2)
		if rx.Timings.QueueWait > 30*time.Second {
			t.Errorf("full batch waited %v", rx.Timings.QueueWait)
		}
	})
	t.Run("flush after wait", func(t *testing.T) {
		const wait = 300 * time.Millisecond
		r := newRig(t, engine.Config{MaxBatchSize: 2, MaxBatchWait: wait}, 0, 0)
		start := time.Now()
		res, err := r.eng.Prove(context.Background(), testReq("lonely", 10, testkind.Options{}))
		if err != nil || res.State != engine.StateCompleted {
			t.Fatalf("%v %v %v", err, res.State, res.Err)
		}
		if el := time.Since(start); el < wait {
			t.Errorf("lonely job finished after %v, before the batch wait of %v", el, wait)
		}
		if res.Timings.QueueWait < wait-10*time.Millisecond {
			t.Errorf("queue wait %v, want ≥ %v", res.Timings.QueueWait, wait)
		}
	})
	t.Run("higher priority flushes", func(t *testing.T) {
		r := newRig(t, engine.Config{MaxBatchSize: 4, MaxBatchWait: time.Hour}, 0, 0)
		// LOW waits for company; a NORMAL arrival flushes it and waits in
		// turn; a HIGH arrival (never held for batching) flushes that.
		l := testReq("low", 10, testkind.Options{})
		l.Priority = proofkind.PriorityLow
		mustSubmit(t, r.eng, l)
		mustSubmit(t, r.eng, testReq("waiting", 10, testkind.Options{}))
		if got := r.eng.Status().Batching.Collecting; got != 1 {
			t.Fatalf("%d jobs collecting, want 1 (the NORMAL one)", got)
		}
		q := testReq("urgent", 10, testkind.Options{})
		q.Priority = proofkind.PriorityHigh
		mustSubmit(t, r.eng, q)
		if got := r.eng.Status().Batching.Collecting; got != 0 {
			t.Fatalf("%d jobs still collecting after a HIGH arrival", got)
		}
		for _, id := range []string{"urgent", "waiting", "low"} {
			if res := mustAwait(t, r.eng, id); res.State != engine.StateCompleted {
				t.Fatalf("%s: %v", id, res.State)
			}
		}
	})
	t.Run("shutdown flushes", func(t *testing.T) {
		r := newRig(t, engine.Config{MaxBatchSize: 4, MaxBatchWait: time.Hour}, 0, 0)
		mustSubmit(t, r.eng, testReq("parked", 10, testkind.Options{}))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.eng.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		if res := mustAwait(t, r.eng, "parked"); res.State != engine.StateCompleted {
			t.Fatalf("parked job: %v %v", res.State, res.Err)
		}
	})
}

func TestCancel(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 1}, 0, 0)
	mustSubmit(t, r.eng, testReq("running", 10, testkind.Options{Partitions: 3, SynthesisDelayMS: 200}))
	mustSubmit(t, r.eng, testReq("pending", 10, testkind.Options{}))
	waitFor(t, "running job started", 5*time.Second, func() bool { return r.eng.Status().Pipeline.Synthesizing == 1 })

	was, err := r.eng.Cancel("pending")
	if err != nil || was {
		t.Fatalf("cancel pending: was_running=%v err=%v", was, err)
	}
	if res := mustAwait(t, r.eng, "pending"); res.State != engine.StateCancelled {
		t.Fatalf("pending job: %v", res.State)
	}
	was, err = r.eng.Cancel("running")
	if err != nil || !was {
		t.Fatalf("cancel running: was_running=%v err=%v", was, err)
	}
	res := mustAwait(t, r.eng, "running")
	if res.State != engine.StateCancelled || res.Proof != nil {
		t.Fatalf("running job: %v, %d proof bytes", res.State, len(res.Proof))
	}
	if _, err := r.eng.Cancel("nope"); !errors.Is(err, engine.ErrJobNotFound) {
		t.Fatalf("cancel unknown: %v", err)
	}
	if was, err := r.eng.Cancel("running"); err != nil || was {
		t.Fatalf("second cancel: %v %v", was, err)
	}
	r.waitIdleBudget(t)
	waitFor(t, "pipeline empty", 5*time.Second, func() bool {
		p := r.eng.Status().Pipeline
		return p.Synthesizing+p.Ready+p.Proving+p.Finishing+p.SynthesisQueued == 0
	})
	// The engine still proves.
	if res, err := r.eng.Prove(context.Background(), testReq("after", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
		t.Fatalf("after cancel: %v %v", err, res.State)
	}
}

func TestAwaitTimeout(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	mustSubmit(t, r.eng, testReq("slow", 10, testkind.Options{SynthesisDelayMS: 400}))
	res, err := r.eng.Await(context.Background(), "slow", 50*time.Millisecond)
	if err != nil || res.State != engine.StateTimeout {
		t.Fatalf("await with timeout: %v %v", res.State, err)
	}
	if res := mustAwait(t, r.eng, "slow"); res.State != engine.StateCompleted {
		t.Fatalf("job did not keep running: %v", res.State)
	}
	if _, err := r.eng.Await(context.Background(), "never-seen", 0); !errors.Is(err, engine.ErrJobNotFound) {
		t.Fatalf("await unknown: %v", err)
	}
}

func TestDuplicateRequestID(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	q := testReq("dup", 10, testkind.Options{SynthesisDelayMS: 100})
	var wg sync.WaitGroup
	results := make([]engine.Result, 3)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.eng.Prove(context.Background(), q)
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	// A retry after completion attaches to the retained result.
	sub := mustSubmit(t, r.eng, q)
	if !sub.Attached {
		t.Error("resubmission after completion did not attach")
	}
	results[2] = mustAwait(t, r.eng, "dup")
	for i, res := range results {
		if res.State != engine.StateCompleted || string(res.Proof) != string(results[0].Proof) {
			t.Fatalf("caller %d: %v, same proof %v", i, res.State, string(res.Proof) == string(results[0].Proof))
		}
	}
	st := r.eng.Status()
	if st.Counters.Completed != 1 {
		t.Fatalf("%d executions, want 1", st.Counters.Completed)
	}
	// Same id, different content, while running: refused.
	mustSubmit(t, r.eng, testReq("busy", 10, testkind.Options{SynthesisDelayMS: 300}))
	if _, err := r.eng.Submit(context.Background(), testReq("busy", 10, testkind.Options{Partitions: 2})); !errors.Is(err, engine.ErrRequestIDConflict) {
		t.Fatalf("conflicting reuse: %v", err)
	}
	mustAwait(t, r.eng, "busy")
}

func TestFailedJobRunsAgainOnRetry(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	fail := 0
	res, err := r.eng.Prove(context.Background(), testReq("flaky", 10, testkind.Options{FailPartition: &fail}))
	if err != nil || res.State != engine.StateFailed || !errors.Is(res.Err, testkind.ErrInjected) {
		t.Fatalf("%v %v %v", err, res.State, res.Err)
	}
	// Same id, same content: a failed job is not a cache hit.
	sub := mustSubmit(t, r.eng, testReq("flaky", 10, testkind.Options{FailPartition: &fail}))
	if sub.Attached {
		t.Fatal("retry of a failed job attached to the failure")
	}
	mustAwait(t, r.eng, "flaky")
	if got := r.eng.Status().Counters.Failed; got != 2 {
		t.Fatalf("failed = %d, want 2", got)
	}
	r.waitIdleBudget(t)
}

// TestAbandonedProveCancels: without an orphan grace a job is cancelled as
// soon as its last caller leaves (with one: TestOrphanGrace).
func TestAbandonedProveCancels(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 1, OrphanGrace: -1}, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	_, err := r.eng.Prove(ctx, testReq("gone", 10, testkind.Options{Partitions: 4, SynthesisDelayMS: 100}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("prove: %v", err)
	}
	res := mustAwait(t, r.eng, "gone")
	if res.State != engine.StateCancelled {
		t.Fatalf("abandoned job: %v", res.State)
	}
	r.waitIdleBudget(t)

	// With a second waiter attached, the job survives the first leaving.
	ctx2, cancel2 := context.WithCancel(context.Background())
	q := testReq("shared", 10, testkind.Options{Partitions: 2, SynthesisDelayMS: 100})
	errc := make(chan error, 1)
	go func() { _, err := r.eng.Prove(ctx2, q); errc <- err }()
	waitFor(t, "job queued", 5*time.Second, func() bool { return len(r.eng.Status().Jobs) == 1 })
	resc := make(chan engine.Result, 1)
	go func() { res, _ := r.eng.Prove(context.Background(), q); resc <- res }()
	waitFor(t, "second waiter", 5*time.Second, func() bool {
		js := r.eng.Status().Jobs
		return len(js) == 1 && js[0].Waiters == 2
	})
	cancel2()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller: %v", err)
	}
	if res := <-resc; res.State != engine.StateCompleted {
		t.Fatalf("second caller: %v", res.State)
	}

	// An Await caller keeps an abandoned job alive only while it waits.
	ctx3, cancel3 := context.WithCancel(context.Background())
	go func() {
		_, err := r.eng.Prove(ctx3, testReq("orphan", 10, testkind.Options{Partitions: 8, SynthesisDelayMS: 100}))
		errc <- err
	}()
	waitFor(t, "orphan queued", 5*time.Second, func() bool { return len(r.eng.Status().Jobs) == 1 })
	awaited := make(chan engine.Result, 1)
	go func() { res, _ := r.eng.Await(context.Background(), "orphan", 300*time.Millisecond); awaited <- res }()
	waitFor(t, "await attached", 5*time.Second, func() bool {
		js := r.eng.Status().Jobs
		return len(js) == 1 && js[0].Waiters == 2
	})
	cancel3()
	<-errc
	if st := r.eng.Status().Jobs; len(st) != 1 || st[0].State.Final() {
		t.Fatalf("job ended while an Await waited: %+v", st)
	}
	if res := <-awaited; res.State != engine.StateTimeout {
		t.Fatalf("await: %v", res.State)
	}
	if res := mustAwait(t, r.eng, "orphan"); res.State != engine.StateCancelled {
		t.Fatalf("orphan after its last waiter left: %v", res.State)
	}
	r.waitIdleBudget(t)
}

func TestSelfCheckFailureFailsJob(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	res, err := r.eng.Prove(context.Background(), testReq("bad", 10, testkind.Options{Partitions: 3, CorruptInputs: true}))
	if err != nil {
		t.Fatal(err)
	}
	if res.State != engine.StateFailed || !errors.Is(res.Err, engine.ErrSelfCheck) || res.Proof != nil {
		t.Fatalf("state %v err %v proof %d bytes", res.State, res.Err, len(res.Proof))
	}
	t.Log(res.Err)
	// With the self-check off the same (wrong-input) request "completes":
	// the switch really switches.
	r2 := newRig(t, engine.Config{SkipSelfCheck: true}, 0, 0)
	res, err = r2.eng.Prove(context.Background(), testReq("bad", 10, testkind.Options{CorruptInputs: true}))
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("without self-check: %v %v", err, res.State)
	}
}

func TestRetention(t *testing.T) {
	r := newRig(t, engine.Config{CompletedMax: 2}, 0, 0)
	for _, id := range []string{"r1", "r2", "r3"} {
		if res, err := r.eng.Prove(context.Background(), testReq(id, 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
			t.Fatal(err, res.State)
		}
	}
	if _, err := r.eng.Await(context.Background(), "r1", 0); !errors.Is(err, engine.ErrJobNotFound) {
		t.Fatalf("oldest result still retained: %v", err)
	}
	if res := mustAwait(t, r.eng, "r3"); res.State != engine.StateCompleted {
		t.Fatal(res.State)
	}
	r3 := newRig(t, engine.Config{CompletedTTL: 50 * time.Millisecond}, 0, 0)
	if _, err := r3.eng.Prove(context.Background(), testReq("ttl", 10, testkind.Options{})); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	// The next finished job prunes expired ones.
	if _, err := r3.eng.Prove(context.Background(), testReq("ttl2", 10, testkind.Options{})); err != nil {
		t.Fatal(err)
	}
	if _, err := r3.eng.Await(context.Background(), "ttl", 0); !errors.Is(err, engine.ErrJobNotFound) {
		t.Fatalf("expired result still retained: %v", err)
	}
}

func TestShutdownAbortsAndRefuses(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 1}, 0, 0)
	mustSubmit(t, r.eng, testReq("long", 10, testkind.Options{Partitions: 20, SynthesisDelayMS: 100}))
	waitFor(t, "job running", 5*time.Second, func() bool { return r.eng.Status().Pipeline.Synthesizing == 1 })
	if r.eng.Status().Draining {
		t.Fatal("Status().Draining before Shutdown")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_ = r.eng.Shutdown(ctx)
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("shutdown took %v", el)
	}
	res := mustAwait(t, r.eng, "long")
	// Aborted at the deadline is not "refused while draining": a client
	// must not take an aborted job for one that never started.
	if res.State != engine.StateFailed || !errors.Is(res.Err, engine.ErrShuttingDown) || errors.Is(res.Err, engine.ErrDraining) {
		t.Fatalf("long job: %v %v", res.State, res.Err)
	}
	_, err := r.eng.Submit(context.Background(), testReq("late", 10, testkind.Options{}))
	if !errors.Is(err, engine.ErrDraining) || !errors.Is(err, engine.ErrShuttingDown) {
		t.Fatalf("submit after shutdown: %v, want ErrDraining (an ErrShuttingDown)", err)
	}
	if !r.eng.Status().Draining {
		t.Fatal("Status().Draining false after Shutdown")
	}
}
