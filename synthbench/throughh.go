package synthbench

import (
	"context"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/procmem"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ThroughHReport is what `cuzk bench synth --synthetic --through-h` reports:
// one partition synthesised as the engine synthesises it for the CPU
// prover (a and b sized to the domain, c omitted), its witness released as
// the prover releases it after the witness MSMs, then the H stage, with
// the time and memory of each step measured, and the engine's estimate of
// the partition's peak beside them.
type ThroughHReport struct {
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

// ThroughH measures c, described as what, through H; guard refuses a run
// that does not fit.
func ThroughH(ctx context.Context, c r1cs.Circuit, what string, workers int, guard func(int64) error) (*ThroughHReport, error) {
	counted, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		return nil, err
	}
	counted.AppendInputRows()
	shape := counted.Size()
	m, err := groth16.DomainSize(shape.Constraints)
	if err != nil {
		return nil, err
	}
	est, _ := groth16.ProveMemory(groth16.ProveShape{Domain: m, Inputs: shape.Inputs, Aux: shape.Aux, Mapped: true})
	if err := guard(est); err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rep := &ThroughHReport{Circuit: what, Rows: shape.Constraints, Inputs: shape.Inputs, Aux: shape.Aux, Domain: m, Estimate: est}
	rec := procmem.NewRecorder(50 * time.Millisecond)
	rec.Step("synthesis")
	pa := r1cs.NewAssignment(r1cs.Size{Constraints: m, Inputs: shape.Inputs, Aux: shape.Aux}, nil, r1cs.AssignmentOptions{OmitC: true})
	cs, err := r1cs.SynthesizeYielding(c, pa, func() error { return ctx.Err() })
	if err != nil {
		rec.Stop()
		return nil, err
	}
	cs.AppendInputRows()
	if err := ctx.Err(); err != nil {
		rec.Stop()
		return nil, err
	}
	rec.Step("release witness")
	pa.Aux = nil
	debug.FreeOSMemory()
	rec.Step("h")
	h, err := groth16.ComputeH(pa, workers)
	rep.Stages = rec.Stop()
	runtime.KeepAlive(h)
	if err != nil {
		return nil, err
	}
	for _, s := range rep.Stages {
		rep.PeakAnon = max(rep.PeakAnon, s.PeakAnon)
	}
	return rep, nil
}

// DomainLog is log2 of the report's domain.
func (r *ThroughHReport) DomainLog() int {
	n := 0
	for 1<<n < r.Domain {
		n++
	}
	return n
}
