package testkind

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// FuzzPlan: the test kind decodes vanilla_proof (JSON options) and the
// request's sizes from the wire of a daemon started with
// --enable-test-circuits. No input may panic, take long or allocate more
// than its size allows (a registered_proof of 26 once drew a 2^26-row
// plan, 3 GB, to pick four inputs); a rejection wraps
// engine.ErrInvalidRequest, and an accepted plan is within the limits.
// Seeds: testdata/fuzz/FuzzPlan.
func FuzzPlan(f *testing.F) {
	f.Add([]byte(`{"partitions":64,"synthesis_repeat":1000}`), uint8(MaxLog), true)
	f.Add([]byte(`{"partitions":2,"fail_partition":1,"corrupt_inputs":true}`), uint8(10), true)
	f.Add([]byte(`[`+strings.Repeat(`{"partitions":1},`, 1<<16)+`]`), uint8(10), true)
	kind := New()
	f.Fuzz(func(t *testing.T, options []byte, k uint8, matchSize bool) {
		req := &engine.Request{Kind: proofkind.Test, RegisteredProof: uint64(k), VanillaProof: options}
		if matchSize && k < 64 {
			req.SectorSize = 1 << k
		}
		// A fresh Planner each time: the first request for a size pays for
		// its public inputs, later ones find them cached.
		fuzzcheck.Check(t, len(options), func() { _, _ = New().Plan(context.Background(), req) })
		plan, err := kind.Plan(context.Background(), req)
		if err != nil {
			if !errors.Is(err, engine.ErrInvalidRequest) {
				t.Fatalf("rejection does not wrap ErrInvalidRequest: %v", err)
			}
			return
		}
		if plan.CircuitID != CircuitID(int(k)) || len(plan.Partitions) < 1 || len(plan.Partitions) > MaxPartitions {
			t.Fatalf("plan %s with %d partitions from k=%d", plan.CircuitID, len(plan.Partitions), k)
		}
		for _, p := range plan.Partitions {
			if len(p.PublicInputs) != Inputs {
				t.Fatalf("%d public inputs", len(p.PublicInputs))
			}
		}
	})
}
