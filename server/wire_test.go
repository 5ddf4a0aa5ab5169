package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
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
