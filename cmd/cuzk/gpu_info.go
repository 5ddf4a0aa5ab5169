package main

import (
	"context"
	"fmt"
	"io"

	"github.com/cuzk-dev/cuzk/daemon"
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
	usable, err := daemon.WriteGPUInfo(stdout, !*noFree)
	if err != nil {
		fmt.Fprintf(stderr, "cuzk gpu-info: %v\n", err)
		return exitError
	}
	if usable == 0 {
		return exitNoGPU
	}
	return exitOK
}
