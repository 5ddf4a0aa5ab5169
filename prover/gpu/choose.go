package gpu

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/checked"
)

// Choice is what the daemon knows when it picks its proving backend.
type Choice struct {
	// Devices are the configured CUDA devices ([gpus] devices); empty
	// means every usable one.
	Devices []int
	// Required makes a missing device (or a build without -tags cuda) an
	// error; otherwise the daemon proves on the CPU and logs why.
	Required bool
	// Paths goes to Options.Paths.
	Paths *Paths
	// CPU proves when there is no device, and redoes GPU proofs that fail
	// their check.
	CPU prover.Backend
	// OnRetry counts GPU proofs redone on the CPU (a metric).
	OnRetry func(reason checked.Reason, circuit int, err error)
	Log     *slog.Logger
}

// Choose returns the backend to prove on: the CUDA backend with every
// proof verified on the CPU and failures redone there once (checked), when
// a device is usable; the CPU backend otherwise, unless c.Required. The
// *Backend is nil when the CPU was chosen; the caller closes it.
func Choose(c Choice) (prover.Backend, *Backend, error) {
	if c.CPU == nil {
		return nil, nil, errors.New("gpu: Choice.CPU is required")
	}
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g, err := New(Options{Devices: c.Devices, Paths: c.Paths})
	if err != nil {
		if c.Required || !(errors.Is(err, ErrNoDevice) || errors.Is(err, ErrNoCUDA)) {
			return nil, nil, fmt.Errorf("gpu backend: %w", err)
		}
		log.Warn("no usable CUDA device: proving on the CPU", "err", err)
		return c.CPU, nil, nil
	}
	for _, d := range g.Devices() {
		log.Info("proving on CUDA device", "index", d.Index, "name", d.Name,
			"compute_capability", d.ComputeCapability(), "memory_bytes", d.TotalMemory)
	}
	return &checked.Backend{Primary: g, Fallback: c.CPU, OnRetry: c.OnRetry}, g, nil
}
