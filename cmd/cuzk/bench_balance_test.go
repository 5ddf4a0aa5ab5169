package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// startBenchDaemons starts n daemons sharing one parameter directory;
// extra go to each daemon's command line.
func startBenchDaemons(t *testing.T, n int, extra ...string) ([]*benchDaemon, string) {
	t.Helper()
	params := t.TempDir()
	if err := testkind.WriteParams(params, 10); err != nil {
		t.Fatal(err)
	}
	var ds []*benchDaemon
	var addrs []string
	for range n {
		d := startBenchDaemon(t, params, "2GiB", extra...)
		ds = append(ds, d)
		addrs = append(addrs, d.addr)
	}
	return ds, strings.Join(addrs, ",")
}

func stressReport(t *testing.T, code int, out, stderr string) *bench.StressReport {
	t.Helper()
	var rep bench.StressReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d, %v:\n%s\n%s", code, err, out, stderr)
	}
	return &rep
}

// `cuzk bench stress --addr a,b,c` spreads the jobs over three daemons
// and reports the spread; batch and single take a list too.
func TestBenchSeveralDaemons(t *testing.T) {
	ds, list := startBenchDaemons(t, 3)
	code, out, stderr := runCmd(t, "bench", "stress", "--addr", list, "--mix", "test=12/s", "--arrivals", "fixed", "--duration", "1.5s",
		"--drain", "1m", "--test-options", `{"synthesis_delay_ms":100}`, "--json")
	rep := stressReport(t, code, out, stderr)
	if a := rep.All; code != exitOK || a.Submitted != 18 || a.Completed != 18 || a.Lost != 0 || a.Moved != 0 || !a.Accounted() {
		t.Fatalf("exit %d: %+v\n%s", code, a, stderr)
	}
	if len(rep.Daemons) != 3 || bench.MaxShare(rep.Daemons) > 0.6 || !rep.Counters.Consistent {
		t.Fatalf("spread %+v, counters %+v", rep.Daemons, rep.Counters)
	}
	for i, d := range rep.Daemons {
		if d.Addr != ds[i].addr || d.Jobs == 0 || d.Completed != d.Jobs || d.PeakRSS == 0 {
			t.Fatalf("daemon %d: %+v", i, d)
		}
	}
	for _, r := range rep.Results {
		if r.Daemon == "" {
			t.Fatalf("job %s without a daemon", r.RequestID)
		}
	}
	t.Logf("stress spread: %+v", rep.Daemons)

	// Text output: the spread table.
	code, out, stderr = runCmd(t, "bench", "stress", "--addr", list, "--mix", "test=6/s", "--arrivals", "fixed", "--duration", "1s", "-v")
	if code != exitOK || !strings.Contains(out, "daemons:     3, the busiest got ") || strings.Count(out, " daemon=unix://") != 6 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, stderr)
	}
	for _, d := range ds {
		if !strings.Contains(out, "\n  "+d.addr+" ") {
			t.Fatalf("no spread line for %s:\n%s", d.addr, out)
		}
	}

	code, out, stderr = runCmd(t, "bench", "batch", "--addr", list, "-t", "test", "-n", "6", "-j", "6", "--json")
	var br bench.BatchReport
	if err := json.Unmarshal([]byte(out), &br); err != nil || code != exitOK || br.Summary.Completed != 6 || len(br.Daemons) != 3 {
		t.Fatalf("batch exit %d %v: %+v\n%s", code, err, br.Daemons, stderr)
	}
	code, out, stderr = runCmd(t, "bench", "single", "--addr", list, "-t", "test")
	if code != exitOK || !strings.Contains(out, "\ndaemon:          unix://") {
		t.Fatalf("single exit %d:\n%s\n%s", code, out, stderr)
	}
	// Preload and evict act on every daemon.
	code, out, stderr = runCmd(t, "bench", "evict", "--addr", list, "--circuit-id", "test-k10")
	if code != exitOK || !strings.Contains(out, "test-k10 evicted") {
		t.Fatalf("evict exit %d:\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runCmd(t, "bench", "preload", "--addr", list, "--circuit-id", "test-k10")
	if code != exitOK || !strings.Contains(out, "test-k10 loaded in ") {
		t.Fatalf("preload exit %d:\n%s\n%s", code, out, stderr)
	}
}

// A daemon stopped in the middle of a stress run (its jobs aborted at
// once) loses no job: each job it held is submitted again to another
// daemon, completes there, and the report counts it as moved.
func TestBenchSeveralDaemonsOneStops(t *testing.T) {
	ds, list := startBenchDaemons(t, 3, "--shutdown-timeout", "1ms")
	victim := ds[1]
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, stderr := runCmd(t, "bench", "stress", "--addr", list, "--mix", "test=8/s", "--arrivals", "fixed", "--duration", "2s",
			"--drain", "1m", "--test-options", `{"synthesis_delay_ms":300}`, "--json")
		done <- result{code, out, stderr}
	}()
	c, err := client.Dial(victim.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Stop it while it holds jobs: two if it gets them (so that one
	// finishing just before the stop still leaves one to move), else one.
	start := time.Now()
	for {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		busy := 0
		for _, q := range st.GetQueues() {
			busy += int(q.GetPending() + q.GetInProgress())
		}
		if busy >= 2 || (busy >= 1 && time.Since(start) > time.Second) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	victim.stop()
	res := <-done
	rep := stressReport(t, res.code, res.out, res.stderr)
	a := rep.All
	if res.code != exitOK || a.Submitted != 16 || a.Completed != 16 || a.Lost != 0 || a.Moved == 0 || !a.Accounted() {
		t.Fatalf("exit %d: %+v\n%s", res.code, a, res.stderr)
	}
	var onVictim bench.DaemonStats
	for _, d := range rep.Daemons {
		if d.Addr == victim.addr {
			onVictim = d
		}
	}
	if onVictim.MovedAway != a.Moved {
		t.Fatalf("%d jobs moved, %d away from the stopped daemon: %+v", a.Moved, onVictim.MovedAway, rep.Daemons)
	}
	for _, r := range rep.Results {
		if len(r.Moved) > 0 && (r.Daemon == victim.addr || r.Moved[0] != victim.addr || !r.OK()) {
			t.Fatalf("moved job %+v", r)
		}
	}
	t.Logf("spread after one daemon stopped: %+v", rep.Daemons)
}
