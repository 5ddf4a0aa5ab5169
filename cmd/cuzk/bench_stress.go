package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// runBenchStress is `cuzk bench stress`: open-loop arrivals of a mix of
// proof types for a bounded time, then a drain, with every job accounted
// for.
func runBenchStress(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench stress", stderr)
	df := addDaemonFlags(fs)
	pf := addProofFlags(fs, false)
	duration := fs.Duration("duration", time.Minute, "arrival window: jobs are submitted during this time")
	mixFlag := fs.String("mix", "test=1/s", "proof types and arrival rates, e.g. porep=2/m,test=1/s (units /s, /m, /h)")
	arrivalsFlag := fs.String("arrivals", "poisson", "arrival process: poisson (exponential gaps, seeded) or fixed (evenly spaced)")
	seed := fs.Uint64("seed", 1, "seed of the Poisson arrivals")
	drain := fs.Duration("drain", 10*time.Minute, "after the window, how long to wait for outstanding jobs before cancelling them")
	sample := fs.Duration("sample", time.Second, "memory sampling interval")
	pg := addProgressFlags(fs)
	verbose := fs.Bool("v", false, "print a line per finished job")
	asJSON := fs.Bool("json", false, "print one JSON report (with every job)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench stress")
	mix, err := bench.ParseMix(*mixFlag)
	if err != nil {
		return fail("%v", err)
	}
	arr, err := bench.ParseArrivals(*arrivalsFlag)
	if err != nil {
		return fail("%v", err)
	}
	if *duration <= 0 || *drain < 0 {
		return fail("--duration must be positive and --drain not negative")
	}
	specs := map[proofkind.Kind]*bench.Spec{}
	for _, r := range mix {
		s, err := pf.spec(ctx, r.Kind, stderr)
		if err != nil {
			return fail("%s: %v", r.Kind, err)
		}
		specs[r.Kind] = s.Spec
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
	st, err := bench.NewStress(c, specs, mix, bench.StressOptions{
		Duration: *duration, Drain: *drain, Arrivals: arr, Seed: *seed, Status: sc, Sample: *sample,
	})
	if err != nil {
		return fail("%v", err)
	}
	out := stdout
	if *asJSON {
		out = stderr
	}
	var rates []string
	for _, r := range mix {
		rates = append(rates, fmt.Sprintf("%s %s (%.3g/min)", r.Kind, r.Text, r.PerSecond*60))
	}
	arrDesc := string(arr)
	if arr == bench.Poisson {
		arrDesc += fmt.Sprintf(" (seed %d)", *seed)
	}
	fmt.Fprintf(out, "=== Stress ===\nmix:      %s\narrivals: %s, %d planned in %v\ndrain:    up to %v, then outstanding jobs are cancelled\ndaemon:   %s\n",
		strings.Join(rates, ", "), arrDesc, len(st.Plan()), *duration, *drain, df.addr)
	for _, t := range mix {
		fmt.Fprintf(out, "%-8s  %s\n", t.Kind.String()+":", specs[t.Kind].Describe())
	}
	if sc == nil {
		fmt.Fprintf(out, "(no --status-addr: the memory budget is not reported)\n")
	}
	fmt.Fprintln(out)
	prog, stopProgress := pg.start(ctx, stderr, func(ctx context.Context) string {
		p := st.Progress()
		phase := "arriving"
		if p.Draining {
			phase = "draining"
		}
		line := fmt.Sprintf("%s: submitted %d/%d, completed %d, failed %d, in flight %d, peak rss %s", phase,
			p.Submitted, p.Planned, p.Completed, p.Failed, p.InFlight, bytesize.Format(int64(p.PeakRSS)))
		if sc != nil {
			sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			if ds, _, err := sc.Status(sctx); err == nil {
				line += "; daemon jobs: " + jobCounts(ds)
			}
		}
		return line
	})
	finished := 0
	rep, err := st.Run(ctx, func(r bench.Result) {
		finished++ // Run serialises these calls
		if *verbose {
			prog.Println(out, fmt.Sprintf("  %-6s %s%s", r.Kind, proofLine(finished, len(st.Plan()), &r), daemonSuffix(c, &r)))
		}
	})
	stopProgress()
	if err != nil {
		return fail("%v", err)
	}
	if *asJSON {
		if err := printJSON(stdout, rep); err != nil {
			return fail("%v", err)
		}
	} else {
		printStress(stdout, rep)
	}
	if rep.All.Lost > 0 || rep.All.Completed != rep.All.Submitted {
		return exitInvalid
	}
	return exitOK
}

func printStress(w io.Writer, rep *bench.StressReport) {
	fmt.Fprintf(w, "\n=== Stress Summary ===\n")
	after := rep.Elapsed - rep.Duration
	fmt.Fprintf(w, "run:     %d submitted (of %d planned) in the %v window, last at +%s s; all final %s s after the window\n",
		rep.All.Submitted, rep.All.Planned, rep.Duration, secs(rep.LastArrival), secs(max(after, 0)))
	if rep.Interrupted {
		fmt.Fprintf(w, "         interrupted: arrivals stopped early\n")
	}
	fmt.Fprintf(w, "\n%-6s %9s %8s %9s %6s %9s %5s   %8s %8s %8s %8s   %8s %8s\n", "kind", "submitted", "rejected", "completed", "failed", "cancelled", "lost",
		"p50", "p95", "p99", "max", "queue50", "queue95")
	rows := append(append([]bench.KindStats(nil), rep.Kinds...), rep.All)
	for _, k := range rows {
		fmt.Fprintf(w, "%-6s %9d %8d %9d %6d %9d %5d   %8s %8s %8s %8s   %8s %8s\n", k.Kind, k.Submitted, k.Rejected, k.Completed, k.Failed, k.Cancelled, k.Lost,
			secs(k.Latency.Median), secs(k.Latency.P95), secs(k.Latency.P99), secs(k.Latency.Max), secs(k.QueueWait.Median), secs(k.QueueWait.P95))
	}
	fmt.Fprintf(w, "(latency: client submit to result, seconds, completed jobs; queue: the daemon's queue_wait)\n")
	if rep.All.DrainCancelled > 0 {
		fmt.Fprintf(w, "cancelled at the end of the drain: %d\n", rep.All.DrainCancelled)
	}
	if len(rep.Daemons) > 1 {
		fmt.Fprintln(w)
		printSpread(w, rep.Daemons)
	}
	if rep.All.Lost == 0 {
		fmt.Fprintf(w, "\nlost jobs: 0 (every submitted job is accounted for)\n")
	} else {
		fmt.Fprintf(w, "\nLOST JOBS: %d (no final status could be learnt): %s\n", rep.All.Lost, strings.Join(rep.LostJobs, ", "))
	}
	c := rep.Counters
	verdict := "consistent"
	if !c.Consistent {
		verdict = "DIFFERENT (another client, or jobs not seen by this run)"
	}
	fmt.Fprintf(w, "daemon counters: +%d completed, +%d failed (this run: %d, %d): %s\n", c.CompletedDelta, c.FailedDelta, rep.All.Completed, rep.All.Failed, verdict)
	m := rep.Memory
	rss := "not exposed by the daemon's metrics"
	if m.RSSSamples > 0 {
		rss = fmt.Sprintf("%s (max of %d samples of %s)", bytesize.Format(int64(m.PeakRSS)), m.RSSSamples, bench.ResidentMetric)
	}
	fmt.Fprintf(w, "peak memory:     RSS %s\n", rss)
	if m.StatusRead {
		fmt.Fprintf(w, "memory budget:   peak %s of %s since the daemon started (/status memory.peak_bytes); max in use during the run %s\n",
			bytesize.Format(m.BudgetPeak), bytesize.Format(m.BudgetTotal), bytesize.Format(m.BudgetUsedMax))
	}
}
