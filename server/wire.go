package server

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	protoenc "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
)

// Malformed messages.
//
// grpc-go turns every error a codec's Unmarshal returns into Internal
// ("grpc: failed to unmarshal the received message"), a status code its
// own documentation reserves for broken invariants of the server: a
// client that sent bad bytes would be told the daemon is at fault, and
// could not tell a retry from a fix. So the codec does not fail: it
// leaves the message empty and files the error under the message's
// pointer, and the first interceptor (wireCheck.unary, or RecvMsg of the
// stream it wraps) answers InvalidArgument before any handler sees the
// message. Every decoded message passes that interceptor, so the filed
// error never outlives its call.

// wireCodec is the server's codec: the proto codec, with decoding errors
// deferred to the interceptor (see above).
type wireCodec struct {
	proto encoding.CodecV2
	// failed maps a message that did not decode to its status error.
	failed sync.Map
}

func newWireCodec() *wireCodec {
	return &wireCodec{proto: encoding.GetCodecV2(protoenc.Name)}
}

func (c *wireCodec) Name() string { return protoenc.Name }

func (c *wireCodec) Marshal(v any) (mem.BufferSlice, error) { return c.proto.Marshal(v) }

func (c *wireCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if err := c.proto.Unmarshal(data, v); err != nil {
		// The message is built from the first valid fields only; no
		// handler may see it.
		c.failed.Store(v, status.Error(codes.InvalidArgument, fmt.Sprintf("malformed %T (%d bytes): %v", v, data.Len(), clip(err.Error(), 256))))
	}
	return nil
}

// takeErr returns, and forgets, the decoding error filed for v.
func (c *wireCodec) takeErr(v any) error {
	if e, ok := c.failed.LoadAndDelete(v); ok {
		return e.(error)
	}
	return nil
}

func (c *wireCodec) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if err := c.takeErr(req); err != nil {
		return nil, err
	}
	return h(ctx, req)
}

func (c *wireCodec) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	return h(srv, &checkedStream{ServerStream: ss, c: c})
}

// checkedStream answers a malformed streamed message as unary calls do.
type checkedStream struct {
	grpc.ServerStream
	c *wireCodec
}

func (s *checkedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return s.c.takeErr(m)
}

// clip bounds s to n bytes, marking the cut, so that no error or log line
// carries more than that of something a caller sent.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes in all)", len(s))
}
