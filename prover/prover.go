// Package prover defines the interface between the engine and a Groth16
// proving device. The CPU backend (prover/cpu) runs on gnark-crypto; the
// CUDA backend (prover/gpu) implements the same interface and the optional
// ones of device.go (its parameters, its devices, closing it).
//
// Proving is split in two so that a device never idles between partitions:
// Start does the device-bound work (H via FFTs and the G1
// multi-exponentiations) and returns at once with a Pending; Finish does the
// rest (the G2 multi-exponentiation and proof assembly) and can run on a
// finaliser goroutine while the device starts the next partition.
package prover

import (
	"context"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Backend proves batches of same-shape circuits.
type Backend interface {
	// Name identifies the backend in logs and status ("cpu").
	Name() string
	// Start consumes the a/b/c vectors of parts (their input rows must have
	// been appended) and returns a handle to finish the proofs.
	Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (Pending, error)
}

// Pending is a batch whose device work is done.
type Pending interface {
	Finish(ctx context.Context) ([]groth16.Proof, error)
	// Times reports where the batch's time went (complete after Finish).
	Times() groth16.StageTimes
}
