package engine_test

import (
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// TestStatusLiveStageTimes: a partition still in synthesis or in Start
// reports its time so far in the stage (not 0 until it ends), and a job
// admitted in a batch reports the batch's size, while it runs and among
// the recent jobs.
func TestStatusLiveStageTimes(t *testing.T) {
	be := newLaneBackend("live")
	r := newRigWith(t, engine.Config{SynthesisWorkers: 1, MaxBatchSize: 2, MaxBatchWait: time.Minute}, rigOptions{backend: be})
	release := be.hold(10)
	defer release()
	mustSubmit(t, r.eng, testReq("x", 10, testkind.Options{SynthesisDelayMS: 300}))
	mustSubmit(t, r.eng, testReq("y", 10, testkind.Options{SynthesisDelayMS: 300}))
	part := func(id string) (engine.JobStatus, engine.PartitionStatus) {
		j, ok := jobStatus(r.eng, id)
		if !ok || len(j.Partitions) != 1 {
			return j, engine.PartitionStatus{}
		}
		return j, j.Partitions[0]
	}

	waitFor(t, "x synthesizing for 100 ms", 20*time.Second, func() bool {
		_, p := part("x")
		return p.State == "synthesizing" && p.InState >= 100*time.Millisecond
	})
	j, p := part("x")
	if p.Synthesis != 0 || p.Proving != 0 || p.InState > j.Age {
		t.Errorf("in synthesis: %+v (job age %v)", p, j.Age)
	}
	for _, id := range []string{"x", "y"} {
		if j, _ := part(id); j.BatchSize != 2 || j.Batch == 0 {
			t.Errorf("job %s: batch %d of size %d, want size 2", id, j.Batch, j.BatchSize)
		}
	}

	awaitStart(t, be, 10)
	waitFor(t, "x proving for 100 ms", 20*time.Second, func() bool {
		_, p := part("x")
		return p.State == "proving" && p.Proving >= 100*time.Millisecond
	})
	if _, p := part("x"); p.Synthesis < 300*time.Millisecond || p.Prove != 0 || p.InState <= 0 || p.InState > p.Proving {
		t.Errorf("in Start: %+v", p)
	}
	release()
	for _, id := range []string{"x", "y"} {
		if res := mustAwait(t, r.eng, id); res.State != engine.StateCompleted {
			t.Fatalf("%s: %v %v", id, res.State, res.Err)
		}
	}
	n := 0
	for _, rj := range r.eng.Status().RecentJobs {
		if rj.ID == "x" || rj.ID == "y" {
			n++
			if rj.BatchSize != 2 {
				t.Errorf("recent job %s: batch size %d, want 2", rj.ID, rj.BatchSize)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d of x and y among the recent jobs", n)
	}
}
