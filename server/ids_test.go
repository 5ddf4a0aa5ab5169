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
	"github.com/cuzk-dev/cuzk/server"
)

// TestIDsBounded (issue 34 item 3): request and job ids are at most
// server.MaxIDLen bytes of printable ASCII, checked before anything is
// logged, stored or echoed. Every id form Curio builds passes (spaces and
// brackets included); long ids and ids with control or non-ASCII bytes
// are InvalidArgument with a short message that quotes a prefix, no job
// is made, and /status and /timeline.svg stay small. On 543c312 a 4 MiB
// id with NUL and ESC was a job, echoed whole.
func TestIDsBounded(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()

	good := []string{
		"wdpost-1000-0-[0 1 2 3 4 5 6 7]", // fmt.Sprintf("wdpost-%d-%d-%d", miner, deadline, []byte{0..7})
		"wdpost-1000-3-[255 0 17 34 51 68 85 102]",
		"winpost-1000-0a1b2c3d4e5f6071",
		"porep-1000-7",
		"ps-porep-1000-7-123456",
		"ps-snap-1000-7-123456",
		"snap-1000-7",
		strings.Repeat("~", server.MaxIDLen),
	}
	for _, id := range good {
		res, err := d.c.Submit(ctx, client.TestRequest(id, 10, nil))
		if err != nil || res.GetJobId() != id {
			t.Fatalf("Curio's id %q: %v %v", id, res, err)
		}
		if r, err := d.c.Await(ctx, id, 0); err != nil || r.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("awaiting %q: %v %v", id, r, err)
		}
	}

	long := strings.Repeat("a", 4<<20) + "\x00\x1b[2J\r\n"
	bad := map[string]string{
		"one byte too long": strings.Repeat("a", server.MaxIDLen+1),
		"4 MiB with NUL":    long,
		"NUL":               "porep-1000-7\x00",
		"ESC":               "porep-\x1b[31m1000",
		"CR LF":             "porep-1000-7\r\nlevel=ERROR msg=forged",
		"tab":               "porep\t1000",
		"DEL":               "porep-1000-7\x7f",
		"UTF-8":             "porep-1000-7-é",
	}
	for name, id := range bad {
		check := func(rpc string, err error) {
			t.Helper()
			msg := status.Convert(err).Message()
			if code(err) != codes.InvalidArgument || len(msg) > 512 || !strings.Contains(msg, "printable ASCII") {
				t.Errorf("%s: %s = %v (%d bytes of message), want a short InvalidArgument", name, rpc, clipped(err), len(msg))
			}
		}
		_, err := d.c.Submit(ctx, client.TestRequest(id, 10, nil))
		check("SubmitProof", err)
		_, err = d.c.RPC().Prove(ctx, &cuzkv1.ProveRequest{Submit: client.TestRequest(id, 10, nil)})
		check("Prove", err)
		_, err = d.c.RPC().AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: id})
		check("AwaitProof", err)
		_, err = d.c.RPC().CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: id})
		check("CancelProof", err)
	}
	st := d.eng.Status()
	if n := len(st.Jobs) + len(st.RecentJobs); n != len(good) {
		t.Errorf("the engine holds %d jobs, want the %d with good ids", n, len(good))
	}
	// Whatever was sent, the pages stay small.
	for path, limit := range map[string]int{"/status": 64 << 10, "/timeline.svg?recent=256": 1 << 20, "/timeline.svg?recent=100000": 1 << 10} {
		resp, err := http.Get(d.http + path)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if n > int64(limit) {
			t.Errorf("%s: %d bytes, want at most %d", path, n, limit)
		}
	}
}

// clipped is err's text, cut for a test log.
func clipped(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
