package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
)

// runBenchBatch is `cuzk bench batch`: N proofs, J in flight, a line per
// proof as it returns and a summary table.
func runBenchBatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench batch", stderr)
	df := addDaemonFlags(fs)
	pf := addProofFlags(fs, true)
	var count, conc int
	fs.IntVar(&count, "count", 3, "number of proofs")
	fs.IntVar(&count, "n", 3, "shorthand for --count")
	// -c was --count (the Rust cuzk-bench's); everywhere else in cuzk it
	// is --config.
	deprecatedFlag(fs, "c", "count")
	fs.IntVar(&conc, "concurrency", 1, "proofs in flight at once")
	fs.IntVar(&conc, "j", 1, "shorthand for --concurrency")
	pg := addProgressFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON report (per-proof lines go to stderr)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench batch")
	if count < 1 || conc < 1 {
		return fail("--count and --concurrency must be at least 1")
	}
	spec, err := pf.flagSpec(ctx, stderr)
	if err != nil {
		return fail("%v", err)
	}
	sc, err := df.status()
	if err != nil {
		return fail("%v", err)
	}
	c, err := df.dial()
	if err != nil {
		return fail("%v", err)
	}
	defer c.Close()
	if err := df.probe(ctx, c); err != nil {
		return fail("%v", err)
	}

	lines := stdout
	if *asJSON {
		lines = stderr
	}
	conc = min(conc, count)
	fmt.Fprintf(lines, "=== Batch Benchmark ===\nproof:       %s\ncount:       %d\nconcurrency: %d\ndaemon:      %s\n\n", spec.Describe(), count, conc, df.addr)
	var done atomic.Int64
	runID := bench.NewRunID("bench-batch")
	watch := newJobWatch(c, sc, spec.Kind().String())
	// Request ids are runID-<index> (bench.RunBatch); a job id may carry
	// the caller's prefix before it.
	ofRun := func(jobID string) bool { return strings.Contains(jobID, runID+"-") }
	index := func(jobID string) string { return "#" + jobID[strings.LastIndex(jobID, "-")+1:] }
	prog, stopProgress := pg.start(ctx, stderr, func(ctx context.Context) string {
		n := int(done.Load())
		return fmt.Sprintf("%s %d/%d proofs; %s", bench.Bar(n, count, 20), n, count, watch.describe(ctx, ofRun, index))
	})
	rep := bench.RunBatch(ctx, c, spec.Spec, bench.BatchOptions{Count: count, Concurrency: conc, RunID: runID}, func(r bench.Result) {
		n := done.Add(1)
		prog.Println(lines, proofLine(int(n), count, &r)+daemonSuffix(c, &r))
	})
	stopProgress()
	if *asJSON {
		if err := printJSON(stdout, rep); err != nil {
			return fail("%v", err)
		}
	} else {
		printBatchSummary(stdout, rep)
	}
	if rep.Summary.Failed > 0 {
		return exitInvalid
	}
	return exitOK
}

// proofLine is the per-proof line of batch runs: seconds with millisecond
// precision, the same figures the summary is computed from.
func proofLine(n, total int, r *bench.Result) string {
	w := len(fmt.Sprint(total))
	s := fmt.Sprintf("  [%*d/%d] #%-*d %-9s wall=%ss", w, n, total, w, r.Index, r.Status, secs(r.Wall))
	if r.OK() {
		s += fmt.Sprintf(" queue=%ss srs_load=%ss synthesis=%ss prove=%ss total=%ss proof=%dB",
			secs(r.QueueWait), secs(r.SRSLoad), secs(r.Synthesis), secs(r.Prove), secs(r.Total), r.ProofBytes)
	} else if r.Error != "" {
		s += " error=" + fmt.Sprintf("%q", r.Error)
	}
	return s + " job=" + r.JobID
}

func printBatchSummary(w io.Writer, rep *bench.BatchReport) {
	s := &rep.Summary
	fmt.Fprintf(w, "\n=== Batch Summary ===\n")
	fmt.Fprintf(w, "proofs:      %d completed, %d failed, %d requested (concurrency %d)\n", s.Completed, s.Failed, s.Requested, rep.Concurrency)
	fmt.Fprintf(w, "elapsed:     %s s\n", secs(rep.Elapsed))
	printSpread(w, rep.Daemons)
	if s.Completed == 0 {
		return
	}
	fmt.Fprintf(w, "\n%-22s %10s %10s %10s %10s\n", "seconds", "min", "median", "p95", "max")
	for _, row := range []struct {
		name string
		d    bench.Dist
	}{
		{"wall (client)", s.Wall}, {"queue_wait", s.QueueWait}, {"srs_load", s.SRSLoad},
		{"synthesis", s.Synthesis}, {"prove", s.Prove}, {"total (daemon)", s.Total},
	} {
		fmt.Fprintf(w, "%-22s %10s %10s %10s %10s\n", row.name, secs(row.d.Min), secs(row.d.Median), secs(row.d.P95), secs(row.d.Max))
	}
	fmt.Fprintf(w, "\nthroughput (client): %.3f proofs/min, %.3f s/proof (%d proofs over %s s, first request to last result)\n",
		s.Client.ProofsPerMinute, s.Client.SecondsPerProof, s.Client.Proofs, secs(s.Client.Span))
	fmt.Fprintf(w, "throughput (daemon): %.3f proofs/min, %.3f s/proof (%d proofs over %s s, first job accepted to last result)\n",
		s.Daemon.ProofsPerMinute, s.Daemon.SecondsPerProof, s.Daemon.Proofs, secs(s.Daemon.Span))
}

// daemonSuffix names the daemon of a per-proof line when the client has
// several, and the daemons that refused or lost the job first.
func daemonSuffix(c *client.Client, r *bench.Result) string {
	if !c.Several() {
		return ""
	}
	s := " daemon=" + r.Daemon
	if len(r.Moved) > 0 {
		s += " moved_from=" + strings.Join(r.Moved, ",")
	}
	return s
}

// printSpread shows how a run's jobs spread over several daemons (nothing
// for one daemon).
func printSpread(w io.Writer, ds []bench.DaemonStats) {
	if len(ds) < 2 {
		return
	}
	moved := 0
	for _, d := range ds {
		moved += d.MovedAway
	}
	fmt.Fprintf(w, "daemons:     %d, the busiest got %.0f%% of the jobs; %d job(s) moved to another daemon\n", len(ds), 100*bench.MaxShare(ds), moved)
	fmt.Fprintf(w, "  %-40s %6s %9s %10s %10s\n", "daemon", "jobs", "completed", "moved away", "peak rss")
	for _, d := range ds {
		rss := "-"
		if d.PeakRSS > 0 {
			rss = bytesize.Format(int64(d.PeakRSS))
		}
		fmt.Fprintf(w, "  %-40s %6d %9d %10d %10s\n", d.Addr, d.Jobs, d.Completed, d.MovedAway, rss)
	}
}
