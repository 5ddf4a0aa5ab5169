package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"runtime/trace"
	"slices"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/synthbench"
)

func runBenchSynth(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench synth", stderr)
	c1Path := fs.String("c1", "", "C1 output `file` (plain or Curio-wrapped); default: a freshly sealed 2 KiB sector")
	partition := fs.Int("partition", -1, "synthesise only partition K (default all)")
	iters := fs.Int("i", 3, "iterations")
	csName := fs.String("cs", "proving", "constraint system: proving, templated, witness or count")
	omitC := fs.Bool("omit-c", false, "proving and templated: leave c out of the assignment (r1cs.AssignmentOptions.OmitC), as the CPU prover takes it")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile to `file`")
	memProfile := fs.String("memprofile", "", "write a heap profile to `file` after the runs")
	traceFile := fs.String("trace", "", "write an execution trace to `file`")
	compare := fs.String("compare", "", "A/B: alternate runs of this binary and `OTHER_BINARY` on the same input and print the ratio")
	rustBench := fs.String("rust-bench", "testdata/rustref/bench.json", "bellperson figures from tools/rustref bench, for the ratio (skipped if absent)")
	asJSON := fs.Bool("json", false, "print one JSON report instead of text")
	size := sectorSizeFlag{allowed: filecoin.PublishedSectorSizes()}
	fs.Var(&size, "sector-size", "sector `size` of the --synthetic circuit (2KiB … 64GiB)")
	synthetic := fs.Bool("synthetic", false, "synthesise one partition of deterministic random C1-shaped inputs (unsatisfied; the rows are a real partition's) instead of a sealed sector's C1")
	kindName := fs.String("kind", "porep-c2", "--synthetic circuit: porep-c2, window-post or winning-post")
	challenges := fs.Int("challenges", 0, "--synthetic porep: only `N` of the partition's challenges (rows scale with them), for machines that cannot hold a full partition")
	sectors := fs.Int("sectors", 0, "--synthetic window-post: only `N` of the partition's sectors")
	seed := fs.Uint64("seed", 1, "--synthetic: random `seed`")
	force := fs.Bool("force", false, "run even if the estimated memory exceeds what /proc/meminfo says is available")
	throughH := fs.Bool("through-h", false, "--synthetic: synthesise one partition as the engine does for the CPU prover (c omitted), release its witness, then run the prover's H stage, and report the time and the peak anonymous memory of each step")
	workers := fs.Int("workers", 0, "--through-h: worker goroutines for the H stage (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench synth")
	kind, err := synthbench.ParseCSKind(*csName)
	if err != nil {
		return fail("%v", err)
	}
	if *omitC && kind != synthbench.CSProving && kind != synthbench.CSTemplated {
		return fail("--omit-c is for --cs proving or templated")
	}
	if *compare != "" {
		return compareSynth(ctx, fs, *compare, *iters, stdout, stderr)
	}
	guard := synthbench.MemoryGuard(*force)
	if *throughH && !*synthetic {
		return fail("--through-h needs --synthetic")
	}
	if *synthetic {
		if !size.set {
			return fail("--synthetic needs --sector-size")
		}
		k, err := proofkind.Parse(*kindName)
		if err != nil {
			return fail("--kind: %v", err)
		}
		in, err := synthbench.SyntheticInput(size.v, k, *challenges, *sectors, *seed)
		if err != nil {
			return fail("%v", err)
		}
		if *throughH {
			rep, err := synthbench.ThroughH(ctx, in.Circuits[0], in.Synthetic, *workers, guard)
			if err != nil {
				return fail("%v", err)
			}
			printThroughH(stdout, rep, *asJSON)
			return exitOK
		}
		return runSynthBench(ctx, in, synthbench.Report{Synthetic: in.Synthetic, CS: kind, OmitC: *omitC}, *partition, *iters, guard, *cpuProfile, *memProfile, *traceFile, *rustBench, *asJSON, stdout, fail)
	}
	if size.set {
		return fail("--sector-size needs --synthetic (a C1 knows its size)")
	}
	in, err := synthbench.LoadC1(ctx, *c1Path)
	if err != nil {
		return fail("%v", err)
	}
	return runSynthBench(ctx, in, synthbench.Report{C1: *c1Path, CS: kind, OmitC: *omitC}, *partition, *iters, guard, *cpuProfile, *memProfile, *traceFile, *rustBench, *asJSON, stdout, fail)
}

// runSynthBench measures in as rep.CS and prints the report.
func runSynthBench(ctx context.Context, in synthbench.Input, rep synthbench.Report, partition, iters int, guard func(int64) error,
	cpuProfile, memProfile, traceFile, rustBench string, asJSON bool, stdout io.Writer, fail func(string, ...any) int) int {
	kind := rep.CS
	stop, err := startCPUProfile(cpuProfile)
	if err != nil {
		return fail("%v", err)
	}
	defer stop()
	if traceFile != "" {
		f, err := os.Create(traceFile)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		if err := trace.Start(f); err != nil {
			return fail("--trace: %v", err)
		}
		defer trace.Stop()
	}
	if rep.Synthetic != "" && !asJSON {
		fmt.Fprintf(stdout, "synthetic %s\n", rep.Synthetic)
	}
	if !asJSON {
		fmt.Fprintf(stdout, "%-4s %-4s %-9s %12s %8s %10s %10s %10s %8s %8s %10s %12s %13s %9s\n", "iter", "part", "cs", "constraints", "inputs", "aux", "wall", "ns/constr",
			"user/c", "sys/c", "faults/kc", "bytes/constr", "allocs/constr", "peak RSS")
	}
	its, err := synthbench.Run(ctx, in.Circuits, synthbench.Options{CS: kind, OmitC: rep.OmitC, Iterations: iters, Partition: partition, PeakRSS: bench.PeakRSS, Guard: guard}, func(r synthbench.Iteration) {
		if !asJSON {
			rows := float64(max(r.Constraints, 1))
			fmt.Fprintf(stdout, "%-4d %-4d %-9s %12d %8d %10d %10v %10.1f %8.1f %8.1f %10.2f %12.1f %13.6f %5d MiB\n", r.Iteration, r.Partition, r.CS, r.Constraints, r.Inputs, r.Aux,
				time.Duration(r.WallNs).Round(time.Millisecond), r.NsPerRow, float64(r.UserNs)/rows, float64(r.SysNs)/rows, 1000*float64(r.MinorFaults)/rows,
				r.BytesPerRow, r.AllocsPerRw, r.PeakRSS>>20)
		}
	})
	if err != nil {
		return fail("%v", err)
	}
	if memProfile != "" {
		f, err := os.Create(memProfile)
		if err != nil {
			return fail("%v", err)
		}
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fail("--memprofile: %v", err)
		}
	}
	rep.Summarize(its)
	rep.PeakRSSBytes = bench.PeakRSS()
	if b, err := synthbench.ReadRustBench(synthbench.FindUp(rustBench)); err == nil && rep.Synthetic == "" {
		rep.BellpersonNsRow = b
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
		return exitOK
	}
	what := string(kind)
	if rep.OmitC {
		what += ", omit-c"
	}
	fmt.Fprintf(stdout, "median %.1f ns/constraint (%s), CPU %.1f ns/constraint, peak RSS %d MiB, GOMAXPROCS %d\n", rep.MedianNsPerRow, what, rep.MedianCPUNsPerRow, rep.PeakRSSBytes>>20, rep.GOMAXPROCS)
	if rep.BellpersonNsRow > 0 {
		fmt.Fprintf(stdout, "bellperson (tools/rustref bench, single core, ProvingAssignment): %.1f ns/constraint → cuzk (%s)/bellperson = %.2f\n",
			rep.BellpersonNsRow, kind, rep.MedianNsPerRow/rep.BellpersonNsRow)
	}
	return exitOK
}

// compareSynth runs this binary and other alternately, one iteration per
// run and rounds times, and prints both medians and the ratio with its
// spread. The children get the flags given here (as parsed, so -x=v and
// -x v forms both work) except the A/B, output and profile flags.
func compareSynth(ctx context.Context, fs *flag.FlagSet, other string, rounds int, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "cuzk bench synth:", err)
		return exitError
	}
	rest := []string{"bench", "synth", "--json", "-i", "1"}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "compare", "i", "json", "cpuprofile", "memprofile", "trace":
		default:
			rest = append(rest, "--"+f.Name+"="+f.Value.String())
		}
	})
	rounds = max(rounds, 1)
	type result struct{ wall, cpu float64 }
	run := func(bin string) (result, error) {
		cmd := exec.CommandContext(ctx, bin, rest...)
		cmd.Stderr = stderr
		out, err := cmd.Output()
		if err != nil {
			return result{}, fmt.Errorf("%s: %w", bin, err)
		}
		var rep synthbench.Report
		if err := json.Unmarshal(out, &rep); err != nil {
			return result{}, fmt.Errorf("%s: %w", bin, err)
		}
		return result{rep.MedianNsPerRow, rep.MedianCPUNsPerRow}, nil
	}
	// CPU figures compare only when both builds report them (older ones
	// do not).
	var a, b, ratios, cpuA, cpuB, cpuRatios []float64
	for r := 0; r < rounds; r++ {
		// Alternate which build goes first, so warm-up and the machine's
		// drift fall on both alike.
		first, second := self, other
		if r%2 == 1 {
			first, second = other, self
		}
		x, err := run(first)
		if err != nil {
			fmt.Fprintln(stderr, "cuzk bench synth:", err)
			return exitError
		}
		y, err := run(second)
		if err != nil {
			fmt.Fprintln(stderr, "cuzk bench synth:", err)
			return exitError
		}
		if r%2 == 1 {
			x, y = y, x
		}
		a, b, ratios = append(a, x.wall), append(b, y.wall), append(ratios, x.wall/y.wall)
		line := fmt.Sprintf("round %d: this %.1f ns/constraint, other %.1f, ratio %.3f", r, x.wall, y.wall, x.wall/y.wall)
		if x.cpu > 0 && y.cpu > 0 {
			cpuA, cpuB, cpuRatios = append(cpuA, x.cpu), append(cpuB, y.cpu), append(cpuRatios, x.cpu/y.cpu)
			line += fmt.Sprintf("; CPU this %.1f, other %.1f, ratio %.3f", x.cpu, y.cpu, x.cpu/y.cpu)
		}
		fmt.Fprintln(stdout, line)
	}
	med := func(v []float64) float64 { slices.Sort(v); return v[(len(v)-1)/2] }
	fmt.Fprintf(stdout, "median: this %.1f, other %.1f ns/constraint; ratio this/other %.3f (min %.3f, max %.3f over %d rounds)\n",
		med(a), med(b), med(ratios), ratios[0], ratios[len(ratios)-1], rounds)
	if len(cpuRatios) > 0 {
		fmt.Fprintf(stdout, "median CPU: this %.1f, other %.1f ns/constraint; ratio this/other %.3f (min %.3f, max %.3f over %d rounds)\n",
			med(cpuA), med(cpuB), med(cpuRatios), cpuRatios[0], cpuRatios[len(cpuRatios)-1], len(cpuRatios))
	}
	return exitOK
}

// printThroughH prints a --through-h report, as JSON or as a table.
func printThroughH(stdout io.Writer, rep *synthbench.ThroughHReport, asJSON bool) {
	if asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Fprintln(stdout, string(b))
		return
	}
	gib := func(n int64) float64 { return float64(n) / (1 << 30) }
	fmt.Fprintf(stdout, "%s\n%d rows, %d inputs, %d aux variables, domain 2^%d\n", rep.Circuit, rep.Rows, rep.Inputs, rep.Aux, rep.DomainLog())
	fmt.Fprintf(stdout, "%-16s %10s %10s %12s %12s\n", "step", "wall", "cpu", "peak anon", "end anon")
	for _, s := range rep.Stages {
		fmt.Fprintf(stdout, "%-16s %10s %10s %9.2f GiB %9.2f GiB\n", s.Name, s.Wall.Round(10*time.Millisecond), s.CPU.Round(10*time.Millisecond), gib(s.PeakAnon), gib(s.EndAnon))
	}
	fmt.Fprintf(stdout, "peak anonymous RSS %.2f GiB; the engine reserves %.2f GiB per partition (its witness MSMs' scratch included)\n", gib(rep.PeakAnon), gib(rep.Estimate))
}

// startCPUProfile writes a CPU profile to path (none when path is empty)
// until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
