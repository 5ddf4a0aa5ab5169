package cpu_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// BenchmarkYieldOverhead measures what the yield points cost a proof that
// is never paused: Start + Finish of test-k$CUZK_BENCH_LOG (default 18) on
// the CPU backend, under a context that cannot end and without a
// prover.Yield (no yield points: the MSMs in pieces of 2^22), and under a
// cancellable context with a Yield that returns at once (what every item
// of the engine carries: each yield point checks for a cancel, and for
// urgent work with the reserved lane), alternating in pairs (CUZK_BENCH_PAIRS, default 3) so that a
// change of machine load lands on both sides of a ratio. It reports the
// median per-pair ratio yield/plain. Parameters come from
// testparams.DefaultDir, generated once.
//
// The process's CPU time per proof is reported the same way: on a machine
// shared with other processes it is the steadier measure of work.
func BenchmarkYieldOverhead(b *testing.B) {
	k := 18
	if v, err := strconv.Atoi(os.Getenv("CUZK_BENCH_LOG")); err == nil {
		k = v
	}
	pairs := 3
	if v, err := strconv.Atoi(os.Getenv("CUZK_BENCH_PAIRS")); err == nil {
		pairs = v
	}
	dir := testparams.DefaultDir(os.LookupEnv)
	if err := testkind.WriteParams(dir, k); err != nil {
		b.Fatal(err)
	}
	p, err := groth16.LoadParamsFile(filepath.Join(dir, testkind.FileBase(k)+".params"), groth16.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	c := testkind.Circuit(k)
	rnd, _ := groth16.RandomRandomness(1)
	be := &cpu.Backend{}
	var cpuRatios []float64
	var lastCPU time.Duration
	prove := func(y prover.Yield) time.Duration {
		pa := r1cs.NewProvingAssignment(r1cs.Size{})
		cs, err := r1cs.Synthesize(c, pa)
		if err != nil {
			b.Fatal(err)
		}
		cs.AppendInputRows()
		ctx := context.Background()
		if y != nil {
			// As an engine item: a context that can end, which makes every
			// yield point a cancellation point too.
			var cancel context.CancelFunc
			ctx, cancel = context.WithCancel(prover.WithYield(ctx, y))
			defer cancel()
		}
		c := processCPU()
		t := time.Now()
		pend, err := be.Start(ctx, p, []*r1cs.ProvingAssignment{pa}, rnd)
		if err == nil {
			_, err = pend.Finish(ctx)
		}
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(t)
		lastCPU = processCPU() - c
		return d
	}
	noop := func(context.Context) error { return nil }
	for b.Loop() {
		var ratios []float64
		var plain, yield []time.Duration
		for i := range pairs {
			var a, y, ac, yc time.Duration
			if i%2 == 0 { // alternate which one goes first
				a, ac = prove(nil), lastCPU
				y, yc = prove(noop), lastCPU
			} else {
				y, yc = prove(noop), lastCPU
				a, ac = prove(nil), lastCPU
			}
			cpuRatios = append(cpuRatios, float64(yc)/float64(ac))
			plain, yield = append(plain, a), append(yield, y)
			ratios = append(ratios, float64(y)/float64(a))
		}
		slices.Sort(ratios)
		slices.Sort(cpuRatios)
		b.ReportMetric(ratios[len(ratios)/2], "yield/plain")
		b.ReportMetric(cpuRatios[len(cpuRatios)/2], "cpu-yield/plain")
		b.Logf("2^%d: plain %v, with yield points %v; per-pair ratio median %.3f [%.3f–%.3f]; process CPU ratio %.3f [%.3f–%.3f]",
			k, plain, yield, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1],
			cpuRatios[len(cpuRatios)/2], cpuRatios[0], cpuRatios[len(cpuRatios)-1])
	}
}

// processCPU is the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
