package server_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/server"
)

// A broken parameter file is a FAILED job on the wire, whether the engine
// finds the fault while planning (a truncated header) or while loading (a
// point off the curve): Prove and AwaitProof answer FAILED with a message
// naming the file and the offset, SubmitProof accepts the job, never an
// Internal RPC error, and the next good request is proved.
func TestBadParamsAreFailedJobs(t *testing.T) {
	good, path := testkit.BreakableParams(t, 10)
	dir := filepath.Dir(path)
	te := testkit.NewEngine(t, testkit.EngineOptions{Locator: testkind.Locator(dir), Budget: 4 << 30})
	srv := server.New(te.Engine)
	c := dial(t, serve(t, srv, "unix"))

	const vkFixed = 3*groth16.G1Uncompressed + 3*groth16.G2Uncompressed
	offCurve := append([]byte(nil), good...)
	offCurve[vkFixed+4+5*groth16.G1Uncompressed+4+47] ^= 1 // h[0]'s x: test-k10 has 5 ic points
	ctx := context.Background()
	for i, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated header", good[:vkFixed+2], "ic count at offset 864"},
		{"truncated points", good[:len(good)/2], "at byte"}, // the sizes are known by now: the load finds it
		{"point off the curve", offCurve, "h[0] at byte 1352: point not on curve"},
	} {
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := c.Prove(ctx, client.TestRequest("", 10, nil))
		msg := res.GetErrorMessage()
		if !errors.Is(err, client.ErrFailed) || res.GetStatus() != cuzkv1.AwaitProofResponse_FAILED ||
			!strings.Contains(msg, path) || !strings.Contains(msg, tc.want) {
			t.Fatalf("%s: Prove: %v %v; want FAILED naming %s and %q", tc.name, err, res, path, tc.want)
		}
		sub, err := c.Submit(ctx, client.TestRequest("bad-"+string(rune('a'+i)), 10, nil))
		if err != nil {
			t.Fatalf("%s: SubmitProof: %v", tc.name, err)
		}
		res, err = c.Await(ctx, sub.GetJobId(), 0)
		if !errors.Is(err, client.ErrFailed) || !strings.Contains(res.GetErrorMessage(), tc.want) {
			t.Fatalf("%s: AwaitProof: %v %v", tc.name, err, res)
		}
		t.Logf("%s: %s", tc.name, msg)
		// PreloadSRS makes no job: the same error is FailedPrecondition.
		if _, _, err := c.Preload(ctx, "test-k10"); code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: PreloadSRS: %v", tc.name, err)
		}

		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
		if res, err := c.Prove(ctx, client.TestRequest("", 10, nil)); err != nil || res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
			t.Fatalf("%s: the next good request: %v %v", tc.name, err, res)
		}
		if _, _, err := te.Engine.EvictParams("test-k10"); err != nil {
			t.Fatal(err)
		}
	}
}
