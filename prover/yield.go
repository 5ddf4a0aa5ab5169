package prover

import "context"

// Yield blocks while work more urgent than the caller's runs, and returns
// nil when the caller may go on, or ctx's error if ctx ends first. The
// engine hands one to the backend through the context of work that must
// give way (WithYield); a backend calls it at its yield points (the CPU
// backend: between FFTs, MSM chunks and MSM pieces; see
// groth16.ProveOptions.Yield). A backend whose device call cannot be
// interrupted (the CUDA backend) may ignore it: the urgent work then waits
// for that call.
type Yield func(ctx context.Context) error

type yieldKey struct{}

// WithYield returns ctx carrying y for the backend's Start and Finish.
// It is a context value, not a Backend argument, because it travels with
// one item's proving (the same backend serves urgent and ordinary work)
// and because wrappers (prover/checked) pass it on untouched.
func WithYield(ctx context.Context, y Yield) context.Context {
	return context.WithValue(ctx, yieldKey{}, y)
}

// YieldFrom returns the Yield ctx carries, or nil.
func YieldFrom(ctx context.Context) Yield {
	y, _ := ctx.Value(yieldKey{}).(Yield)
	return y
}

// Stage is told when each step of a backend's proving starts (part: the
// circuit's index in the batch; see groth16.ProveOptions.Stage). A
// benchmark passes one (WithStage) to measure time and memory per step.
type Stage func(part int, stage string)

type stageKey struct{}

// WithStage returns ctx carrying s for the backend's Start and Finish.
func WithStage(ctx context.Context, s Stage) context.Context {
	return context.WithValue(ctx, stageKey{}, s)
}

// StageFrom returns the Stage ctx carries, or nil.
func StageFrom(ctx context.Context) Stage {
	s, _ := ctx.Value(stageKey{}).(Stage)
	return s
}
