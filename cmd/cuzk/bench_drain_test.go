package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
)

// TestBenchSingleDraining: against a daemon that drains (SIGTERM while it
// holds a long job), the progress line and `bench status` say DRAINING,
// and `bench single`
// reports the refusal as such: REJECTED, no job id, the reason in words,
// exit code 2; not a bare transport error with an empty job id.
func TestBenchSingleDraining(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB", "--shutdown-timeout", "1m")
	c, err := client.Dial(d.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	long, _ := json.Marshal(testkind.Options{SynthesisDelayMS: 60_000})
	if _, err := c.Submit(ctx, client.TestRequest("held", 10, long)); err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() {
		d.stop()
		close(stopped)
	}()
	for {
		st, err := c.Status(ctx)
		if err != nil {
			t.Fatalf("GetStatus while the daemon drains: %v", err)
		}
		if st.GetDraining() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if b := daemonBrief(ctx, c); !strings.HasPrefix(b, "daemon DRAINING (shutting down: finishing its jobs, refusing new ones): test 0 queued/1 running") &&
		!strings.HasPrefix(b, "daemon DRAINING (shutting down: finishing its jobs, refusing new ones): test 1 queued/0 running") {
		t.Errorf("progress line %q", b)
	}
	code, out, stderr := d.bench(t, "status")
	if code != exitOK || !strings.Contains(out, "\nDRAINING:         shutting down; finishing its jobs, refusing new ones") {
		t.Errorf("bench status while draining: exit %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = d.bench(t, "single", "-t", "test")
	if code != exitError {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitError, out, stderr)
	}
	for _, want := range []string{"status:          REJECTED\n", "job_id:          (none: the daemon made no job)\n",
		"error:           the daemon is draining (shutting down: it finishes its jobs and takes no new ones); send the request to another daemon (rpc error: code = Unavailable desc = daemon draining, retry on another)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Ends the drain: the daemon stops once its last job is final.
	if _, err := c.Cancel(ctx, "held"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	case <-ctx.Done():
		t.Fatal("the daemon did not stop after its last job ended")
	}
}
