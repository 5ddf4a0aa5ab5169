package gpu

import (
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/prover/cpu"
)

// TestChooseWithoutDevice: with no usable device (this machine, with or
// without -tags cuda) the daemon falls back to the CPU unless a GPU is
// required, and then fails with an error that says why; it never crashes.
func TestChooseWithoutDevice(t *testing.T) {
	if devs, err := Devices(false); err == nil {
		t.Skipf("%d CUDA device(s) present", len(devs))
	}
	c := &cpu.Backend{}
	for _, devices := range [][]int{nil, {0}} {
		be, g, err := Choose(Choice{Devices: devices, Paths: &Paths{}, CPU: c})
		if err != nil || be != c || g != nil {
			t.Fatalf("devices %v, not required: %v, %v, %v; want the CPU backend", devices, be, g, err)
		}
		_, _, err = Choose(Choice{Devices: devices, Required: true, Paths: &Paths{}, CPU: c})
		if !errors.Is(err, ErrNoDevice) && !errors.Is(err, ErrNoCUDA) {
			t.Fatalf("devices %v, required: %v; want ErrNoDevice or ErrNoCUDA", devices, err)
		}
	}
	if _, _, err := Choose(Choice{Paths: &Paths{}}); err == nil {
		t.Fatal("Choose without a CPU backend accepted")
	}
}
