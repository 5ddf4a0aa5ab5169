package groth16

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// TestSetupContextStops: a setup cancelled while it multiplies stops
// before the next batch (no later phase starts) and returns the context's
// error; a setup whose context has already ended does nothing.
func TestSetupContextStops(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 1<<12 - 5, Inputs: 4, Seed: 3}
	for _, at := range []string{"lagrange", "tables", "h", "b_g2", "ic"} {
		ctx, cancel := context.WithCancel(context.Background())
		var phases []string
		_, err := SetupContext(ctx, c, fixedToxicWaste(), SetupOptions{Workers: 2, Progress: func(phase string, done float64) {
			if done == 0 {
				phases = append(phases, phase)
			}
			if phase == at && done == 0 {
				cancel()
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at %s: err %v", at, err)
		}
		if i := slices.Index(phases, at); i != len(phases)-1 {
			t.Errorf("cancelled at %s, phases started: %v", at, phases)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	if _, err := SetupContext(ctx, c, fixedToxicWaste(), SetupOptions{Progress: func(string, float64) { called = true }}); !errors.Is(err, context.Canceled) || called {
		t.Fatalf("setup under an ended context: err %v, progress called %v", err, called)
	}
}
