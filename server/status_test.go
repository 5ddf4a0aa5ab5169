package server

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/srs"
)

// keyPaths lists the object keys of a JSON value as dotted paths (array
// elements as []).
func keyPaths(prefix string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(p, x, out)
		}
	case []any:
		for _, x := range v {
			keyPaths(prefix+"[]", x, out)
		}
	}
}

// The /status document keeps every field name it had when it was the
// engine's Status (cuzk bench and operators' scripts read them) and adds
// jobs[].stages and recent_jobs.
func TestStatusDocumentFieldNames(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	stage := engine.StageRecord{Job: "j", Partition: 0, Stage: "synthesis", Start: t0, Duration: time.Second, Batch: 3, Circuit: "test-k10", Worker: "synthesis"}
	st := engine.Status{
		Uptime: time.Minute,
		Memory: engine.MemoryStatus{TotalBytes: 1},
		Queues: []engine.QueueStatus{{Kind: "test", Pending: 1}},
		Jobs: []engine.JobStatus{{ID: "j", Kind: "test", Circuit: "test-k10", Priority: "normal", State: engine.StateRunning, Batch: 3,
			Waiters: 1, OrphanedFor: time.Second, Partitions: []engine.PartitionStatus{{Index: 0, State: "synthesizing"}}, Stages: []engine.StageRecord{stage}}},
		Params:   []srs.EntryStatus{{CircuitID: "test-k10", Tier: srs.TierHot, Bytes: 5, Mapped: true, MappedBytes: 60780374232}},
		Kinds:    []string{"test"},
		ByKind:   map[string]engine.KindDone{"test": {Completed: 1}},
		Counters: engine.CounterStatus{Completed: 1},
		RecentJobs: []engine.RecentJob{{ID: "r", Kind: "test", Circuit: "test-k10", Priority: "low", State: engine.StateFailed, Batch: 2,
			Partitions: 1, Submitted: t0, Finished: t0.Add(time.Second), Error: errors.New("boom").Error(), StagesDropped: 1,
			Timings: engine.Timings{ProveSteps: []engine.StepTotal{{Step: "msm h", Sum: 2 * time.Second, Max: time.Second}}},
			Stages: []engine.StageRecord{stage, {Job: "r", Partition: -1, Stage: "self_check", Start: t0, Worker: "verifier"},
				{Job: "r", Partition: 0, Stage: "prove", Start: t0, Worker: "prover", Steps: []engine.StepTime{{Step: "h", Wall: time.Second}}}}}},
		Lanes:   []engine.LaneStatus{{Name: "gpu0", Backend: "cuda+checked", Job: "j", DeviceMemory: 80 << 30}, {Name: "reserved", Backend: "cuda+checked", Reserved: true, Abandoned: true}},
		Urgent:  engine.UrgentStatus{Enabled: true, MaxDomain: 1 << 20, ReservedBytes: 1 << 30, Pauses: 3, PausedTime: time.Second},
		Devices: []engine.DeviceStatus{{Ordinal: 0, Name: "NVIDIA H200", TotalBytes: 140 << 30, FreeBytes: 100 << 30, Lane: "gpu0", Job: "j", Kind: "test"}},
	}
	raw, err := json.Marshal(statusDocument(st))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	keyPaths("", v, got)
	want := []string{
		"uptime_ns",
		"memory", "memory.total_bytes", "memory.used_bytes", "memory.peak_bytes", "memory.params_bytes", "memory.waiting",
		"pipeline", "pipeline.synthesis_workers", "pipeline.synthesis_concurrency", "pipeline.lookahead", "pipeline.enabled",
		"pipeline.synthesis_queued", "pipeline.synthesizing", "pipeline.ready", "pipeline.proving", "pipeline.finishing",
		"queues", "queues[].proof_kind", "queues[].pending", "queues[].in_progress",
		"jobs", "jobs[].job_id", "jobs[].proof_kind", "jobs[].circuit_id", "jobs[].priority", "jobs[].state", "jobs[].batch",
		"jobs[].age_ns", "jobs[].waiters", "jobs[].partitions", "jobs[].partitions[].index", "jobs[].partitions[].state",
		"jobs[].partitions[].synthesis_ns", "jobs[].partitions[].prove_ns",
		"params", "params[].circuit_id", "params[].tier", "params[].bytes", "params[].ref_count", "params[].idle_ns",
		"params[].official_name", "params[].insecure_test_params", "params[].loads", "params[].last_load_ns", "params[].params_file",
		"params[].mapped", "params[].mapped_bytes",
		"counters", "counters.completed", "counters.failed", "counters.cancelled", "counters.attached_duplicates", "counters.retained_results",
		"kinds",
		"batching", "batching.max_batch_size", "batching.max_batch_wait_ns", "batching.collecting_jobs",
		"limits", "limits.max_pending", "limits.pending", "limits.max_concurrent_plans", "limits.planning", "limits.intake_bytes", "limits.max_intake_bytes",
		"by_kind", "by_kind.test", "by_kind.test.completed", "by_kind.test.failed", "by_kind.test.cancelled",
		// New: stage records.
		"jobs[].stages",
		"recent_jobs", "recent_jobs[].job_id", "recent_jobs[].proof_kind", "recent_jobs[].circuit_id", "recent_jobs[].priority",
		"recent_jobs[].state", "recent_jobs[].batch", "recent_jobs[].partitions", "recent_jobs[].submitted", "recent_jobs[].finished",
		"recent_jobs[].timings", "recent_jobs[].error", "recent_jobs[].stages", "recent_jobs[].stages_dropped",
		// New: lanes, the reserved lane, GPUs, reserved and device memory.
		"memory.reserved_bytes", "memory.device_bytes",
		// Mapped parameters and the process's own resident memory.
		"memory.mapped_params_bytes", "memory.process_anon_bytes", "memory.process_file_bytes",
		"lanes", "lanes[].name", "lanes[].backend", "lanes[].reserved", "lanes[].job_id", "lanes[].finishing", "lanes[].proved",
		"lanes[].device_memory_bytes",
		"urgent", "urgent.enabled", "urgent.max_constraints", "urgent.reserved_bytes", "urgent.active", "urgent.paused",
		"urgent.pauses", "urgent.paused_ns",
		"gpus", "gpus[].ordinal", "gpus[].name", "gpus[].vram_total_bytes", "gpus[].vram_free_bytes", "gpus[].job_id",
		// New: the CPU arithmetic (reason and check_failed only when set).
		"cpu_arithmetic", "cpu_arithmetic.kind",
		// New: orphaned jobs (orphan_grace) and the memory of retained results.
		"jobs[].orphaned_ns", "counters.orphaned", "lanes[].abandoned", "counters.reclaimed", "counters.retained_bytes",
		// New: the daemon is shutting down.
		"draining",
		// New: the prover's steps (issue 30).
		"recent_jobs[].timings.prove_steps", "recent_jobs[].timings.prove_steps[].step", "recent_jobs[].timings.prove_steps[].sum_ns",
		"recent_jobs[].timings.prove_steps[].max_ns",
		"recent_jobs[].stages[].steps", "recent_jobs[].stages[].steps[].step", "recent_jobs[].stages[].steps[].wall_ns",
	}
	delete(got, "cpu_arithmetic.reason")
	delete(got, "cpu_arithmetic.check_failed")
	for _, timing := range []string{"queue_wait_ns", "srs_load_ns", "synthesis_ns", "prove_ns", "total_ns"} {
		want = append(want, "recent_jobs[].timings."+timing)
	}
	for _, prefix := range []string{"jobs[].stages[].", "recent_jobs[].stages[]."} {
		for _, k := range []string{"partition", "stage", "start", "duration_ns", "batch", "circuit", "worker"} {
			want = append(want, prefix+k)
		}
	}
	var missing, extra []string
	for _, k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
		delete(got, k)
	}
	for k := range got {
		extra = append(extra, k)
	}
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("missing %v, not in the list %v", missing, extra)
	}
	for _, s := range []string{`"state":"running"`, `"state":"failed"`, `"tier":"hot"`, `"start":"2026-01-02T03:04:05.000000006Z"`, `"duration_ns":1000000000`, `"mapped":true,"mapped_bytes":60780374232`} {
		if !strings.Contains(string(raw), s) {
			t.Errorf("document lacks %s: %s", s, raw)
		}
	}
	// Empty lists are [], not null.
	raw, _ = json.Marshal(statusDocument(engine.Status{}))
	for _, k := range []string{"queues", "jobs", "params", "kinds", "recent_jobs", "lanes", "gpus"} {
		if !strings.Contains(string(raw), `"`+k+`":[]`) {
			t.Errorf("%s not [] in %s", k, raw)
		}
	}
}
