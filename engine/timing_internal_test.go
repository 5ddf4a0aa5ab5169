package engine

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/cuzk-dev/cuzk/groth16"
)

// The memory bounds documented beside MaxRecentJobs assume this size.
func TestStageRecordSize(t *testing.T) {
	if n := unsafe.Sizeof(StageRecord{}); n != 136 {
		t.Fatalf("StageRecord is %d bytes; update the bounds' comment", n)
	}
}

func rec(job string, part int, stage string, start time.Time) StageRecord {
	return StageRecord{Job: job, Partition: part, Stage: stage, Start: start, Duration: time.Millisecond, Worker: stageWorker(stage)}
}

// The stage log keeps live jobs' records, moves them to the recent ring
// when the job ends, bounds the ring, each job's records and the live
// entries, and files late records by time.
func TestStageLog(t *testing.T) {
	var l stageLog
	t0 := time.Now()
	l.record(rec("a", 0, "synthesis", t0), 10)
	l.record(rec("a", 0, "prove", t0.Add(time.Millisecond)), 10)
	live, recent := l.snapshot(func(string) bool { return true })
	if len(live["a"]) != 2 || len(recent) != 0 {
		t.Fatalf("%v %v", live, recent)
	}
	l.end(&RecentJob{ID: "a", State: StateCancelled, Finished: t0.Add(5 * time.Millisecond)})
	// A stage that was running when the job ended is filed with it.
	l.record(rec("a", 1, "synthesis", t0.Add(2*time.Millisecond)), 10)
	// The same id after the end is a new job (a retried request id).
	l.record(rec("a", 0, "synthesis", t0.Add(10*time.Millisecond)), 10)
	live, recent = l.snapshot(func(string) bool { return true })
	if len(recent) != 1 || len(recent[0].Stages) != 3 || len(live["a"]) != 1 || !live["a"][0].Start.Equal(t0.Add(10*time.Millisecond)) {
		t.Fatalf("live %v recent %+v", live, recent)
	}
	// Snapshots are copies.
	recent[0].Stages[0].Stage = "changed"
	if _, r2 := l.snapshot(func(string) bool { return true }); r2[0].Stages[0].Stage != "synthesis" {
		t.Fatal("snapshot shares records")
	}
	// Entries of jobs that are not running any more are dropped.
	if live, _ = l.snapshot(func(string) bool { return false }); len(live) != 0 || len(l.live) != 0 {
		t.Fatalf("%v", l.live)
	}

	// The ring keeps the last MaxRecentJobs jobs.
	for i := range MaxRecentJobs + 3 {
		id := fmt.Sprintf("j%d", i)
		l.record(rec(id, 0, "synthesis", t0), 10)
		l.end(&RecentJob{ID: id, Finished: t0.Add(time.Second)})
	}
	if _, recent = l.snapshot(func(string) bool { return true }); len(recent) != MaxRecentJobs || recent[0].ID != "j3" ||
		recent[MaxRecentJobs-1].ID != fmt.Sprintf("j%d", MaxRecentJobs+2) || len(recent[0].Stages) != 1 {
		t.Fatalf("%d recent, first %s", len(recent), recent[0].ID)
	}

	// One job keeps at most MaxJobStages records and counts the rest.
	for i := range MaxJobStages + 5 {
		l.record(rec("big", i, "synthesis", t0), 10)
	}
	l.end(&RecentJob{ID: "big", Finished: t0.Add(time.Second)})
	l.record(rec("big", 0, "finish", t0), 10) // late, past the bound too
	if _, recent = l.snapshot(func(string) bool { return true }); len(recent[len(recent)-1].Stages) != MaxJobStages || recent[len(recent)-1].StagesDropped != 6 {
		t.Fatalf("%d records, %d dropped", len(recent[len(recent)-1].Stages), recent[len(recent)-1].StagesDropped)
	}

	// Past maxLive live entries the one idle longest goes.
	var l2 stageLog
	for i := range 4 {
		l2.record(rec(fmt.Sprintf("x%d", i), 0, "synthesis", t0), 3)
		time.Sleep(time.Millisecond)
	}
	if live, _ = l2.snapshot(func(string) bool { return true }); len(live) != 3 || live["x0"] != nil {
		t.Fatalf("%v", live)
	}
}

// A job's step totals: sums over its partitions, the longest partition's
// time (a step a partition ran twice counts once with both times), in the
// order the steps first ran; Start's steps are not repeated in Finish's.
func TestStepTotals(t *testing.T) {
	ms := time.Millisecond
	all := [][]groth16.Step{{{Name: "msm l", Wall: ms}, {Name: "h", Wall: 2 * ms}}, {{Name: "msm l", Wall: 3 * ms}}}
	start := proveSteps(all, 2, nil)
	if fmt.Sprint(start) != "[[{msm l 1ms} {h 2ms}] [{msm l 3ms}]]" {
		t.Fatalf("start steps %v", start)
	}
	all[0] = append(all[0], groth16.Step{Name: "assemble", Wall: ms})
	all[1] = append(all[1], groth16.Step{Name: "assemble", Wall: ms}, groth16.Step{Name: "fallback msm l", Wall: ms})
	finish := proveSteps(all, 2, start)
	if fmt.Sprint(finish) != "[[{assemble 1ms}] [{assemble 1ms} {fallback msm l 1ms}]]" {
		t.Fatalf("finish steps %v", finish)
	}
	if proveSteps(all, 3, nil) != nil || proveSteps(nil, 2, nil) != nil {
		t.Fatal("steps of another number of circuits kept")
	}
	var tot []StepTotal
	tot = addSteps(tot, start[0], finish[0])
	tot = addSteps(tot, start[1], finish[1], []StepTime{{Step: "h", Wall: ms}, {Step: "h", Wall: 4 * ms}})
	want := "[{msm l 4ms 3ms} {h 7ms 5ms} {assemble 2ms 1ms} {fallback msm l 1ms 1ms}]"
	if fmt.Sprint(tot) != want {
		t.Fatalf("totals %v, want %s", tot, want)
	}
}
