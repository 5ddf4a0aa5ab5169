//go:build cuda

package gpu

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// skipIfDevice skips a test of the no-device path on a machine that has one
// (the device tests cover it there).
func skipIfDevice(t *testing.T) {
	t.Helper()
	if devs, err := Devices(false); err == nil {
		t.Skipf("%d CUDA device(s) present", len(devs))
	}
}

// TestNoDevice: without a device (or a driver) every entry point returns an
// error matching ErrNoDevice; nothing crashes.
func TestNoDevice(t *testing.T) {
	skipIfDevice(t)
	if !Built {
		t.Fatal("Built is false under -tags cuda")
	}
	_, err := Devices(true)
	if !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Devices: %v, want ErrNoDevice", err)
	}
	var ce *CUDAError
	if !errors.As(err, &ce) && !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Devices: %T %v", err, err)
	}
	t.Logf("Devices: %v", err)
	if _, err := New(Options{Paths: &Paths{}}); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("New: %v, want ErrNoDevice", err)
	}
	if _, err := New(Options{Paths: &Paths{}, Devices: []int{0}}); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("New with devices = [0]: %v, want ErrNoDevice", err)
	}
	if _, err := New(Options{}); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("New without Paths: %v, want ErrNoDevice", err)
	}
	if n := cuzkNGPUs(); n != 0 {
		t.Fatalf("sppark sees %d GPUs", n)
	}

	// Past New (which refuses), the kernels refuse too: supraseal's SRS
	// reader and prover check for devices first.
	c := mixed(200, 1)
	p, path := setup(t, c, "one")
	ps := &Paths{}
	b := newBackend(ps, nil)
	defer b.Close()
	pa := testcircuits.Assignment(t, c)
	rnd := make([]groth16.Randomness, 1)
	if _, err := b.Start(context.Background(), p, []*r1cs.ProvingAssignment{pa}, rnd); !errors.Is(err, ErrUnknownParams) {
		t.Fatalf("Start with unregistered params: %v, want ErrUnknownParams", err)
	}
	if err := ps.Register(p, path); err != nil {
		t.Fatal(err)
	}
	if err := b.Load(p); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Load: %v, want ErrNoDevice", err)
	}
	if _, err := b.Start(context.Background(), p, []*r1cs.ProvingAssignment{pa}, rnd); !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Start: %v, want ErrNoDevice", err)
	} else {
		t.Logf("Start: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Start(ctx, p, []*r1cs.ProvingAssignment{pa}, rnd); !errors.Is(err, context.Canceled) {
		t.Fatalf("Start after cancel: %v", err)
	}
	// The assignment is read, never consumed.
	if len(pa.A) == 0 || len(pa.Aux) == 0 {
		t.Fatal("Start consumed the assignment")
	}
}
