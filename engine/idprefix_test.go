package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// TestIDPrefix: the same request id under two prefixes is two jobs, a
// generated id carries the prefix too, and a job is found only by its
// prefixed id.
func TestIDPrefix(t *testing.T) {
	r := newRig(t, engine.Config{}, 0, 0)
	ctx := context.Background()
	a := testReq("porep-1-2", 10, testkind.Options{})
	a.IDPrefix = "a/"
	b := testReq("porep-1-2", 10, testkind.Options{})
	b.IDPrefix = "b/"
	ra, err := r.eng.Submit(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := r.eng.Submit(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ra.JobID != "a/porep-1-2" || rb.JobID != "b/porep-1-2" || rb.Attached {
		t.Fatalf("job ids %q %q (attached %v), want two jobs", ra.JobID, rb.JobID, rb.Attached)
	}
	if _, err := r.eng.Await(ctx, "porep-1-2", 0); !errors.Is(err, engine.ErrJobNotFound) {
		t.Fatalf("Await without prefix: %v, want ErrJobNotFound", err)
	}
	for _, id := range []string{ra.JobID, rb.JobID} {
		if res, err := r.eng.Await(ctx, id, 0); err != nil || res.State != engine.StateCompleted {
			t.Fatalf("Await(%s) = %v, %v", id, res.State, err)
		}
	}
	anon := testReq("", 10, testkind.Options{})
	anon.IDPrefix = "a/"
	res, err := r.eng.Prove(ctx, anon)
	if err != nil || !strings.HasPrefix(res.JobID, "a/") || len(res.JobID) != len("a/")+36 {
		t.Fatalf("generated id %q (%v), want a/<uuid>", res.JobID, err)
	}
	r.waitIdleBudget(t)
}
