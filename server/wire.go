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
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

// Malformed messages.
//
// grpc-go turns every error a codec's Unmarshal returns into Internal
// ("grpc: failed to unmarshal the received message"), a status code its
// own documentation reserves for broken invariants of the server: a
// client that sent bad bytes would be told the daemon is at fault, and
// could not tell a retry from a fix. So the codec does not fail: it
// files the error under the message's pointer, and the first interceptor
// (wireCodec.unary, or RecvMsg of the stream it wraps) answers with it
// before any handler sees the message. Every decoded message passes that
// interceptor, so the filed error never outlives its call. The codec also
// refuses, before decoding, a request whose decoded form would dwarf its
// bytes on the wire (precheck).

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
	if err := c.unmarshal(data, v); err != nil {
		c.failed.Store(v, err)
	}
	return nil
}

func (c *wireCodec) unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		if err := c.proto.Unmarshal(data, v); err != nil {
			return status.Error(codes.InvalidArgument, fmt.Sprintf("malformed %T (%d bytes): %v", v, data.Len(), clip(err.Error(), 256)))
		}
		return nil
	}
	// One buffer (the usual case) is used as it is, not copied.
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	if err := precheck(b, v); err != nil {
		return err
	}
	if err := proto.Unmarshal(b, m); err != nil {
		// The message holds the fields before the fault; no handler
		// may see it.
		return status.Error(codes.InvalidArgument, fmt.Sprintf("malformed %T (%d bytes): %v", v, len(b), clip(err.Error(), 256)))
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

// MaxVanillaProofs bounds the entries of a request's vanilla_proofs. The
// most Curio sends is a 32 GiB WindowPoSt partition's 2,349 (SnapDeals:
// one per partition, at most 16; WinningPoSt: one).
const MaxVanillaProofs = 4096

// precheck counts a request's vanilla_proofs on the wire before it is
// decoded. Decoding costs about 24 bytes per entry however short the
// entry, so a 128 MiB message of empty entries would take gigabytes while
// its 128 MiB is all the engine's intake (max_intake_bytes) counts;
// bounded entries keep a decoded request about the size of its bytes on
// the wire.
func precheck(b []byte, v any) error {
	n := 0
	switch v.(type) {
	case *cuzkv1.SubmitProofRequest:
		n = countEntries(b)
	case *cuzkv1.ProveRequest:
		// Occurrences of submit are merged: their entries add up.
		forFields(b, func(num protowire.Number, typ protowire.Type, val []byte) {
			if num == 1 && typ == protowire.BytesType {
				if sub, m := protowire.ConsumeBytes(val); m >= 0 {
					n += countEntries(sub)
				}
			}
		})
	default:
		return nil
	}
	if n > MaxVanillaProofs {
		return status.Error(codes.InvalidArgument, fmt.Sprintf(
			"vanilla_proofs has %d entries; at most %d are taken (a 32 GiB WindowPoSt partition has 2,349)", n, MaxVanillaProofs))
	}
	return nil
}

// countEntries counts the vanilla_proofs (field 11) of an encoded
// SubmitProofRequest.
func countEntries(b []byte) int {
	n := 0
	forFields(b, func(num protowire.Number, typ protowire.Type, _ []byte) {
		if num == 11 && typ == protowire.BytesType {
			n++
		}
	})
	return n
}

// forFields calls f with each top-level field of the encoded message b
// and the field's encoded value, up to the first malformed byte (the
// decoder reports that).
func forFields(b []byte, f func(num protowire.Number, typ protowire.Type, val []byte)) {
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return
		}
		m := protowire.ConsumeFieldValue(num, typ, b[l:])
		if m < 0 {
			return
		}
		f(num, typ, b[l:l+m])
		b = b[l+m:]
	}
}
