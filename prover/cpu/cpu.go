// Package cpu is the CPU proving backend, on gnark-crypto.
package cpu

import (
	"context"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Backend proves on the CPU with a fixed number of worker goroutines.
type Backend struct {
	// Workers bounds the goroutines of one Start or Finish (0 means
	// GOMAXPROCS). The engine sets it from its CPU budget.
	Workers int
}

// Name implements prover.Backend.
func (b *Backend) Name() string { return "cpu" }

// Start implements prover.Backend. A prover.Yield in ctx (prover.WithYield)
// is called at the prover's yield points, in Start and in Finish.
func (b *Backend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	opt := groth16.ProveOptions{Workers: b.Workers}
	if y := prover.YieldFrom(ctx); y != nil {
		opt.Yield = y
	}
	if s := prover.StageFrom(ctx); s != nil {
		opt.Stage = s
	}
	pend, err := groth16.Start(ctx, p, parts, rnd, opt)
	if err != nil {
		return nil, err
	}
	return pending{pend}, nil
}

type pending struct{ p *groth16.Pending }

// Finish implements prover.Pending: the proofs' assembly (Start ran every
// multi-exponentiation).
func (p pending) Finish(ctx context.Context) ([]groth16.Proof, error) { return p.p.Finish(ctx) }
func (p pending) Times() groth16.StageTimes                           { return p.p.Times }
