package server_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/cuzk-dev/cuzk/internal/prototest"
	"github.com/cuzk-dev/cuzk/server"
)

// DecodeRequest and EncodeRequest carry every field of the proto, both
// ways: a field added to proving.proto and forgotten in either fails.
func TestRequestRoundTrip(t *testing.T) {
	in := prototest.FullRequest(t, "")
	out := server.EncodeRequest(server.DecodeRequest(in))
	if !proto.Equal(in, out) {
		t.Fatalf("round trip:\n%v\nwant\n%v", out, in)
	}
	if &out.VanillaProof[0] != &in.VanillaProof[0] {
		t.Error("byte fields copied, not shared")
	}
}
