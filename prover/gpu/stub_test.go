//go:build !cuda

package gpu

import (
	"context"
	"errors"
	"testing"
)

func TestStubWithoutCUDA(t *testing.T) {
	if Built {
		t.Fatal("Built in a build without -tags cuda")
	}
	if _, err := New(Options{Paths: &Paths{}}); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("New: %v, want ErrNoCUDA", err)
	}
	if _, err := Devices(true); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("Devices: %v, want ErrNoCUDA", err)
	}
	var b *Backend
	if _, err := b.Start(context.Background(), nil, nil, nil); !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("Start: %v, want ErrNoCUDA", err)
	}
	if ErrNoCUDA.Error() != "gpu: built without -tags cuda" {
		t.Fatalf("message %q", ErrNoCUDA)
	}
}
