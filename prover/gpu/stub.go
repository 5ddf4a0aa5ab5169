//go:build !cuda

package gpu

import (
	"context"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Built reports whether this binary has the CUDA backend.
const Built = false

// Backend is the CUDA backend; in this build it cannot be constructed.
type Backend struct{}

// New returns ErrNoCUDA: the binary was built without -tags cuda.
func New(Options) (*Backend, error) { return nil, ErrNoCUDA }

// Devices returns ErrNoCUDA: the binary was built without -tags cuda.
func Devices(withFree bool) ([]Device, error) { return nil, ErrNoCUDA }

// Name implements prover.Backend.
func (*Backend) Name() string { return "cuda" }

// Start implements prover.Backend; it always fails in this build.
func (*Backend) Start(context.Context, *groth16.Params, []*r1cs.ProvingAssignment, []groth16.Randomness) (prover.Pending, error) {
	return nil, ErrNoCUDA
}

// Devices returns the devices the backend proves on.
func (*Backend) Devices() []Device { return nil }

// Load returns ErrNoCUDA in this build.
func (*Backend) Load(*groth16.Params) error { return ErrNoCUDA }

// Evict drops supraseal's copy of a .params file.
func (*Backend) Evict(string) {}

// ParamsLoaded returns ErrNoCUDA in this build.
func (*Backend) ParamsLoaded(*groth16.Params, string) error { return ErrNoCUDA }

// ParamsEvicted does nothing in this build.
func (*Backend) ParamsEvicted(*groth16.Params, string) {}

// Close releases everything the backend holds.
func (*Backend) Close() error { return nil }
