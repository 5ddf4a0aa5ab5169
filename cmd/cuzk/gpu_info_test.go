package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/prover/gpu"
)

func TestGPUInfo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"gpu-info", "--no-free"}, &stdout, &stderr)
	if _, err := gpu.Devices(false); err != nil {
		if code != exitNoGPU || !strings.Contains(stdout.String(), "no CUDA devices") {
			t.Fatalf("no devices (%v): exit %d, stdout %q, stderr %q", err, code, stdout.String(), stderr.String())
		}
		return
	}
	if code != exitOK || !strings.Contains(stdout.String(), "compute capability") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
