// Package prototest fills wire messages for tests that must notice a field
// added to proving.proto and forgotten by code that copies or converts
// requests (bench's Spec.Request, the server's DecodeRequest and
// EncodeRequest). It is a leaf over api/cuzk/v1 so that bench's tests, which
// may depend only on allow-listed packages, can use it.
package prototest

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

// FullRequest is a SubmitProofRequest with every field set to a value of
// its own: bytes fields to the field's name, string fields to prefix and
// the name, each repeated bytes field to one entry, enums to 3 and numbers
// to 100 plus the field's index. It fails t on a field of a kind it does
// not fill, so that a new kind of field is noticed too.
func FullRequest(t testing.TB, prefix string) *cuzkv1.SubmitProofRequest {
	t.Helper()
	r := &cuzkv1.SubmitProofRequest{}
	m := r.ProtoReflect()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsList() && fd.Kind() == protoreflect.BytesKind:
			m.Mutable(fd).List().Append(protoreflect.ValueOfBytes([]byte("entry")))
		case fd.IsList() || fd.IsMap():
			t.Fatalf("field %s: repeated %v not covered", fd.Name(), fd.Kind())
		case fd.Kind() == protoreflect.BytesKind:
			m.Set(fd, protoreflect.ValueOfBytes([]byte(fd.Name())))
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(prefix+string(fd.Name())))
		case fd.Kind() == protoreflect.EnumKind:
			m.Set(fd, protoreflect.ValueOfEnum(protoreflect.EnumNumber(3)))
		case fd.Kind() == protoreflect.Uint32Kind:
			m.Set(fd, protoreflect.ValueOfUint32(uint32(100+i)))
		case fd.Kind() == protoreflect.Uint64Kind:
			m.Set(fd, protoreflect.ValueOfUint64(uint64(100+i)))
		default:
			t.Fatalf("field %s: kind %v not covered", fd.Name(), fd.Kind())
		}
	}
	return r
}
