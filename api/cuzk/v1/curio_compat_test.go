package cuzkv1

import (
	"bytes"
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// curioCalls uses every identifier Curio's lib/cuzk/client.go and
// lib/ffi/cuzk_funcs.go (curio e0294b0) touch, the way they touch it. It is
// never run: if the generated code loses or renames one of them, this file
// stops compiling.
func curioCalls(ctx context.Context, cc grpc.ClientConnInterface) (int, error) {
	var svc ProvingEngineClient = NewProvingEngineClient(cc)

	req := &SubmitProofRequest{
		RequestId:       "porep-1000-7",
		ProofKind:       ProofKind_POREP_SEAL_COMMIT,
		SectorSize:      uint64(34359738368),
		RegisteredProof: uint64(8),
		Priority:        Priority_NORMAL,
		VanillaProof:    []byte("{}"),
		VanillaProofs:   [][]byte{{1}},
		SectorNumber:    uint64(7),
		MinerId:         uint64(1000),
		Randomness:      []byte{1},
		PartitionIndex:  uint32(0),
		CommROld:        []byte{1},
		CommRNew:        []byte{2},
		CommDNew:        []byte{3},
	}
	_ = []ProofKind{ProofKind_POREP_SEAL_COMMIT, ProofKind_SNAP_DEALS_UPDATE,
		ProofKind_WINDOW_POST_PARTITION, ProofKind_WINNING_POST}
	_ = []Priority{Priority_NORMAL, Priority_HIGH, Priority_CRITICAL}

	resp, err := svc.Prove(ctx, &ProveRequest{Submit: req})
	if err != nil {
		return 0, err
	}
	result := resp.Result
	switch result.Status {
	case AwaitProofResponse_COMPLETED:
		_, _, _ = result.Proof, result.TotalMs, result.GpuComputeMs
	case AwaitProofResponse_FAILED:
		_ = result.ErrorMessage
	case AwaitProofResponse_CANCELLED, AwaitProofResponse_TIMEOUT:
	}

	status, err := svc.GetStatus(ctx, &GetStatusRequest{})
	if err != nil {
		return 0, err
	}
	var total uint32
	for _, q := range status.Queues {
		total += q.Pending + q.InProgress
	}
	_ = ProofKind_POREP_SEAL_COMMIT.String()
	return int(total), nil
}

var _ = curioCalls

// TestSubmitProofRequestWire pins the bytes Curio's client puts on the wire
// for a PoRep request: each field is encoded by hand with the numbers from
// Curio's proto and must decode into the matching Go field, and our encoder
// must produce the same bytes.
func TestSubmitProofRequestWire(t *testing.T) {
	var b []byte
	str := func(num protowire.Number, v []byte) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, v)
	}
	varint := func(num protowire.Number, v uint64) {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		b = protowire.AppendVarint(b, v)
	}
	// Fields in number order, as Go's deterministic marshal writes them.
	str(1, []byte("wdpost-1000-2"))
	varint(2, 3)           // WINDOW_POST_PARTITION
	varint(3, 34359738368) // 32 GiB
	varint(4, 13)          // a RegisteredPoStProof value
	varint(5, 3)           // HIGH
	str(10, []byte("c1"))
	str(11, []byte("v0"))
	str(11, []byte("v1"))
	varint(20, 7)
	varint(21, 1000)
	str(22, bytes.Repeat([]byte{0xab}, 32))
	varint(23, 2)
	str(30, []byte("old"))
	str(31, []byte("new"))
	str(32, []byte("d"))

	want := &SubmitProofRequest{
		RequestId:       "wdpost-1000-2",
		ProofKind:       ProofKind_WINDOW_POST_PARTITION,
		SectorSize:      34359738368,
		RegisteredProof: 13,
		Priority:        Priority_HIGH,
		VanillaProof:    []byte("c1"),
		VanillaProofs:   [][]byte{[]byte("v0"), []byte("v1")},
		SectorNumber:    7,
		MinerId:         1000,
		Randomness:      bytes.Repeat([]byte{0xab}, 32),
		PartitionIndex:  2,
		CommROld:        []byte("old"),
		CommRNew:        []byte("new"),
		CommDNew:        []byte("d"),
	}

	got := &SubmitProofRequest{}
	if err := proto.Unmarshal(b, got); err != nil {
		t.Fatalf("unmarshal hand-encoded request: %v", err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("decoded %v\nwant    %v", got, want)
	}
	if len(got.ProtoReflect().GetUnknown()) != 0 {
		t.Errorf("hand-encoded fields landed in unknown fields: %x", got.ProtoReflect().GetUnknown())
	}

	enc, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, b) {
		t.Errorf("marshal = %x\nwant      %x", enc, b)
	}
}

// TestAwaitProofResponseWire does the same for the result Curio reads.
func TestAwaitProofResponseWire(t *testing.T) {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, "job")
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, 1) // COMPLETED
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{0xc0, 0xff, 0xee})
	for i, num := range []protowire.Number{10, 11, 12, 13, 14} {
		b = protowire.AppendTag(b, num, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(100+i))
	}
	want := &AwaitProofResponse{
		JobId:        "job",
		Status:       AwaitProofResponse_COMPLETED,
		Proof:        []byte{0xc0, 0xff, 0xee},
		QueueWaitMs:  100,
		SrsLoadMs:    101,
		SynthesisMs:  102,
		GpuComputeMs: 103,
		TotalMs:      104,
	}
	got := &AwaitProofResponse{}
	if err := proto.Unmarshal(b, got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(got, want) {
		t.Errorf("decoded %v\nwant    %v", got, want)
	}
}

type fakeEngine struct {
	UnimplementedProvingEngineServer
	got *SubmitProofRequest
}

func (f *fakeEngine) Prove(_ context.Context, req *ProveRequest) (*ProveResponse, error) {
	f.got = req.GetSubmit()
	return &ProveResponse{Result: &AwaitProofResponse{
		JobId:  req.GetSubmit().GetRequestId(),
		Status: AwaitProofResponse_COMPLETED,
		Proof:  make([]byte, 192),
	}}, nil
}

func (f *fakeEngine) GetStatus(context.Context, *GetStatusRequest) (*GetStatusResponse, error) {
	return &GetStatusResponse{Queues: []*QueueStatus{
		{ProofKind: "porep-c2", Pending: 2, InProgress: 1},
		{ProofKind: "winning-post", Pending: 0, InProgress: 1},
	}}, nil
}

// TestCurioCallsOverGRPC runs curioCalls against a server built from the
// generated code, over an in-memory connection.
func TestCurioCallsOverGRPC(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	eng := &fakeEngine{}
	RegisterProvingEngineServer(srv, eng)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })

	depth, err := curioCalls(t.Context(), conn)
	if err != nil {
		t.Fatalf("curio calls: %v", err)
	}
	if depth != 4 {
		t.Errorf("queue depth = %d, want 4", depth)
	}
	if eng.got.GetRequestId() != "porep-1000-7" || eng.got.GetMinerId() != 1000 ||
		eng.got.GetRegisteredProof() != 8 || string(eng.got.GetVanillaProof()) != "{}" {
		t.Errorf("server saw %v", eng.got)
	}

	// Methods the fake does not implement answer Unimplemented, not a hang.
	_, err = NewProvingEngineClient(conn).CancelProof(t.Context(), &CancelProofRequest{JobId: "x"})
	if err == nil {
		t.Error("CancelProof on the fake succeeded, want Unimplemented")
	}
}
