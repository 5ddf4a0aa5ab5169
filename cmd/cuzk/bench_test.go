package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/server/statusdoc/timeline"
)

// benchDaemon is a daemon run in-process through the command table, on
// unix sockets, logging at debug level into logs (for failures).
type benchDaemon struct {
	addr, statusAddr string
	params           string
	logs             *testkit.SyncBuffer
	stop             func() // stops the daemon (as SIGTERM does) and waits for it
}

// startBenchDaemon starts `cuzk daemon` with test circuits on params (a
// directory with test-k10 parameters unless given) and stops it when the
// test ends.
func startBenchDaemon(t *testing.T, params, memBudget string, extra ...string) *benchDaemon {
	t.Helper()
	if params == "" {
		params = t.TempDir()
		if err := testkind.WriteParams(params, 10); err != nil {
			t.Fatal(err)
		}
	}
	// Socket paths must stay short (108 bytes), so not under t.TempDir().
	sockDir, err := os.MkdirTemp("", "cuzkb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	d := &benchDaemon{
		addr:       "unix://" + filepath.Join(sockDir, "cuzk.sock"),
		statusAddr: "unix://" + filepath.Join(sockDir, "status.sock"),
		params:     params,
		logs:       &testkit.SyncBuffer{},
	}
	cfg := fmt.Sprintf(`
[daemon]
listen = %q
status_listen = %q

[srs]
param_cache = %q

[memory]
total_budget = %q

[synthesis]
threads = 2

[engine]
completed_job_ttl = "10m"
`, d.addr, d.statusAddr, params, memBudget)
	cfgPath := filepath.Join(t.TempDir(), "cuzk.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	exited := make(chan struct{})
	go func() {
		done <- run(ctx, append([]string{"daemon", "--config", cfgPath, "--enable-test-circuits", "--log-level", "debug"}, extra...), io.Discard, d.logs)
		close(exited)
	}()
	d.stop = func() {
		cancel()
		<-exited
	}
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("daemon exit code %d", code)
			}
		case <-time.After(time.Minute):
			t.Error("daemon did not stop")
		}
	})
	c, err := client.Dial(d.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitServing(t, c, exited)
	return d
}

// bench runs `cuzk bench <args>` against the daemon.
func (d *benchDaemon) bench(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	all := append([]string{"bench"}, args[0], "--addr", d.addr)
	return runCmd(t, append(all, args[1:]...)...)
}

// msOf parses seconds printed with millisecond precision.
func msOf(t *testing.T, s string) time.Duration {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return time.Duration(math.Round(f*1000)) * time.Millisecond
}

func TestBenchSingle(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	code, out, stderr := d.bench(t, "single", "-t", "test", "--partitions", "2", "--verify", "--params", d.params)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, re := range []string{
		`(?m)^status:\s+COMPLETED$`, `(?m)^job_id:\s+bench-single-[0-9a-f]{8}$`,
		`(?m)^queue_wait_ms:\s+\d+$`, `(?m)^srs_load_ms:\s+[1-9]\d*$`, `(?m)^synthesis_ms:\s+[1-9]\d*$`,
		`(?m)^prove_ms:\s+[1-9]\d* \(the prover stage, CPU or GPU; gpu_compute_ms on the wire\)$`, `(?m)^total_ms:\s+[1-9]\d*$`, `(?m)^wall:\s+\d+\.\d{3} s`,
		`(?m)^proof:\s+384 bytes \(2 partition proof\(s\)\): [0-9a-f]{256}\.\.\.$`,
		`(?m)^verify:\s+valid \(groth16 verify .*cuzk-test-mixed-k10\.vk`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}

	code, out, _ = d.bench(t, "single", "-t", "test", "--verify", "--params", d.params, "--json", "--request-id", "single-json")
	var rep singleReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	r := rep.Result
	if r.Status != "COMPLETED" || r.JobID != "single-json" || r.ProofBytes != 192 || len(rep.Proof) != 384 || r.Total <= 0 || r.Wall+time.Millisecond < r.Total ||
		r.SRSLoad != 0 || rep.Verify == nil || !rep.Verify.Valid || rep.Spec.Circuit != "test-k10" {
		t.Fatalf("%+v %+v", r, rep.Verify)
	}

	// A proof the daemon's self-check rejects comes back FAILED: exit 1.
	code, out, _ = d.bench(t, "single", "-t", "test", "--test-options", `{"corrupt_inputs":true}`)
	if code != exitInvalid || !regexp.MustCompile(`(?m)^status:\s+FAILED$`).MatchString(out) || !strings.Contains(out, "error:") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// Missing parameters fail the job, as any parameter-file problem does.
	code, out, _ = d.bench(t, "single", "-t", "wpost") // the daemon has no wpost-2k parameters
	if code != exitInvalid || !regexp.MustCompile(`(?m)^status:\s+FAILED$`).MatchString(out) || !strings.Contains(out, "parameter file not found") {
		t.Fatalf("wpost without parameters: exit %d:\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"single", "-t", "stark"},
		{"single", "-t", "test", "--log-rows", "2"},            // outside the test kind's sizes
		{"single", "-t", "test", "--verify", "--params", "/x"}, // no key
		{"single", "-t", "porep", "--c1", "/nonexistent/c1.json"},
		{"single", "-t", "test", "--priority", "urgent"},
	} {
		if code, _, stderr := d.bench(t, bad...); code != exitError || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// TestBenchSingleProveSteps: a 2-partition proof's prover steps (the H
// transforms and each MSM) reach `bench single --json` through AwaitProof,
// and GET /status lists the same totals for the job and each partition's
// steps in its prove and finish stages; the steps are non-negative and
// add up to at most the prove time, and the summary prints them.
func TestBenchSingleProveSteps(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	code, out, stderr := d.bench(t, "single", "-t", "test", "--partitions", "2", "--json", "--request-id", "steps")
	var rep singleReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s\n%s", code, err, out, stderr)
	}
	r := rep.Result
	want := []string{"msm l", "msm a", "msm b_g1", "msm b_g2", "h", "msm h", "assemble"}
	var names []string
	var sum time.Duration
	for _, s := range r.ProveSteps {
		names = append(names, s.Step)
		if s.Sum < 0 || s.Max < 0 || s.Max > s.Sum {
			t.Errorf("step %+v", s)
		}
		sum += s.Sum
	}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("bench single --json: prove steps %q, want %q\n%s", names, want, out)
	}
	// The wire's prove time is whole milliseconds, rounded up.
	if sum > r.Prove+time.Millisecond {
		t.Errorf("steps add up to %v, prove took %v", sum, r.Prove)
	}
	if !strings.Contains(out, `"prove_steps": [`) || !strings.Contains(out, `"step": "msm h"`) {
		t.Errorf("JSON names:\n%s", out)
	}

	sc, err := bench.NewStatusClient(d.statusAddr)
	if err != nil {
		t.Fatal(err)
	}
	st, raw, err := sc.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var job *statusdoc.RecentJob
	for i := range st.RecentJobs {
		if st.RecentJobs[i].ID == "steps" {
			job = &st.RecentJobs[i]
		}
	}
	if job == nil {
		t.Fatalf("no recent job steps in /status:\n%s", raw)
	}
	if fmt.Sprint(job.Timings.ProveSteps) != fmt.Sprint(r.ProveSteps) {
		t.Errorf("/status prove steps %+v, AwaitProof's %+v", job.Timings.ProveSteps, r.ProveSteps)
	}
	var statusSum time.Duration
	for _, s := range job.Timings.ProveSteps {
		statusSum += s.Sum
	}
	if statusSum > job.Timings.Prove {
		t.Errorf("/status: steps add up to %v, prove_ns is %v", statusSum, job.Timings.Prove)
	}
	perPartition := map[string]int{}
	for _, s := range job.Stages {
		var in time.Duration
		for _, x := range s.Steps {
			if x.Wall < 0 {
				t.Errorf("partition %d %s: step %+v", s.Partition, s.Stage, x)
			}
			in += x.Wall
			perPartition[x.Step]++
		}
		if in > s.Duration {
			t.Errorf("partition %d %s: steps of %v in %v", s.Partition, s.Stage, in, s.Duration)
		}
	}
	for _, name := range want {
		if perPartition[name] != 2 {
			t.Errorf("/status stages: step %q in %d partitions, want 2 (%v)", name, perPartition[name], perPartition)
		}
	}
	for _, key := range []string{`"prove_steps":\s*\[\s*\{\s*"step":\s*"msm l",\s*"sum_ns":\s*\d+,\s*"max_ns":\s*\d+`,
		`"steps":\s*\[\s*\{\s*"step":\s*"msm l",\s*"wall_ns":\s*\d+`} {
		if !regexp.MustCompile(key).Match(raw) {
			t.Errorf("/status lacks %s", key)
		}
	}

	var summary bytes.Buffer
	printSingle(&summary, &rep)
	if !regexp.MustCompile(`(?m)^prove_steps_ms:  msm l \d+\.\d{3} \(max \d+\.\d{3}\), msm a .*, h .*, msm h .*, assemble \d+\.\d{3} \(max \d+\.\d{3}\) \(each summed over the partitions\)$`).MatchString(summary.String()) {
		t.Errorf("summary:\n%s", summary.String())
	}
	t.Logf("bench single --json, result.prove_steps: %s", mustJSON(t, r.ProveSteps))
	t.Logf("/status recent_jobs[].timings: %s", mustJSON(t, job.Timings))
	for _, s := range job.Stages {
		if s.Stage == "prove" || s.Stage == "finish" {
			t.Logf("/status recent_jobs[].stages[] (partition %d %s): %s", s.Partition, s.Stage, mustJSON(t, s))
		}
	}
	t.Logf("summary:\n%s", summary.String())
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	proofLineRE = regexp.MustCompile(`(?m)^\s+\[\s*(\d+)/(\d+)\] #(\d+)\s+COMPLETED wall=([\d.]+)s queue=([\d.]+)s srs_load=([\d.]+)s synthesis=([\d.]+)s prove=([\d.]+)s total=([\d.]+)s proof=(\d+)B job=(\S+)$`)
	summaryRE   = regexp.MustCompile(`(?m)^(wall \(client\)|queue_wait|srs_load|synthesis|prove|total \(daemon\))\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$`)
	throughRE   = regexp.MustCompile(`(?m)^throughput \((client|daemon)\): ([\d.]+) proofs/min, ([\d.]+) s/proof \((\d+) proofs over ([\d.]+) s`)
)

func TestBenchBatch(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	const n = 6
	// -c, the Rust cuzk-bench's --count, still counts, with a note: -c is
	// --config elsewhere in cuzk.
	code, out, stderr := d.bench(t, "batch", "-t", "test", "--partitions", "2", "-c", strconv.Itoa(n), "-j", "3")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "cuzk bench batch: -c is deprecated; use --count") {
		t.Errorf("no deprecation note for -c:\n%s", stderr)
	}
	// Every proof has its line, and the summary is what those lines give.
	lines := proofLineRE.FindAllStringSubmatch(out, -1)
	if len(lines) != n {
		t.Fatalf("%d proof lines, want %d:\n%s", len(lines), n, out)
	}
	cols := map[string]int{"wall (client)": 4, "queue_wait": 5, "srs_load": 6, "synthesis": 7, "prove": 8, "total (daemon)": 9}
	values := map[string][]time.Duration{}
	seen := map[string]bool{}
	for i, l := range lines {
		if l[1] != strconv.Itoa(i+1) || l[2] != strconv.Itoa(n) || l[10] != "384" || seen[l[3]] {
			t.Errorf("line %q", l[0])
		}
		seen[l[3]] = true
		for name, c := range cols {
			values[name] = append(values[name], msOf(t, l[c]))
		}
	}
	rows := summaryRE.FindAllStringSubmatch(out, -1)
	if len(rows) != len(cols) {
		t.Fatalf("%d summary rows:\n%s", len(rows), out)
	}
	for _, row := range rows {
		want := bench.NewDist(values[row[1]])
		got := []time.Duration{msOf(t, row[2]), msOf(t, row[3]), msOf(t, row[4]), msOf(t, row[5])}
		if got[0] != want.Min || got[1] != want.Median || got[2] != want.P95 || got[3] != want.Max {
			t.Errorf("%s: summary %v, lines give min %v median %v p95 %v max %v", row[1], got, want.Min, want.Median, want.P95, want.Max)
		}
	}
	if !strings.Contains(out, fmt.Sprintf("proofs:      %d completed, 0 failed, %d requested (concurrency 3)", n, n)) {
		t.Errorf("no counts line:\n%s", out)
	}
	elapsed := msOf(t, regexp.MustCompile(`(?m)^elapsed:\s+([\d.]+) s$`).FindStringSubmatch(out)[1])
	tps := throughRE.FindAllStringSubmatch(out, -1)
	if len(tps) != 2 {
		t.Fatalf("throughput lines:\n%s", out)
	}
	for _, tp := range tps {
		ppm, _ := strconv.ParseFloat(tp[2], 64)
		spp, _ := strconv.ParseFloat(tp[3], 64)
		span := msOf(t, tp[5])
		if tp[4] != strconv.Itoa(n) || math.Abs(ppm-float64(n)/span.Minutes()) > 0.01*ppm+0.002 || math.Abs(spp-span.Seconds()/n) > 0.002 {
			t.Errorf("%s throughput %q", tp[1], tp[0])
		}
		// The daemon's span comes from millisecond totals rounded up, so it
		// may exceed the client's by a millisecond or two.
		if tp[1] == "client" && span != elapsed || span > elapsed+2*time.Millisecond {
			t.Errorf("%s span %v, elapsed %v", tp[1], span, elapsed)
		}
	}
	if maxWall := bench.NewDist(values["wall (client)"]).Max; maxWall > elapsed {
		t.Errorf("a proof took %v in a batch of %v", maxWall, elapsed)
	}

	// --json: the report parses, per-proof lines go to stderr.
	code, out, stderr = d.bench(t, "batch", "-t", "test", "-n", "4", "-j", "2", "--json")
	var rep bench.BatchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	if len(rep.Results) != 4 || rep.Summary.Completed != 4 || rep.Concurrency != 2 || len(proofLineRE.FindAllString(stderr, -1)) != 4 {
		t.Fatalf("%+v\n%s", rep.Summary, stderr)
	}
	var walls, totals []time.Duration
	for i, r := range rep.Results {
		if r.Index != i || r.Status != "COMPLETED" || r.ProofBytes != 192 || !strings.HasSuffix(r.RequestID, fmt.Sprintf("-%d", i)) || r.JobID != r.RequestID {
			t.Errorf("result %d: %+v", i, r)
		}
		walls, totals = append(walls, r.Wall), append(totals, r.Total)
	}
	if rep.Summary.Wall != bench.NewDist(walls) || rep.Summary.Total != bench.NewDist(totals) {
		t.Errorf("summary %+v does not match the results", rep.Summary)
	}

	// Failed proofs are counted and make the exit code 1.
	code, out, _ = d.bench(t, "batch", "-t", "test", "-n", "2", "--test-options", `{"corrupt_inputs":true}`)
	if code != exitInvalid || strings.Count(out, " FAILED ") != 2 || !strings.Contains(out, "0 completed, 2 failed") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, _, stderr := d.bench(t, "batch", "-t", "test", "-n", "0"); code != exitError || !strings.Contains(stderr, "at least 1") {
		t.Fatalf("exit %d %q", code, stderr)
	}
}

func TestBenchStress(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	// Fixed arrivals, 8 a second for 1.25 s: 10 jobs at 0, 0.125, ...,
	// 1.125 s.
	start := time.Now()
	code, out, stderr := d.bench(t, "stress", "--mix", "test=8/s", "--arrivals", "fixed", "--duration", "1.25s", "--drain", "1m",
		"--status-addr", d.statusAddr, "--sample", "200ms", "--json")
	took := time.Since(start)
	var rep bench.StressReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v:\n%s\n%s", code, err, out, stderr)
	}
	a := rep.All
	if a.Planned != 10 || a.Submitted != 10 || a.Completed != 10 || a.Lost != 0 || !a.Accounted() || len(rep.Results) != 10 || len(rep.LostJobs) != 0 {
		t.Fatalf("%+v", a)
	}
	// Arrivals are never early; on a loaded machine a timer may fire late,
	// so the upper bound only catches a schedule that is wrong, not slow.
	if rep.LastArrival < 1125*time.Millisecond || rep.LastArrival >= 1125*time.Millisecond+5*time.Second || rep.Elapsed < rep.LastArrival || took > 20*time.Second {
		t.Fatalf("last arrival at %v, run %v, command %v", rep.LastArrival, rep.Elapsed, took)
	}
	if a.Latency.N != 10 || a.Latency.Max <= 0 || len(rep.Kinds) != 1 || rep.Kinds[0].Kind != "test" {
		t.Fatalf("latency %+v kinds %+v", a.Latency, rep.Kinds)
	}
	if !rep.Counters.Consistent || rep.Counters.CompletedDelta != 10 {
		t.Fatalf("counters %+v", rep.Counters)
	}
	if m := rep.Memory; m.RSSSamples == 0 || m.PeakRSS == 0 || !m.StatusRead || m.BudgetTotal != 2<<30 || m.BudgetPeak <= 0 {
		t.Fatalf("memory %+v", m)
	}

	// Poisson arrivals, text output.
	code, out, stderr = d.bench(t, "stress", "--mix", "test=6/s", "--duration", "700ms", "--drain", "1m", "--seed", "3", "-v")
	if code != exitOK || !strings.Contains(out, "lost jobs: 0 (every submitted job is accounted for)") ||
		!regexp.MustCompile(`(?m)^test\s+(\d+)\s+0\s+(\d+)\s+0\s+0\s+0\s`).MatchString(out) || !strings.Contains(out, ": consistent") ||
		!strings.Contains(out, "arrivals: poisson (seed 3)") || !strings.Contains(out, "peak memory:     RSS ") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, stderr)
	}
	m := regexp.MustCompile(`(?m)^all\s+(\d+)\s+0\s+(\d+)\s`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] || strings.Count(out, " COMPLETED wall=") != atoi(t, m[1]) {
		t.Fatalf("per-job lines do not match the summary:\n%s", out)
	}

	// Jobs the daemon rejects in its self-check are failed, not lost.
	code, out, _ = d.bench(t, "stress", "--mix", "test=4/s", "--arrivals", "fixed", "--duration", "500ms", "--test-options", `{"corrupt_inputs":true}`, "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitInvalid || rep.All.Failed != 2 || rep.All.Lost != 0 || !rep.All.Accounted() || !rep.Counters.Consistent {
		t.Fatalf("exit %d %v: %+v", code, err, rep.All)
	}

	// Slow jobs: the run stops by itself when the drain time is up and
	// cancels what is left; every job is still accounted for.
	start = time.Now()
	code, out, stderr = d.bench(t, "stress", "--mix", "test=4/s", "--arrivals", "fixed", "--duration", "500ms", "--drain", "200ms",
		"--test-options", `{"synthesis_delay_ms":1000}`, "--json")
	took = time.Since(start)
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitInvalid {
		t.Fatalf("exit %d %v:\n%s\n%s", code, err, out, stderr)
	}
	if a := rep.All; a.Submitted != 2 || a.Cancelled != 2 || a.DrainCancelled != 2 || a.Lost != 0 || !a.Accounted() || took > 15*time.Second {
		t.Fatalf("%+v after %v", a, took)
	}
	for _, bad := range [][]string{
		{"stress", "--mix", "test=2"},
		{"stress", "--mix", "test=1/s", "--arrivals", "bursty"},
		{"stress", "--mix", "test=1/s", "--duration", "0s"},
	} {
		if code, _, stderr := d.bench(t, bad...); code != exitError || stderr == "" {
			t.Errorf("%v: exit %d %q", bad, code, stderr)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBenchStatusPreloadEvictMetrics(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	code, out, _ := d.bench(t, "preload", "--circuit-id", "test-k10")
	if code != exitOK || !regexp.MustCompile(`^test-k10 loaded in \d+ ms\n$`).MatchString(out) {
		t.Fatalf("exit %d %q", code, out)
	}
	code, out, _ = d.bench(t, "preload", "--circuit-id", "test-k10")
	if code != exitOK || out != "test-k10 already loaded\n" {
		t.Fatalf("exit %d %q", code, out)
	}
	code, out, _ = d.bench(t, "preload", "--circuit-id", "test-k10", "--json")
	var pre struct {
		Already bool   `json:"already_loaded"`
		LoadMs  string `json:"load_time_ms"`
	}
	if err := json.Unmarshal([]byte(out), &pre); err != nil || code != exitOK || !pre.Already || pre.LoadMs != "0" {
		t.Fatalf("%v %q", err, out)
	}

	code, out, _ = d.bench(t, "status", "--status-addr", d.statusAddr)
	for _, want := range []string{"=== cuzk daemon status", "proofs completed: 0", "Loaded SRS:\n  test-k10 (tier=HOT", "  test: pending=0, in_progress=0",
		"Pipeline (enabled=true): 2 synthesis worker(s)", "Memory budget: used ", "test-k10: hot", "INSECURE test parameters"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	// The budget once, and by its name.
	if n := strings.Count(strings.ToLower(out), "memory budget"); n != 1 || strings.Contains(out, "pinned") {
		t.Errorf("the memory budget %d times, or called pinned memory:\n%s", n, out)
	}
	code, out, _ = d.bench(t, "status")
	if code != exitOK || !regexp.MustCompile(`(?m)^memory budget:    [\d.]+ ?[KMG]?i?B used of 2(\.0)? ?GiB \(\d+ / 2147483648 bytes`).MatchString(out) || strings.Contains(out, "pinned") {
		t.Errorf("status without --status-addr:\n%s", out)
	}
	code, out, _ = d.bench(t, "status", "--status-addr", d.statusAddr, "--json")
	var st struct {
		GRPC struct {
			LoadedSRS []struct {
				CircuitID string `json:"circuit_id"`
				Tier      string `json:"tier"`
			} `json:"loaded_srs"`
			Queues []struct {
				Kind string `json:"proof_kind"`
			} `json:"queues"`
			Limit string `json:"pinned_memory_limit_bytes"`
		} `json:"grpc"`
		Engine *statusdoc.Status `json:"engine"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != exitOK {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(st.GRPC.LoadedSRS) != 1 || st.GRPC.LoadedSRS[0].Tier != "HOT" || len(st.GRPC.Queues) < 5 || st.GRPC.Limit != strconv.Itoa(2<<30) ||
		st.Engine == nil || st.Engine.Memory.TotalBytes != 2<<30 || st.Engine.Pipeline.SynthesisWorkers != 2 {
		t.Fatalf("%+v", st)
	}
	// Without --status-addr, only the gRPC part.
	code, out, _ = d.bench(t, "status", "--json")
	if code != exitOK || strings.Contains(out, `"engine"`) || !strings.Contains(out, `"grpc"`) {
		t.Fatalf("%s", out)
	}

	code, out, _ = d.bench(t, "evict", "--circuit-id", "test-k10")
	if code != exitOK || !regexp.MustCompile(`^test-k10 evicted, \S+ freed \([1-9]\d* bytes\)\n$`).MatchString(out) {
		t.Fatalf("exit %d %q", code, out)
	}
	code, out, _ = d.bench(t, "evict", "--circuit-id", "test-k10")
	if code != exitOK || out != "test-k10 was not loaded\n" {
		t.Fatalf("exit %d %q", code, out)
	}
	code, out, _ = d.bench(t, "evict", "--circuit-id", "test-k10", "--json")
	if code != exitOK || !strings.Contains(out, `"was_loaded": false`) {
		t.Fatalf("exit %d %q", code, out)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"preload"}, "--circuit-id is required"},
		{[]string{"evict"}, "--circuit-id is required"},
		// -c, the Rust cuzk-bench's, still names the circuit, with a note.
		{[]string{"preload", "-c", "porep-3x"}, "cuzk bench preload: -c is deprecated; use --circuit-id\ncuzk bench preload: PreloadSRS porep-3x"},
		{[]string{"preload", "--circuit-id", "porep-3x"}, "PreloadSRS porep-3x"},
		{[]string{"evict", "--circuit-id", "nonsense"}, "EvictSRS nonsense"},
	} {
		if code, _, stderr := d.bench(t, bad.args...); code != exitError || !strings.Contains(stderr, bad.want) {
			t.Errorf("%v: exit %d %q", bad.args, code, stderr)
		}
	}

	// One proof, then the metrics count it.
	if code, _, stderr := d.bench(t, "single", "-t", "test"); code != exitOK {
		t.Fatal(stderr)
	}
	code, out, _ = d.bench(t, "metrics")
	if code != exitOK || !strings.Contains(out, "\ncuzk_proofs_completed_total{proof_kind=\"test\"} 1\n") || !strings.Contains(out, "process_resident_memory_bytes") {
		t.Fatalf("metrics:\n%s", out)
	}
	code, out, _ = d.bench(t, "metrics", "--prefix", "cuzk_proofs")
	if code != exitOK {
		t.Fatalf("metrics --prefix: exit %d", code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "cuzk_proofs") && !strings.HasPrefix(l, "# HELP cuzk_proofs") && !strings.HasPrefix(l, "# TYPE cuzk_proofs") {
			t.Errorf("--prefix let %q through", l)
		}
	}
	code, out, _ = d.bench(t, "metrics", "--json")
	var fams []bench.Family
	if err := json.Unmarshal([]byte(out), &fams); err != nil || code != exitOK {
		t.Fatalf("%v:\n%s", err, out)
	}
	found := false
	for _, f := range fams {
		if f.Name == "cuzk_proofs_completed_total" && f.Type == "counter" {
			found = slices.ContainsFunc(f.Samples, func(s bench.Sample) bool { return s.Labels["proof_kind"] == "test" && s.Value == 1 })
		}
	}
	if !found {
		t.Fatalf("no cuzk_proofs_completed_total{proof_kind=\"test\"} = 1 in %s", out)
	}
}

// TestBenchTimeline proves three 2-partition test jobs through the
// daemon, finds every stage of each in /status (recent_jobs), and draws
// the timeline from the daemon's status listener and from a saved /status
// document.
func TestBenchTimeline(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	code, out, stderr := d.bench(t, "batch", "-t", "test", "--partitions", "2", "-n", "3", "-j", "2", "--json")
	var rep bench.BatchReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d %v\n%s", code, err, stderr)
	}
	runID := strings.TrimSuffix(rep.Results[0].RequestID, "-0")
	sc, err := bench.NewStatusClient(d.statusAddr)
	if err != nil {
		t.Fatal(err)
	}
	st, raw, err := sc.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	for _, j := range st.RecentJobs {
		if !strings.HasPrefix(j.ID, runID) {
			continue
		}
		stages := map[string]int{}
		for _, s := range j.Stages {
			stages[s.Stage]++
			if s.Stage != statusdoc.StageSelfCheck && (s.Circuit != "test-k10" || s.Batch != j.Batch || s.Partition < 0 || s.Partition > 1) ||
				s.Duration < 0 || s.Start.Before(j.Submitted) || s.End().After(j.Finished) {
				t.Errorf("%s: stage %+v", j.ID, s)
			}
		}
		records += len(j.Stages)
		if j.State != "completed" || j.Partitions != 2 || stages["synthesis"] != 2 || stages["prove"] != 2 || stages["finish"] != 2 || stages["self_check"] != 1 {
			t.Errorf("%s %s: stages %v", j.ID, j.State, stages)
		}
	}
	// 3 jobs × 2 partitions × (synthesis, prove, finish) + 3 self-checks,
	// plus the parameter load of the first items.
	if records < 21 {
		t.Fatalf("%d stage records for %s in %s", records, runID, raw)
	}

	svg := filepath.Join(t.TempDir(), "tl.svg")
	code, out, stderr = runCmd(t, "bench", "timeline", "--status-addr", d.statusAddr, "--jobs", runID, "--svg", svg, "--width", "80")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{fmt.Sprintf("3 job(s), 6 partition(s), %d stage records", records), "\nsynth 1 ", "\nprove ", "\nfinish ",
		"\nA p0 ", "\nA p1 ", "\nA job ", "\nC p1 ", "A  " + runID, "wrote " + svg} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}
	svgRaw, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svgRaw))
	rects := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "rect" {
			rects++
		}
	}
	if rects < 2*records {
		t.Errorf("%d rects in the SVG for %d records", rects, records)
	}

	// The same document saved to a file draws the same timeline.
	saved := filepath.Join(t.TempDir(), "status.json")
	if err := os.WriteFile(saved, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "bench", "timeline", "--status-file", saved, "--jobs", runID, "--json")
	var tl timeline.Timeline
	if err := json.Unmarshal([]byte(out), &tl); err != nil || code != exitOK {
		t.Fatalf("%v", err)
	}
	if tl.Records != records || len(tl.Jobs) != 3 || tl.Length <= 0 {
		t.Fatalf("%d records, %d jobs", tl.Records, len(tl.Jobs))
	}
	stages := map[string]int{}
	for _, s := range tl.Spans {
		stages[s.Stage]++
		if s.Stage != statusdoc.StageSelfCheck && s.Circuit != "test-k10" || s.Worker == "" {
			t.Errorf("span %+v", s)
		}
	}
	if stages["synthesis"] != 6 || stages["self_check"] != 3 || stages["prove"] == 0 || stages["finish"] == 0 {
		t.Errorf("stages %v", stages)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--status-addr", d.statusAddr, "--jobs", "no-such-job"}, "no stage records"},
		{[]string{}, "one of --status-addr and --status-file"},
		{[]string{"--status-addr", d.statusAddr, "--status-file", saved}, "one of --status-addr and --status-file"},
	} {
		if code, _, stderr := runCmd(t, append([]string{"bench", "timeline"}, bad.args...)...); code != exitError || !strings.Contains(stderr, bad.want) {
			t.Errorf("%v: exit %d %q", bad.args, code, stderr)
		}
	}
}

// TestBenchSinglePoRep proves a real 2 KiB PoRep C1 (the sector the Rust
// reference harness sealed) through the daemon and checks it with
// verify-seal from the C1's public values, then runs status, evict,
// preload, a batch of two, metrics and timeline on the PoRep circuit.
func TestBenchSinglePoRep(t *testing.T) {
	testenv.E2E(t, "2 KiB test parameters (generated once into the shared cache) and a 2^22-row proof")
	files := testkit.FilecoinParams(t, filecoin.CircuitPoRep2K)[0]
	d := startBenchDaemon(t, filepath.Dir(files.Params), "8GiB", "--trust-params")
	code, out, stderr := d.bench(t, "single", "-t", "porep", "--c1", "../../testdata/rustref/seal/2KiB/c1.json", "--verify", "--params", d.params)
	t.Log(out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for _, re := range []string{
		`porep-c2 \(porep-2k, 1 partition\(s\)\), registered_proof 5, sector 1, miner 1000`,
		`(?m)^status:\s+COMPLETED$`, `(?m)^srs_load_ms:\s+[1-9]\d*$`, `(?m)^synthesis_ms:\s+[1-9]\d*$`,
		`(?m)^prove_ms:\s+[1-9]\d* `, `(?m)^total_ms:\s+[1-9]\d*$`,
		`(?m)^proof:\s+192 bytes \(1 partition proof\(s\)\)`,
		`(?m)^verify:\s+valid \(verify-seal from the C1's public values; .*v28-stacked-proof-of-replication-.*\.vk`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s", re)
		}
	}
	// The operator commands on the PoRep circuit: status shows it loaded,
	// evict drops it, preload brings it back.
	code, out, _ = d.bench(t, "status", "--status-addr", d.statusAddr)
	if code != exitOK || !strings.Contains(out, "porep-2k (tier=HOT") {
		t.Errorf("status after a PoRep proof:\n%s", out)
	}
	code, out, _ = d.bench(t, "evict", "--circuit-id", "porep-2k")
	if code != exitOK || !regexp.MustCompile(`^porep-2k evicted, \S+ freed \([1-9]\d* bytes\)\n$`).MatchString(out) {
		t.Errorf("evict: exit %d %q", code, out)
	}
	code, out, _ = d.bench(t, "preload", "--circuit-id", "porep-2k", "--json")
	var pre struct {
		AlreadyLoaded bool   `json:"already_loaded"`
		LoadTimeMS    uint64 `json:"load_time_ms,string"` // protojson writes uint64 as a string
	}
	if err := json.Unmarshal([]byte(out), &pre); err != nil || code != exitOK || pre.AlreadyLoaded || pre.LoadTimeMS == 0 {
		t.Errorf("preload: exit %d %v %q", code, err, out)
	}
	// A batch of two real PoRep proofs.
	code, out, stderr = d.bench(t, "batch", "-t", "porep", "--c1", "../../testdata/rustref/seal/2KiB/c1.json", "-n", "2", "-j", "2")
	t.Log(out)
	if code != exitOK || !strings.Contains(out, "2 completed, 0 failed") || len(proofLineRE.FindAllString(out, -1)) != 2 {
		t.Fatalf("batch: exit %d\n%s\n%s", code, out, stderr)
	}
	if code, out, _ = d.bench(t, "metrics", "--prefix", "cuzk_proofs"); code != exitOK || !strings.Contains(out, "cuzk_proofs_completed_total{proof_kind=\"porep_c2\"} 3") {
		t.Errorf("metrics after three proofs:\n%s", out)
	}

	code, out, _ = runCmd(t, "bench", "timeline", "--status-addr", d.statusAddr, "--json")
	var tl timeline.Timeline
	if err := json.Unmarshal([]byte(out), &tl); err != nil || code != exitOK || len(tl.Jobs) != 3 {
		t.Fatalf("%v %s", err, out)
	}
	for _, s := range tl.Spans {
		if s.Stage != statusdoc.StageSelfCheck && s.Circuit != "porep-2k" {
			t.Errorf("span %+v", s)
		}
	}

	// --c1-gen: the input made without sealing (cuzk c1 gen), in Curio's
	// envelope, proven and checked with verify-seal like a sealed one.
	code, out, stderr = d.bench(t, "single", "-t", "porep", "--c1-gen", "2KiB", "--sector", "7", "--verify", "--params", d.params)
	t.Log(out)
	if code != exitOK || !strings.Contains(stderr, "--c1-gen: made a 2KiB C1 WITHOUT SEALING") ||
		!regexp.MustCompile(`(?m)^verify:\s+valid `).MatchString(out) || !strings.Contains(out, "sector 7, miner 1000") {
		t.Fatalf("--c1-gen: exit %d\n%s\n%s", code, out, stderr)
	}
}

// TestBenchUnreachable: with no daemon at --addr, every command that calls
// one says which address it tried and what to check, before any work.
func TestBenchUnreachable(t *testing.T) {
	addr := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	hint := "no cuzk daemon answers at " + addr + ": is it running (systemctl status cuzk), and is --addr its [daemon] listen? (--addr defaults to $CUZK_ADDR, else unix:///run/curio/cuzk.sock)"
	for _, args := range [][]string{
		{"status"}, {"metrics"}, {"preload", "--circuit-id", "test-k10"}, {"evict", "--circuit-id", "test-k10"},
		{"single", "-t", "test"}, {"batch", "-t", "test", "-n", "2"}, {"stress", "--mix", "test=1/s", "--duration", "1s"},
	} {
		code, _, stderr := runCmd(t, append([]string{"bench", args[0], "--addr", addr}, args[1:]...)...)
		if code != exitError || !strings.Contains(stderr, hint) {
			t.Errorf("bench %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestSnapFixtureWording: the built-in SnapDeals request describes its new
// data in words, not by the generator's label.
func TestSnapFixtureWording(t *testing.T) {
	addr := "unix://" + filepath.Join(t.TempDir(), "none.sock")
	code, _, stderr := runCmd(t, "bench", "single", "-t", "snap-update", "--addr", addr)
	if code != exitError || !strings.Contains(stderr, "updated with built-in test data (deterministic bytes") || strings.Contains(stderr, "detstream") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
