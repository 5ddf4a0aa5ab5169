package server_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/server"
)

// DecodeRequest and EncodeRequest carry every field of the proto, both
// ways: a field added to proving.proto and forgotten in either fails.
func TestRequestRoundTrip(t *testing.T) {
	in := &cuzkv1.SubmitProofRequest{}
	m := in.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfBytes([]byte("entry")))
		case fd.Kind() == protoreflect.BytesKind:
			m.Set(fd, protoreflect.ValueOfBytes([]byte(fd.Name())))
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(string(fd.Name())))
		case fd.Kind() == protoreflect.EnumKind:
			m.Set(fd, protoreflect.ValueOfEnum(protoreflect.EnumNumber(3)))
		case fd.Kind() == protoreflect.Uint32Kind:
			m.Set(fd, protoreflect.ValueOfUint32(uint32(100+i)))
		case fd.Kind() == protoreflect.Uint64Kind:
			m.Set(fd, protoreflect.ValueOfUint64(uint64(100+i)))
		default:
			t.Fatalf("field %s: kind %v not covered by this test", fd.Name(), fd.Kind())
		}
	}
	out := server.EncodeRequest(server.DecodeRequest(in))
	if !proto.Equal(in, out) {
		t.Fatalf("round trip:\n%v\nwant\n%v", out, in)
	}
	if &out.VanillaProof[0] != &in.VanillaProof[0] {
		t.Error("byte fields copied, not shared")
	}
}
