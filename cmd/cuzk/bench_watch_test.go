package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// TestJobState: each state of a job, as /status gives it, in words with
// the partitions at work and the time in their stage.
func TestJobState(t *testing.T) {
	parts := func(states ...string) []statusdoc.Partition {
		var ps []statusdoc.Partition
		for i, s := range states {
			ps = append(ps, statusdoc.Partition{Index: i, State: s, InState: time.Duration(i+1) * 1500 * time.Millisecond})
		}
		return ps
	}
	for _, tc := range []struct {
		job           statusdoc.Job
		state, detail string
	}{
		{statusdoc.Job{State: "planning"}, "planning (reading the request)", ""},
		{statusdoc.Job{State: "queued", Partitions: parts("queued", "queued")}, "queued", ""},
		{statusdoc.Job{State: "running", Partitions: parts("synthesizing", "queued")}, "running", ": partition 1 of 2 synthesis 1.5s; 0 of 2 done"},
		{statusdoc.Job{State: "running", Partitions: parts("done", "proving", "synthesizing")}, "running",
			": partition 2 of 3 proving 3s, partition 3 of 3 synthesis 4.5s; 1 of 3 done"},
		{statusdoc.Job{State: "running", Partitions: parts("finishing")}, "running", ": partition 1 of 1 proving (finish) 1.5s; 0 of 1 done"},
		{statusdoc.Job{State: "running", Partitions: parts("done", "synthesized")}, "running", ": partition 2 of 2 synthesized, waiting for the prover; 1 of 2 done"},
		{statusdoc.Job{State: "running", Partitions: parts("done", "queued")}, "running", ": 1 of 2 partitions done, the next waiting for synthesis"},
		{statusdoc.Job{State: "running", Partitions: parts("done", "done")}, "self-check (verifying the proof)", ""},
	} {
		state, detail := jobState(&tc.job)
		if state != tc.state || detail != tc.detail {
			t.Errorf("%s %v: %q %q, want %q %q", tc.job.State, tc.job.Partitions, state, detail, tc.state, tc.detail)
		}
	}
	st := &statusdoc.Status{Jobs: []statusdoc.Job{
		{State: "queued"}, {State: "queued"},
		{State: "running", Partitions: parts("proving", "synthesizing")},
		{State: "running", Partitions: parts("done")},
	}}
	if got, want := jobCounts(st), "2 queued, 1 running (partitions: 1 synthesis, 1 proving), 1 self-check"; got != want {
		t.Errorf("jobCounts = %q, want %q", got, want)
	}
	if got := jobCounts(&statusdoc.Status{}); got != "no jobs" {
		t.Errorf("jobCounts of none = %q", got)
	}
}

// progressLineRE is one progress line of bench single: the elapsed time,
// then the job's state and the time in it.
var progressLineRE = regexp.MustCompile(`(?m)^\[\s*\d+\.\ds\] job (queued|planning \(reading the request\)|running|self-check \(verifying the proof\)) \((\d+(\.\d+)?(ms|s)|0s)\)(: .*)?$`)

// TestBenchSingleProgress: while it waits, bench single says at least
// every --progress where its job stands (from /status with --status-addr:
// the partition at work and its stage; from GetStatus's queue without);
// --quiet says nothing.
func TestBenchSingleProgress(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	// Two partitions, each 3 s in synthesis: a job of several seconds.
	opts := `{"partitions":2,"synthesis_delay_ms":3000}`
	code, out, stderr := d.bench(t, "single", "-t", "test", "--test-options", opts, "--status-addr", d.statusAddr, "--progress", "500ms")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	t.Logf("stderr:\n%s", stderr)
	lines := progressLineRE.FindAllString(stderr, -1)
	if len(lines) < 3 {
		t.Fatalf("%d progress lines in a job of 3 s or more at --progress 500ms:\n%s", len(lines), stderr)
	}
	if !regexp.MustCompile(`job running \([\d.]+m?s\): partition [12] of 2 synthesis [\d.]+m?s(, partition [12] of 2 [a-z (),]+ [\d.]+m?s)?; [01] of 2 done`).MatchString(stderr) {
		t.Errorf("no line shows a partition in synthesis:\n%s", stderr)
	}

	code, out, stderr = d.bench(t, "single", "-t", "test", "--test-options", `{"synthesis_delay_ms":1500}`, "--progress", "500ms")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "(--status-addr: partitions and stages)") ||
		!regexp.MustCompile(`\] (queued|running) \([\d.]+m?s\) \(--status-addr`).MatchString(stderr) {
		t.Errorf("without --status-addr, no line from GetStatus's queue:\n%s", stderr)
	}

	code, out, stderr = d.bench(t, "single", "-t", "test", "--test-options", `{"synthesis_delay_ms":1500}`, "--status-addr", d.statusAddr, "--progress", "500ms", "--quiet")
	if code != exitOK || strings.Contains(stderr, "] job ") || !strings.Contains(out, "status:          COMPLETED") {
		t.Errorf("--quiet: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestBenchBatchStressProgress: batch names each of its jobs in flight
// with its state; stress counts the daemon's jobs by state.
func TestBenchBatchStressProgress(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	opts := `{"synthesis_delay_ms":2000}`
	code, out, stderr := d.bench(t, "batch", "-t", "test", "--test-options", opts, "-n", "2", "-j", "2", "--status-addr", d.statusAddr, "--progress", "500ms")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	t.Logf("batch stderr:\n%s", stderr)
	if !regexp.MustCompile(`(?m)^\[\s*[\d.]+s\] \[-+\] 0/2 proofs; #[01] (queued|running) \([\d.]+m?s\)(: [^;]*; \d of 1 done)?(; #[01] |$)`).MatchString(stderr) {
		t.Errorf("batch progress lacks its jobs' states:\n%s", stderr)
	}
	code, out, stderr = d.bench(t, "stress", "--mix", "test=2/s", "--arrivals", "fixed", "--duration", "2s", "--test-options", opts,
		"--status-addr", d.statusAddr, "--progress", "500ms")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !regexp.MustCompile(`; daemon jobs: (no jobs|\d+ (planning|queued|running|self-check))`).MatchString(stderr) || !strings.Contains(stderr, " running (partitions: ") {
		t.Errorf("stress progress lacks the daemon's jobs by state:\n%s", stderr)
	}
}
