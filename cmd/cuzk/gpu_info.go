package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cuzk-dev/cuzk/prover/gpu"
)

// exitNoGPU is gpu-info's exit code when there is no CUDA device to use
// (none present, no driver, or a build without -tags cuda).
const exitNoGPU = 3

// runGPUInfo lists the CUDA devices the runtime sees.
func runGPUInfo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("gpu-info", stderr)
	noFree := fs.Bool("no-free", false, "skip the free-memory query (it creates a context on every device)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return failer(stderr, "cuzk gpu-info")("unexpected arguments %q", fs.Args())
	}
	devs, err := gpu.Devices(!*noFree)
	switch {
	case errors.Is(err, gpu.ErrNoCUDA):
		fmt.Fprintln(stdout, "no CUDA devices: this cuzk was built without -tags cuda (scripts/build-gpu.sh builds one with it)")
		return exitNoGPU
	case errors.Is(err, gpu.ErrNoDevice):
		fmt.Fprintf(stdout, "no CUDA devices (%v)\n", err)
		return exitNoGPU
	case err != nil:
		fmt.Fprintf(stderr, "cuzk gpu-info: %v\n", err)
		return exitError
	}
	usable := 0
	for _, d := range devs {
		free := "?"
		if !*noFree {
			free = fmt.Sprintf("%.1f GiB", float64(d.FreeMemory)/(1<<30))
		}
		note := ""
		if !d.Usable {
			note = "  (not usable: needs compute capability 7.0+ with cooperative launch)"
		} else {
			usable++
		}
		fmt.Fprintf(stdout, "%d: %s, compute capability %s, %d SMs, memory %.1f GiB total, %s free%s\n",
			d.Index, d.Name, d.ComputeCapability(), d.Multiprocessors, float64(d.TotalMemory)/(1<<30), free, note)
	}
	if usable == 0 {
		return exitNoGPU
	}
	return exitOK
}
