package engine_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// padded is a test request whose options carry n bytes of trailing
// whitespace (valid JSON), to make a request of a chosen size.
func padded(id string, n int) *engine.Request {
	r := testReq(id, 10, testkind.Options{})
	r.VanillaProof = append(r.VanillaProof, strings.Repeat(" ", n)...)
	return r
}

// TestIntakeBound: requests waiting for a plan slot or being planned hold
// their bytes outside the memory budget; beyond max_intake_bytes a
// submission is refused with ErrIntakeFull at once, a single request of
// any size is taken when the intake is empty, and the intake returns to
// zero when planning ends.
func TestIntakeBound(t *testing.T) {
	gk := newGateKind(ignoreCtx)
	r := newRigWith(t, engine.Config{MaxIntakeBytes: 1000, PlanConcurrency: 1}, rigOptions{kind: gk})
	intake := func() int64 { return r.eng.Status().Limits.IntakeBytes }

	errs := make(chan error, 2)
	submit := func(req *engine.Request) {
		go func() { _, err := r.eng.Submit(context.Background(), req); errs <- err }()
	}
	a := padded("a", 600)
	submit(a)
	waitPlanning(t, r.eng, "a", 0)
	if got := intake(); got < 600 || got > 700 {
		t.Fatalf("intake %d with one 600-byte request planning", got)
	}
	// 600 + 600 > 1000: refused at once, naming the sizes.
	_, err := r.eng.Submit(context.Background(), padded("b", 600))
	if !errors.Is(err, engine.ErrIntakeFull) || !strings.Contains(err.Error(), "max_intake_bytes") {
		t.Fatalf("second large request: %v", err)
	}
	// A small one fits beside it; it waits for the plan slot, in intake.
	submit(padded("c", 100))
	waitFor(t, "c in intake", 5*time.Second, func() bool { return intake() > 700 })
	gk.open()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := intake(); got != 0 {
		t.Fatalf("intake %d after planning ended", got)
	}
	for _, id := range []string{"a", "c"} {
		if res := mustAwait(t, r.eng, id); res.State != engine.StateCompleted {
			t.Fatalf("%s: %v %v", id, res.State, res.Err)
		}
	}
	// Alone in intake, a request over the bound is taken.
	mustSubmit(t, r.eng, padded("big", 5000))
	if res := mustAwait(t, r.eng, "big"); res.State != engine.StateCompleted {
		t.Fatalf("big: %v %v", res.State, res.Err)
	}
	if st := r.eng.Status().Limits; st.IntakeBytes != 0 || st.MaxIntakeBytes != 1000 {
		t.Fatalf("limits %+v", st)
	}
}

// TestReturnMemoryWhenIdle: with ReturnMemory, the heap freed by a burst
// of large rejected requests goes back to the operating system once the
// engine has settled idle, instead of staying resident.
func TestReturnMemoryWhenIdle(t *testing.T) {
	r := newRigWith(t, engine.Config{ReturnMemory: true}, rigOptions{})
	for i := range 4 {
		req := testReq("garbage", 10, testkind.Options{})
		req.VanillaProof = make([]byte, 32<<20) // 32 MiB of zeros: not JSON
		if _, err := r.eng.Submit(context.Background(), req); !errors.Is(err, engine.ErrInvalidRequest) {
			t.Fatalf("garbage %d: %v", i, err)
		}
	}
	waitFor(t, "memory returned", 10*time.Second, func() bool {
		return strings.Contains(r.logs.String(), "freed memory returned to the operating system")
	})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// Freed but still resident: what the runtime would hand back later
	// (under 0.5 MiB here after FreeOSMemory; 38 MiB a second and a half
	// after the same burst without it).
	if kept := ms.HeapIdle - ms.HeapReleased; kept > 8<<20 {
		t.Fatalf("%d MiB of freed heap still resident after the engine went idle", kept>>20)
	}
}
