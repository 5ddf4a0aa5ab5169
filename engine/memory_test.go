package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/srs"
)

func shapeOf(t *testing.T, k int) srs.Sizes {
	t.Helper()
	s, err := srs.ReadSizes(paramDir + "/" + testkind.FileBase(k) + ".params")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBudgetBoundsConcurrency proves N jobs at once with a budget that fits
// the parameters and only two working sets: all finish, the peak never
// exceeds the budget, two partitions did run side by side, and the budget
// returns to the parameters alone.
func TestBudgetBoundsConcurrency(t *testing.T) {
	s := shapeOf(t, 10)
	total := s.ParamsBytes() + 2*s.WorkingSet() + s.WorkingSet()/2
	r := newRig(t, engine.Config{SynthesisWorkers: 4, Lookahead: 4, SynthesisConcurrency: 8}, total, 0)
	const n = 6
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.eng.Prove(context.Background(), testReq(fmt.Sprint("j", i), 10, testkind.Options{SynthesisDelayMS: 50}))
			if err != nil || res.State != engine.StateCompleted {
				t.Errorf("job %d: %v %v %v", i, err, res.State, res.Err)
			}
		}()
	}
	wg.Wait()
	peak := r.budget.Peak()
	if peak > total {
		t.Fatalf("peak %d above the budget %d", peak, total)
	}
	if peak < s.ParamsBytes()+2*s.WorkingSet() {
		t.Errorf("peak %d: two working sets never ran together (params %d, working set %d)", peak, s.ParamsBytes(), s.WorkingSet())
	}
	r.waitIdleBudget(t)
	if used := r.budget.Used(); used != s.ParamsBytes() {
		t.Fatalf("idle budget use %d, want the parameters' %d", used, s.ParamsBytes())
	}
}

func TestJobLargerThanBudgetFailsAtOnce(t *testing.T) {
	s := shapeOf(t, 10)
	r := newRig(t, engine.Config{}, s.ParamsBytes()+s.WorkingSet()-1, 0)
	start := time.Now()
	_, err := r.eng.Submit(context.Background(), testReq("huge", 10, testkind.Options{}))
	if !errors.Is(err, engine.ErrExceedsBudget) {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("took too long to refuse")
	}
	t.Log(err)
}

// TestBatchCappedByBudget: a batch never asks for more working sets than
// fit beside the parameters, even when max_batch_size allows it.
func TestBatchCappedByBudget(t *testing.T) {
	s := shapeOf(t, 10)
	total := s.ParamsBytes() + 2*s.WorkingSet()
	r := newRig(t, engine.Config{MaxBatchSize: 8, MaxBatchWait: time.Minute}, total, 0)
	for i := range 4 {
		mustSubmit(t, r.eng, testReq(fmt.Sprint("b", i), 10, testkind.Options{}))
	}
	batches := map[uint64]int{}
	for i := range 4 {
		res := mustAwait(t, r.eng, fmt.Sprint("b", i))
		if res.State != engine.StateCompleted {
			t.Fatalf("b%d: %v %v", i, res.State, res.Err)
		}
		batches[res.Batch]++
	}
	if len(batches) != 2 {
		t.Fatalf("batches %v, want two of two", batches)
	}
}

// TestIdleParamsEvictedUnderPressure: the budget fits one circuit's
// parameters at a time; the idle set is evicted for the other once it has
// been idle for eviction_min_idle.
func TestIdleParamsEvictedUnderPressure(t *testing.T) {
	s10, s12 := shapeOf(t, 10), shapeOf(t, 12)
	total := max(s10.ParamsBytes()+s10.WorkingSet(), s12.ParamsBytes()+s12.WorkingSet())
	const minIdle = 200 * time.Millisecond
	r := newRig(t, engine.Config{}, total, minIdle)
	if res, err := r.eng.Prove(context.Background(), testReq("small", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
		t.Fatal(err, res.State)
	}
	start := time.Now()
	res, err := r.eng.Prove(context.Background(), testReq("big", 12, testkind.Options{}))
	if err != nil || res.State != engine.StateCompleted {
		t.Fatal(err, res.State, res.Err)
	}
	if el := time.Since(start); el < minIdle/2 {
		t.Errorf("big job finished after %v: the small set was evicted before it was idle for %v", el, minIdle)
	}
	tiers := map[string]srs.Tier{}
	for _, e := range r.params.Status() {
		tiers[e.CircuitID] = e.Tier
	}
	if tiers["test-k10"] != srs.TierWarm || tiers["test-k12"] != srs.TierHot {
		t.Fatalf("tiers %v", tiers)
	}
	// And back: k12 must now be evicted for k10.
	if res, err := r.eng.Prove(context.Background(), testReq("small2", 10, testkind.Options{})); err != nil || res.State != engine.StateCompleted {
		t.Fatal(err, res.State)
	}
	if res.Timings.SRSLoad == 0 {
		t.Error("reload after eviction reports no srs_load")
	}
}

func TestPreloadEvict(t *testing.T) {
	r := newRig(t, engine.Config{SynthesisWorkers: 1}, 0, time.Hour)
	id := testkind.CircuitID(10)
	already, d, err := r.params.Preload(context.Background(), id, 0)
	if err != nil || already || d <= 0 {
		t.Fatalf("preload: %v %v %v", already, d, err)
	}
	if already, _, _ := r.params.Preload(context.Background(), id, 0); !already {
		t.Fatal("second preload loaded again")
	}
	mustSubmit(t, r.eng, testReq("holder", 10, testkind.Options{Partitions: 2, SynthesisDelayMS: 300}))
	waitFor(t, "job holds params", 5*time.Second, func() bool { return r.eng.Status().Pipeline.Synthesizing == 1 })
	was, freed, err := r.params.Evict(id)
	if !errors.Is(err, srs.ErrInUse) || !was || freed != 0 {
		t.Fatalf("evict in use: %v %v %v", was, freed, err)
	}
	mustAwait(t, r.eng, "holder")
	r.waitIdleBudget(t)
	was, freed, err = r.params.Evict(id)
	if err != nil || !was || freed != shapeOf(t, 10).ParamsBytes() {
		t.Fatalf("evict: %v %v %v", was, freed, err)
	}
	if used := r.budget.Used(); used != 0 {
		t.Fatalf("budget use %d after evicting everything", used)
	}
	if was, _, err := r.params.Evict(id); was || err != nil {
		t.Fatalf("evict again: %v %v", was, err)
	}
	if _, _, err := r.params.Evict("porep-32g"); !errors.Is(err, srs.ErrUnknownCircuit) {
		t.Fatalf("evict unknown: %v", err)
	}
}
