package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// wantDraining checks that err is the draining refusal, code and message
// both: clients recognise it by them (cuzkv1.DrainingMessage).
func wantDraining(t *testing.T, what string, err error) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.Unavailable || st.Message() != cuzkv1.DrainingMessage {
		t.Errorf("%s while draining: %v, want Unavailable %q", what, err, cuzkv1.DrainingMessage)
	}
}

func metricLine(t *testing.T, d *daemon, name string) string {
	t.Helper()
	resp, err := http.Get(d.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, name+" ") {
			return l
		}
	}
	t.Fatalf("/metrics has no %s", name)
	return ""
}

// TestDrainIsVisible: while a shutdown waits for a running job, the daemon
// still answers over gRPC. GetStatus, GET /status and the cuzk_draining
// gauge say it is draining, the running job can still be awaited, and
// every new SubmitProof and Prove (a retry of the running job's id among
// them) is refused with Unavailable "daemon draining, retry on another"
// rather than a transport error.
func TestDrainIsVisible(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{SynthesisWorkers: 1}, 0)
	ctx := context.Background()
	long := opts(testkind.Options{Partitions: 2, SynthesisDelayMS: 60_000})
	if _, err := d.c.Submit(ctx, client.TestRequest("held", 10, long)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "job in synthesis", func() bool { return d.eng.Status().Pipeline.Synthesizing == 1 })
	st, err := d.c.Status(ctx)
	if err != nil || st.GetDraining() {
		t.Fatalf("GetStatus before the shutdown: draining %v, %v", st.GetDraining(), err)
	}
	if l := metricLine(t, d, "cuzk_draining"); l != "cuzk_draining 0" {
		t.Errorf("before the shutdown: %q", l)
	}

	sctx, endDrain := context.WithTimeout(ctx, time.Minute)
	defer endDrain()
	stopped := make(chan struct{})
	go func() {
		_ = d.srv.Shutdown(sctx)
		close(stopped)
	}()
	waitFor(t, "the engine draining", func() bool { return d.eng.Status().Draining })

	if st, err = d.c.Status(ctx); err != nil || !st.GetDraining() {
		t.Errorf("GetStatus while draining: draining %v, %v", st.GetDraining(), err)
	}
	if doc := getStatusDoc(t, d); !doc.Draining || len(doc.Jobs) != 1 {
		t.Errorf("/status while draining: draining %v, %d jobs", doc.Draining, len(doc.Jobs))
	}
	if l := metricLine(t, d, "cuzk_draining"); l != "cuzk_draining 1" {
		t.Errorf("while draining: %q", l)
	}
	// The generated client, so that the status is the wire's as it came.
	rpc := d.c.RPC()
	_, err = rpc.SubmitProof(ctx, client.TestRequest("new", 10, nil))
	wantDraining(t, "SubmitProof", err)
	_, err = rpc.Prove(ctx, &cuzkv1.ProveRequest{Submit: client.TestRequest("new", 10, nil)})
	wantDraining(t, "Prove", err)
	_, err = rpc.Prove(ctx, &cuzkv1.ProveRequest{Submit: client.TestRequest("held", 10, long)})
	wantDraining(t, "Prove of the running job's id", err)
	if r, err := d.c.Await(ctx, "held", 20*time.Millisecond); r.GetStatus() != cuzkv1.AwaitProofResponse_TIMEOUT {
		t.Errorf("AwaitProof of the running job while draining: %v %v, want TIMEOUT", r.GetStatus(), err)
	}

	endDrain() // the deadline: the job is aborted and gRPC stops
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("Shutdown did not return after its deadline")
	}
	if _, err := d.c.Status(ctx); err == nil {
		t.Error("GetStatus answered after Shutdown returned")
	}
}
