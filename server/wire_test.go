package server_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/server"
)

// rawCodec sends a *[]byte as the message as it is, so that tests can
// send bytes no protobuf encoder would write.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(d mem.BufferSlice, v any) error {
	*v.(*[]byte) = d.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// invokeRaw calls method with msg as the request's bytes.
func invokeRaw(ctx context.Context, conn *grpc.ClientConn, method string, msg []byte, opts ...grpc.CallOption) error {
	var reply []byte
	return conn.Invoke(ctx, method, &msg, &reply, append(opts, grpc.ForceCodecV2(rawCodec{}))...)
}

// TestMalformedProtobufIsInvalidArgument (issue 34 item 8): bytes that
// are no protobuf message of the method's type are the caller's fault, so
// every RPC, streamed ones included, answers InvalidArgument (grpc-go's
// own answer is Internal), names the message, and the daemon keeps
// serving.
func TestMalformedProtobufIsInvalidArgument(t *testing.T) {
	d := startDaemon(t, "tcp", engine.Config{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name, method string
		msg          []byte
	}{
		{"truncated length", cuzkv1.ProvingEngine_Prove_FullMethodName, []byte{0x0a, 0xff}},
		{"field number 0", cuzkv1.ProvingEngine_SubmitProof_FullMethodName, []byte{0x00, 0x01}},
		{"request_id not UTF-8", cuzkv1.ProvingEngine_SubmitProof_FullMethodName, []byte{0x0a, 0x01, 0xff}},
		{"truncated field", cuzkv1.ProvingEngine_AwaitProof_FullMethodName, []byte{0x0a, 0x05, 'a'}},
		{"bad wire type", cuzkv1.ProvingEngine_GetStatus_FullMethodName, []byte{0x0f}},
		{"health check", healthpb.Health_Check_FullMethodName, []byte{0x0a, 0x10}},
	} {
		err := invokeRaw(ctx, d.c.Conn(), tc.method, tc.msg)
		if code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%s: %s = %v, want InvalidArgument naming the malformed message", tc.name, tc.method, err)
		}
	}
	// A server-streamed call decodes its request in the stream.
	cs, err := d.c.Conn().NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, healthpb.Health_Watch_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte{0x0a, 0x10}
	if err := cs.SendMsg(&msg); err != nil {
		t.Fatal(err)
	}
	if err := cs.CloseSend(); err != nil {
		t.Fatal(err)
	}
	var reply []byte
	if err := cs.RecvMsg(&reply); code(err) != codes.InvalidArgument {
		t.Errorf("health Watch: %v, want InvalidArgument", err)
	}
	if _, err := d.c.Status(ctx); err != nil {
		t.Fatalf("daemon stopped serving after malformed messages: %v", err)
	}
	if st := d.eng.Status(); len(st.Jobs)+len(st.RecentJobs) != 0 {
		t.Fatalf("a malformed request made a job: %+v", st.Jobs)
	}
}

// TestVanillaProofsCountedBeforeDecoding (issue 34 item 2, the intake
// against what the transport admits): the engine's intake counts a
// request's bytes, so a decoded request must not dwarf them. Empty
// vanilla_proofs entries cost 2 bytes on the wire and about 24 decoded;
// more than server.MaxVanillaProofs are refused before decoding, also
// when split over several submit fields that protobuf would merge. 16 MiB
// of them (8 M entries) raise the heap by no more than the bytes received
// and a copy of them, within 64 MB of idle; on 543c312 they decoded to
// hundreds of MB before the kind refused them.
func TestVanillaProofsCountedBeforeDecoding(t *testing.T) {
	d := startDaemon(t, "tcp", engine.Config{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	entries := func(n int) []byte {
		var b []byte
		for range n {
			b = append(b, 11<<3|2, 0)
		}
		return b
	}
	submit := func(sub []byte) []byte { return append(fieldHeader(nil, 1, len(sub)), sub...) }
	bomb := bigProve(16<<20, true)
	split := append(submit(entries(3000)), submit(entries(3000))...)
	idle := heapBytes()
	peak := heapPeak()
	err := invokeRaw(ctx, d.c.Conn(), cuzkv1.ProvingEngine_Prove_FullMethodName, bomb)
	high := peak()
	if code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "vanilla_proofs has 8388608 entries") {
		t.Errorf("8 M entries: %v, want InvalidArgument counting them", clipped(err))
	}
	t.Logf("heap: idle %d MB, peak %d MB", idle>>20, high>>20)
	if high > idle+64<<20 {
		t.Errorf("8 M empty entries took the heap from %d MB to %d MB; want within 64 MB", idle>>20, high>>20)
	}
	for name, tc := range map[string]struct {
		method string
		msg    []byte
		want   string
	}{
		"split":       {cuzkv1.ProvingEngine_Prove_FullMethodName, split, "vanilla_proofs has 6000 entries"},
		"SubmitProof": {cuzkv1.ProvingEngine_SubmitProof_FullMethodName, entries(server.MaxVanillaProofs + 1), "vanilla_proofs has 4097 entries"},
		// Curio's largest passes, to be refused by the engine (no kind).
		"2,349 entries": {cuzkv1.ProvingEngine_Prove_FullMethodName, submit(entries(2349)), "proof_kind"},
	} {
		if err := invokeRaw(ctx, d.c.Conn(), tc.method, tc.msg); code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want InvalidArgument with %q", name, clipped(err), tc.want)
		}
	}
	runtime.KeepAlive(bomb)
}
