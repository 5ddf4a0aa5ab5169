package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/procmem"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// throughHReport is what `cuzk bench synth --synthetic --through-h` prints:
// one partition synthesised as the engine synthesises it for the CPU
// prover (a and b sized to the domain, c omitted), its witness released as
// the prover releases it after the witness MSMs, then the H stage, with
// the time and memory of each step measured, and the engine's estimate of
// the partition's peak beside them.
type throughHReport struct {
	Circuit  string          `json:"circuit"`
	Rows     int             `json:"rows"`
	Inputs   int             `json:"inputs"`
	Aux      int             `json:"aux"`
	Domain   int             `json:"domain"`
	Stages   []procmem.Stage `json:"stages"`
	Estimate int64           `json:"engine_estimate_bytes"` // groth16.ProveMemory (resident MSM scratch aside: mapped)
	// PeakAnon is the largest anonymous RSS of any step; the witness MSMs
	// (not run here: they need the parameters) add their scratch to the
	// synthesis step's memory, see the estimate.
	PeakAnon int64 `json:"peak_anon_bytes"`
}

// runThroughH measures c through H; guard refuses a run that does not fit.
func runThroughH(ctx context.Context, c r1cs.Circuit, what string, workers int, guard func(int64) error, asJSON bool, stdout io.Writer) error {
	counted, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		return err
	}
	counted.AppendInputRows()
	shape := counted.Size()
	m, err := groth16.DomainSize(shape.Constraints)
	if err != nil {
		return err
	}
	est, _ := groth16.ProveMemory(groth16.ProveShape{Domain: m, Inputs: shape.Inputs, Aux: shape.Aux, Mapped: true})
	if err := guard(est); err != nil {
		return err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rep := throughHReport{Circuit: what, Rows: shape.Constraints, Inputs: shape.Inputs, Aux: shape.Aux, Domain: m, Estimate: est}
	rec := procmem.NewRecorder(50 * time.Millisecond)
	rec.Step("synthesis")
	pa := r1cs.NewAssignment(r1cs.Size{Constraints: m, Inputs: shape.Inputs, Aux: shape.Aux}, nil, r1cs.AssignmentOptions{OmitC: true})
	cs, err := r1cs.SynthesizeYielding(c, pa, func() {})
	if err != nil {
		rec.Stop()
		return err
	}
	cs.AppendInputRows()
	if err := ctx.Err(); err != nil {
		rec.Stop()
		return err
	}
	rec.Step("release witness")
	pa.Aux = nil
	debug.FreeOSMemory()
	rec.Step("h")
	h, err := groth16.ComputeH(pa, workers)
	rep.Stages = rec.Stop()
	runtime.KeepAlive(h)
	if err != nil {
		return err
	}
	for _, s := range rep.Stages {
		rep.PeakAnon = max(rep.PeakAnon, s.PeakAnon)
	}
	if asJSON {
		b, _ := json.MarshalIndent(rep, "", "  ")
		_, err := fmt.Fprintln(stdout, string(b))
		return err
	}
	gib := func(n int64) float64 { return float64(n) / (1 << 30) }
	fmt.Fprintf(stdout, "%s\n%d rows, %d inputs, %d aux variables, domain 2^%d\n", what, shape.Constraints, shape.Inputs, shape.Aux, bitsLen(m))
	fmt.Fprintf(stdout, "%-16s %10s %10s %12s %12s\n", "step", "wall", "cpu", "peak anon", "end anon")
	for _, s := range rep.Stages {
		fmt.Fprintf(stdout, "%-16s %10s %10s %9.2f GiB %9.2f GiB\n", s.Name, s.Wall.Round(10*time.Millisecond), s.CPU.Round(10*time.Millisecond), gib(s.PeakAnon), gib(s.EndAnon))
	}
	fmt.Fprintf(stdout, "peak anonymous RSS %.2f GiB; the engine reserves %.2f GiB per partition (its witness MSMs' scratch included)\n", gib(rep.PeakAnon), gib(est))
	return nil
}

func bitsLen(m int) int {
	n := 0
	for 1<<n < m {
		n++
	}
	return n
}
