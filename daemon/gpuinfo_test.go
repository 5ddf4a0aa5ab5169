package daemon

import (
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/prover/gpu"
)

// TestWriteGPUInfo: without a device the answer is a "no CUDA devices"
// line and no error; with one, each device's line names its capability.
func TestWriteGPUInfo(t *testing.T) {
	var b strings.Builder
	usable, err := WriteGPUInfo(&b, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, derr := gpu.Devices(false); derr != nil {
		if usable != 0 || !strings.Contains(b.String(), "no CUDA devices") {
			t.Fatalf("no devices (%v): usable %d, output %q", derr, usable, b.String())
		}
		return
	}
	if !strings.Contains(b.String(), "compute capability") || !strings.Contains(b.String(), "? free") {
		t.Fatalf("usable %d, output %q", usable, b.String())
	}
}
