package server_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// TestServeHTTPAfterShutdown: a status listener whose Serve starts only
// after Shutdown (the daemon starts it on its own goroutine) is closed at
// once instead of serving forever.
func TestServeHTTPAfterShutdown(t *testing.T) {
	d := startDaemon(t, "tcp", engine.Config{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() { done <- d.srv.ServeHTTP(l) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("ServeHTTP after Shutdown still serving")
	}
	if _, err := http.Get("http://" + l.Addr().String() + "/status"); err == nil {
		t.Fatal("the status listener answered after Shutdown")
	}
}

// TestShutdownKeepsItsDeadline: an RPC that never ends by itself (a preload
// waiting for memory) and an HTTP connection that never sends its request
// cannot stretch Shutdown beyond its deadline.
func TestShutdownKeepsItsDeadline(t *testing.T) {
	d := startDaemon(t, "tcp", engine.Config{}, 0)
	all, ok := d.budget.TryAcquire(d.budget.Total())
	if !ok {
		t.Fatal("budget not empty")
	}
	defer all.Close()
	preload := make(chan error, 1)
	go func() { _, _, err := d.c.Preload(context.Background(), "test-k10"); preload <- err }()
	waitFor(t, "preload waiting for memory", func() bool { return d.budget.Waiting() == 1 })
	conn, err := net.Dial("tcp", d.hl.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /status HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)

	const deadline = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	_ = d.srv.Shutdown(ctx)
	if el := time.Since(start); el > deadline+700*time.Millisecond {
		t.Fatalf("Shutdown took %v with a deadline of %v", el, deadline)
	}
	select {
	case err := <-preload:
		if err == nil {
			t.Fatal("preload succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the preload call hangs after Shutdown")
	}
}

// TestLoadedSRSListsOnlyHot: GetStatus's loaded_srs lists resident
// parameters only; evicted (warm) ones are not loaded.
func TestLoadedSRSListsOnlyHot(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{}, 0)
	ctx := context.Background()
	if _, _, err := d.c.Preload(ctx, "test-k10"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.c.Preload(ctx, "test-k12"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.c.Evict(ctx, "test-k12"); err != nil {
		t.Fatal(err)
	}
	st, err := d.c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l := st.GetLoadedSrs(); len(l) != 1 || l[0].GetCircuitId() != "test-k10" || l[0].GetTier() != cuzkv1.SRSStatus_HOT {
		t.Fatalf("loaded_srs %v, want test-k10 (hot) only", l)
	}
}

// TestTooManyJobsIsResourceExhausted: beyond max_pending, SubmitProof is
// refused with RESOURCE_EXHAUSTED.
func TestTooManyJobsIsResourceExhausted(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{MaxPending: 1, SynthesisWorkers: 1}, 0)
	ctx := context.Background()
	if _, err := d.c.Submit(ctx, client.TestRequest("slow", 10, opts(testkind.Options{SynthesisDelayMS: 300}))); err != nil {
		t.Fatal(err)
	}
	if _, err := d.c.Submit(ctx, client.TestRequest("more", 10, nil)); code(err) != codes.ResourceExhausted {
		t.Fatalf("submit beyond max_pending: %v", err)
	}
	if _, err := d.c.Await(ctx, "slow", 0); err != nil {
		t.Fatal(err)
	}
}

// TestShutdownDeadlineAnswersUnavailable: every call still in flight at
// the shutdown deadline ends with Unavailable and the shutdown reason (the
// cause of Shutdown's context), not a transport error: a Prove and an
// AwaitProof on jobs the deadline aborts, a PreloadSRS waiting for memory
// and a health Watch stream.
func TestShutdownDeadlineAnswersUnavailable(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{SynthesisWorkers: 1}, 0)
	ctx := context.Background()
	long := opts(testkind.Options{Partitions: 2, SynthesisDelayMS: 60_000})
	if _, err := d.c.Submit(ctx, client.TestRequest("submitted", 10, long)); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	go func() {
		_, err := d.c.Prove(ctx, client.TestRequest("proved", 10, long))
		errs <- fmt.Errorf("prove: %w", err)
	}()
	go func() { _, err := d.c.Await(ctx, "submitted", 0); errs <- fmt.Errorf("await: %w", err) }()
	waitFor(t, "both jobs waited on", func() bool {
		st := d.eng.Status()
		return len(st.Jobs) == 2 && st.Jobs[0].Waiters == 1 && st.Jobs[1].Waiters == 1
	})
	// Nothing else fits in the budget, so the preload waits.
	all, ok := d.budget.TryAcquire(d.budget.Total() - d.budget.Used())
	if !ok {
		t.Fatal("budget")
	}
	defer all.Close()
	go func() { _, _, err := d.c.Preload(ctx, "test-k12"); errs <- fmt.Errorf("preload: %w", err) }()
	waitFor(t, "preload waiting for memory", func() bool { return d.budget.Waiting() == 1 })
	watch, err := healthpb.NewHealthClient(d.c.Conn()).Watch(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}

	reason := errors.New("terminated signal received; --shutdown-timeout 300ms passed")
	sctx, cancel := context.WithTimeoutCause(context.Background(), 300*time.Millisecond, reason)
	defer cancel()
	start := time.Now()
	_ = d.srv.Shutdown(sctx)
	if el := time.Since(start); el > 300*time.Millisecond+time.Second {
		t.Fatalf("Shutdown took %v", el)
	}
	for range 3 {
		err := <-errs
		if code(err) != codes.Unavailable || !strings.Contains(err.Error(), reason.Error()) || strings.Contains(err.Error(), "transport") {
			t.Errorf("%v: want Unavailable with the shutdown reason", err)
		}
	}
	// The watch saw NOT_SERVING first, then the end.
	for {
		resp, err := watch.Recv()
		if err == nil {
			if resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
				t.Errorf("health during shutdown: %v", resp.GetStatus())
			}
			continue
		}
		if code(err) != codes.Unavailable || !strings.Contains(err.Error(), reason.Error()) {
			t.Errorf("health watch: %v, want Unavailable with the shutdown reason", err)
		}
		break
	}
}
