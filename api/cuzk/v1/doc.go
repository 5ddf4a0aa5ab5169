// Package cuzkv1 is the gRPC wire contract of the cuzk proving daemon:
// proving.proto and the Go code protoc generates from it.
//
// The contract is shared with Curio. Package, service, method, message and
// field names and field numbers equal those of Curio's
// extern/cuzk/cuzk-proto/proto/cuzk/v1/proving.proto, so Curio's generated
// client (lib/cuzk) works against a server built on this package, and a
// message encoded by either side decodes on the other. proving_test.go pins
// that layout field by field; README.md describes what the server does with
// each field.
//
// proving.pb.go and proving_grpc.pb.go are generated: edit proving.proto and
// run `go generate ./api/...` (see scripts/genproto.sh), never edit them by
// hand.
package cuzkv1

//go:generate ../../../scripts/genproto.sh
