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
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// cancelLatency is the most a cancel may take to free the lane and give
// the budget back (issue: CancelProof must stop running work within 1 s).
const cancelLatency = time.Second

// watchedBackend proves on the CPU and tells the test when Start or Finish
// has passed a few of its yield points (it is then in the middle of its
// FFTs or MSMs), and what each returned.
type watchedBackend struct {
	cpu      cpu.Backend
	inStart  chan struct{}
	inFinish chan struct{}
	started  chan error // what each Start returned
	finished chan error // what each Finish returned
}

func newWatchedBackend() *watchedBackend {
	return &watchedBackend{inStart: make(chan struct{}, 8), inFinish: make(chan struct{}, 8),
		started: make(chan error, 8), finished: make(chan error, 8)}
}

func (w *watchedBackend) Name() string { return "cpu-watched" }

// watcher is the Yield a watchedBackend puts into Start's context (the
// CPU backend calls it in Start and in the Finish of the same proof): it
// signals at the third yield point of each, when the stage is under way.
// The context's own check, which comes before it, is what stops the proof.
type watcher struct {
	w         *watchedBackend
	finishing atomic.Bool
	n         [2]atomic.Int32
}

func (y *watcher) yield(context.Context) error {
	ch, i := y.w.inStart, 0
	if y.finishing.Load() {
		ch, i = y.w.inFinish, 1
	}
	if y.n[i].Add(1) == 3 {
		ch <- struct{}{}
	}
	return nil
}

func (w *watchedBackend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	y := &watcher{w: w}
	pend, err := w.cpu.Start(prover.WithYield(ctx, y.yield), p, parts, rnd)
	w.started <- err
	if err != nil {
		return nil, err
	}
	return watchedPending{pend, y}, nil
}

type watchedPending struct {
	prover.Pending
	y *watcher
}

func (p watchedPending) Finish(ctx context.Context) ([]groth16.Proof, error) {
	p.y.finishing.Store(true)
	proofs, err := p.Pending.Finish(ctx)
	p.y.w.finished <- err
	return proofs, err
}

// cancelAndWaitFree cancels id and returns how long it took until no item
// is in a stage, every lane is free and the budget holds only resident
// parameters.
func (r *rig) cancelAndWaitFree(t *testing.T, id string) time.Duration {
	t.Helper()
	t0 := time.Now()
	if _, err := r.eng.Cancel(id); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "lane free and budget idle after the cancel", 20*time.Second, func() bool { return r.free() })
	return time.Since(t0)
}

// free says nothing runs: no item in synthesis, Start or Finish, no lane
// busy, and only resident parameters in the budget.
func (r *rig) free() bool {
	st := r.eng.Status()
	p := st.Pipeline
	if p.Synthesizing+p.Proving+p.Finishing > 0 {
		return false
	}
	for _, l := range st.Lanes {
		if l.Job != "" || l.Abandoned || l.Finishing > 0 {
			return false
		}
	}
	return r.budget.Used() == r.params.HotBytes()
}

// TestCancelStopsRunningWork: a job cancelled in synthesis or in Start on
// the CPU backend stops at the stage's next yield point (Start
// and Finish return the context's error instead of proving on), and
// within cancelLatency the lane is free and the budget is back to its
// idle value (the resident parameters).
func TestCancelStopsRunningWork(t *testing.T) {
	t.Run("synthesis", func(t *testing.T) {
		r := newRig(t, engine.Config{SynthesisWorkers: 1}, 0, 0)
		// 1000 syntheses of 2^12 rows: seconds, unless the yields stop it.
		mustSubmit(t, r.eng, testReq("synth", 12, testkind.Options{SynthesisRepeat: 1000}))
		waitFor(t, "synthesis running", 10*time.Second, func() bool {
			j, ok := jobStatus(r.eng, "synth")
			return ok && len(j.Partitions) == 1 && j.Partitions[0].State == "synthesizing"
		})
		time.Sleep(50 * time.Millisecond)
		if d := r.cancelAndWaitFree(t, "synth"); d > cancelLatency {
			t.Fatalf("free %v after the cancel, want at most %v", d, cancelLatency)
		} else {
			t.Logf("free %v after the cancel", d)
		}
		if res := mustAwait(t, r.eng, "synth"); res.State != engine.StateCancelled {
			t.Fatalf("job %v", res.State)
		}
		if strings.Contains(r.logs.String(), "job failed") {
			t.Fatalf("a stopped synthesis failed its job:\n%s", r.logs.String())
		}
	})

	// Finish has no yield point to stop at: every multi-exponentiation runs
	// in Start and Finish only assembles the proofs (microseconds).
	for _, stage := range []string{"start"} {
		t.Run(stage, func(t *testing.T) {
			w := newWatchedBackend()
			r := newRigWith(t, engine.Config{}, rigOptions{backend: w})
			mustSubmit(t, r.eng, testReq(stage, 12, testkind.Options{}))
			in := w.inStart
			if stage == "finish" {
				in = w.inFinish
			}
			select {
			case <-in:
			case <-time.After(20 * time.Second):
				t.Fatalf("never in %s", stage)
			}
			d := r.cancelAndWaitFree(t, stage)
			var err error
			if stage == "start" {
				err = <-w.started
			} else {
				<-w.started
				err = <-w.finished
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s returned %v after the cancel, want context.Canceled: it did not stop", stage, err)
			}
			if d > cancelLatency {
				t.Fatalf("free %v after the cancel, want at most %v", d, cancelLatency)
			}
			t.Logf("free %v after the cancel", d)
		})
	}

	t.Run("one job of a batch", func(t *testing.T) {
		// The item is shared: cancelling one job stops its part's
		// synthesis, and the other job is proved.
		r := newRig(t, engine.Config{SynthesisWorkers: 1, MaxBatchSize: 2, MaxBatchWait: time.Minute}, 0, 0)
		// 10 s of delay, then seconds of synthesis, both yielding.
		mustSubmit(t, r.eng, testReq("long", 12, testkind.Options{SynthesisDelayMS: 10_000, SynthesisRepeat: 1000}))
		mustSubmit(t, r.eng, testReq("short", 12, testkind.Options{SynthesisRepeat: 1}))
		waitFor(t, "the long part synthesising", 10*time.Second, func() bool {
			j, ok := jobStatus(r.eng, "long")
			return ok && len(j.Partitions) == 1 && j.Partitions[0].State == "synthesizing"
		})
		t0 := time.Now()
		if _, err := r.eng.Cancel("long"); err != nil {
			t.Fatal(err)
		}
		res := mustAwait(t, r.eng, "short")
		if res.State != engine.StateCompleted {
			t.Fatalf("the other job of the batch: %v %v", res.State, res.Err)
		}
		verifyProof(t, 12, res.Proof, 1)
		if d := time.Since(t0); d > 5*time.Second {
			t.Fatalf("the batch's other job took %v after the cancel: the cancelled part's synthesis went on", d)
		}
		r.waitIdleBudget(t)
	})
}

// deviceBackend stands for a GPU backend: its Start is one call that
// cannot be interrupted (it ignores ctx) and returns when release closes.
type deviceBackend struct {
	entered  chan struct{}
	release  chan struct{}
	finished atomic.Int32
}

func (d *deviceBackend) Name() string { return "device" }

func (d *deviceBackend) Start(_ context.Context, _ *groth16.Params, parts []*r1cs.ProvingAssignment, _ []groth16.Randomness) (prover.Pending, error) {
	d.entered <- struct{}{}
	<-d.release
	return devicePending{d: d, n: len(parts)}, nil
}

type devicePending struct {
	d *deviceBackend
	n int
}

func (p devicePending) Finish(context.Context) ([]groth16.Proof, error) {
	p.d.finished.Add(1)
	return make([]groth16.Proof, p.n), nil
}

func (p devicePending) Times() groth16.StageTimes { return groth16.StageTimes{} }

// TestCancelAbandonsDeviceCall: a job cancelled while its device call runs
// is CANCELLED at once; the call cannot be interrupted, so the lane stays
// busy (Status: Abandoned) and keeps the memory the device reads until the
// call returns; then its result is dropped (no Finish, no self-check) and
// the lane and the memory are free within cancelLatency.
func TestCancelAbandonsDeviceCall(t *testing.T) {
	dev := &deviceBackend{entered: make(chan struct{}, 1), release: make(chan struct{})}
	r := newRigWith(t, engine.Config{}, rigOptions{lanes: []engine.Lane{{Name: "gpu0", Backend: dev, DeviceMemory: 1 << 30}}})
	mustSubmit(t, r.eng, testReq("on-device", 12, testkind.Options{}))
	select {
	case <-dev.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the device call never started")
	}
	if was, err := r.eng.Cancel("on-device"); err != nil || !was {
		t.Fatalf("cancel: %v %v", was, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if res, err := r.eng.Await(ctx, "on-device", 0); err != nil || res.State != engine.StateCancelled {
		t.Fatalf("job while its device call runs: %v %v", res.State, err)
	}
	st := r.eng.Status()
	if !st.Lanes[0].Abandoned || r.budget.Used() == r.params.HotBytes() {
		t.Fatalf("during the abandoned call: lane %+v, budget %d used with %d of parameters", st.Lanes[0], r.budget.Used(), r.params.HotBytes())
	}
	released := time.Now()
	close(dev.release)
	waitFor(t, "lane free and budget idle after the call returned", 20*time.Second, func() bool { return r.free() })
	if d := time.Since(released); d > cancelLatency {
		t.Fatalf("free %v after the device call returned", d)
	}
	if n := dev.finished.Load(); n != 0 {
		t.Fatalf("Finish ran %d times for an abandoned call", n)
	}
	if c := r.eng.Status().Counters; c.Cancelled != 1 || c.Failed != 0 || c.Completed != 0 {
		t.Fatalf("counters %+v", c)
	}
}
