package engine_test

import (
	"context"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// stageObserver collects StageTimed calls.
type stageObserver struct {
	mu   sync.Mutex
	recs []engine.StageRecord
}

func (o *stageObserver) JobFinished(engine.JobReport) {}
func (o *stageObserver) BatchFormed(string, int)      {}
func (o *stageObserver) StageTimed(r engine.StageRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recs = append(o.recs, r)
}

// TestStagesInStatus runs a 2-partition job that is held in synthesis,
// reads its stages so far from Status while it runs, then every stage of
// it from RecentJobs once it is final; the observer sees the same records.
func TestStagesInStatus(t *testing.T) {
	obs := &stageObserver{}
	e2 := newObservedEngine(t, obs)
	if st := e2.Status(); len(st.RecentJobs) != 0 {
		t.Fatalf("a new engine lists %d recent jobs", len(st.RecentJobs))
	}
	before := time.Now()
	const id = "job with spaces"
	mustSubmit(t, e2, testReq(id, 10, testkind.Options{Partitions: 2, SynthesisDelayMS: 150}))
	// While it runs, its first synthesis shows among its stages.
	waitFor(t, "a synthesis record of the running job", 10*time.Second, func() bool {
		for _, j := range e2.Status().Jobs {
			for _, s := range j.Stages {
				if j.ID == id && s.Stage == "synthesis" {
					return true
				}
			}
		}
		return false
	})
	res := mustAwait(t, e2, id)
	if res.State != engine.StateCompleted {
		t.Fatal(res.State, res.Err)
	}
	st := e2.Status()
	if len(st.Jobs) != 0 || len(st.RecentJobs) != 1 {
		t.Fatalf("%d jobs, %d recent", len(st.Jobs), len(st.RecentJobs))
	}
	rj := st.RecentJobs[0]
	if rj.ID != id || rj.State != engine.StateCompleted || rj.Kind != "test" || rj.Circuit != "test-k10" || rj.Partitions != 2 ||
		rj.Batch != res.Batch || rj.Batch == 0 || rj.Finished.Before(rj.Submitted) || !reflect.DeepEqual(rj.Timings, res.Timings) || rj.Error != "" {
		t.Fatalf("%+v", rj)
	}
	seen := map[string]int{}
	worker := map[string]string{"prove": "prover", "finish": "finisher", "self_check": "verifier"}
	synthWorker := regexp.MustCompile(`^synthesis [0-9]+$`)
	var prev time.Time
	for _, s := range rj.Stages {
		okWorker := worker[s.Stage] == s.Worker || ((s.Stage == "srs_load" || s.Stage == "synthesis") && synthWorker.MatchString(s.Worker))
		if s.Job != id || s.Start.Before(before.Add(-time.Second)) || s.Duration < 0 || s.Start.Before(prev) || !okWorker {
			t.Fatalf("bad record %+v", s)
		}
		prev = s.Start
		if s.Stage == "self_check" {
			if s.Partition != -1 || s.Batch != 0 || s.Circuit != "" {
				t.Fatalf("bad record %+v", s)
			}
		} else if s.Circuit != "test-k10" || s.Batch != rj.Batch || s.Partition < 0 || s.Partition > 1 {
			t.Fatalf("bad record %+v", s)
		}
		if s.Stage == "synthesis" && s.Duration < 150*time.Millisecond {
			t.Fatalf("synthesis of %v with a 150 ms delay", s.Duration)
		}
		seen[s.Stage]++
	}
	for stage, n := range map[string]int{"synthesis": 2, "prove": 2, "finish": 2, "self_check": 1} {
		if seen[stage] != n {
			t.Errorf("%d %s records, want %d (%v)", seen[stage], stage, n, seen)
		}
	}
	// Partition 0 loads the parameters; partition 1 waits for that load
	// (a record) unless its item starts only after the load has ended.
	if n := seen["srs_load"]; n < 1 || n > 2 {
		t.Errorf("%d srs_load records, want 1 or 2 (%v)", n, seen)
	}
	obs.mu.Lock()
	if len(obs.recs) != len(rj.Stages) {
		t.Errorf("observer saw %d records, status has %d", len(obs.recs), len(rj.Stages))
	}
	obs.mu.Unlock()
}

// newObservedEngine is an engine with the test kind and obs.
func newObservedEngine(t *testing.T, obs engine.Observer) *engine.Engine {
	t.Helper()
	return testkit.NewEngine(t, testkit.EngineOptions{Config: engine.Config{SynthesisWorkers: 1}, Locator: testkind.Locator(paramDir),
		Budget: 1 << 30, Observer: obs}).Engine
}

// A failed job is listed with its error; with LogTiming the stage lines
// are still logged for people.
func TestRecentFailedJob(t *testing.T) {
	r := newRig(t, engine.Config{LogTiming: true}, 0, 0)
	res, err := r.eng.Prove(context.Background(), testReq("bad", 10, testkind.Options{CorruptInputs: true}))
	if err != nil || res.State != engine.StateFailed {
		t.Fatal(err, res.State)
	}
	rs := r.eng.Status().RecentJobs
	if len(rs) != 1 || rs[0].State != engine.StateFailed || !strings.Contains(rs[0].Error, "self-check") || len(rs[0].Stages) < 4 {
		t.Fatalf("%+v", rs)
	}
	if !regexp.MustCompile(`msg=timing job=bad partition=0 stage=synthesis worker="synthesis [0-9]+"`).MatchString(r.logs.String()) {
		t.Errorf("no timing line in the log:\n%s", r.logs.String())
	}
}

// TestProveSteps: the prover's steps of every partition travel with the
// job: each prove record lists Start's steps and each finish record
// Finish's, within the stage's own time, and the job's Timings sum them
// over its partitions, in the order they ran, within Prove.
func TestProveSteps(t *testing.T) {
	e := newObservedEngine(t, &stageObserver{})
	res := mustAwait(t, e, mustSubmit(t, e, testReq("steps", 10, testkind.Options{Partitions: 2})).JobID)
	if res.State != engine.StateCompleted {
		t.Fatal(res.State, res.Err)
	}
	start := []string{"msm l", "msm a", "msm b_g1", "msm b_g2", "h", "msm h"}
	var names []string
	var sum time.Duration
	for _, s := range res.Timings.ProveSteps {
		names = append(names, s.Step)
		if s.Max <= 0 || s.Sum < s.Max || s.Sum > 2*s.Max {
			t.Errorf("step %+v: not the sum of two partitions' times", s)
		}
		sum += s.Sum
	}
	if want := append(slices.Clone(start), "assemble"); !slices.Equal(names, want) {
		t.Fatalf("steps %q, want %q", names, want)
	}
	if sum > res.Timings.Prove {
		t.Errorf("steps add up to %v, more than the prove time %v", sum, res.Timings.Prove)
	}
	rj := e.Status().RecentJobs[0]
	seen := 0
	for _, r := range rj.Stages {
		var got []string
		var in time.Duration
		for _, s := range r.Steps {
			got, in = append(got, s.Step), in+s.Wall
		}
		switch r.Stage {
		case "prove":
			if !slices.Equal(got, start) {
				t.Errorf("partition %d prove steps %q, want %q", r.Partition, got, start)
			}
		case "finish":
			if !slices.Equal(got, []string{"assemble"}) {
				t.Errorf("partition %d finish steps %q", r.Partition, got)
			}
		default:
			if len(got) != 0 {
				t.Errorf("%s record with steps %q", r.Stage, got)
			}
			continue
		}
		seen++
		if in > r.Duration {
			t.Errorf("partition %d %s: steps of %v in %v", r.Partition, r.Stage, in, r.Duration)
		}
	}
	if seen != 4 {
		t.Errorf("%d prove and finish records, want 4", seen)
	}
}
