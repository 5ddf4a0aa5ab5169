package cuzkv1

import (
	"fmt"
	"slices"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// The tables below are copied by hand from Curio's
// extern/cuzk/cuzk-proto/proto/cuzk/v1/proving.proto (curio e0294b0). They
// are the wire contract: if a test here fails, the .proto was changed in a
// way Curio's client cannot follow. Fix the .proto, not the table.

type wantMethod struct {
	name, input, output string
}

var wantMethods = []wantMethod{
	{"SubmitProof", "SubmitProofRequest", "SubmitProofResponse"},
	{"AwaitProof", "AwaitProofRequest", "AwaitProofResponse"},
	{"Prove", "ProveRequest", "ProveResponse"},
	{"CancelProof", "CancelProofRequest", "CancelProofResponse"},
	{"GetStatus", "GetStatusRequest", "GetStatusResponse"},
	{"GetMetrics", "GetMetricsRequest", "GetMetricsResponse"},
	{"PreloadSRS", "PreloadSrsRequest", "PreloadSrsResponse"},
	{"EvictSRS", "EvictSrsRequest", "EvictSrsResponse"},
}

// wantField is one field of the contract. typ is the proto scalar kind, or
// the full name of the message or enum type; repeated marks list fields.
type wantField struct {
	message  string
	field    string
	number   protoreflect.FieldNumber
	typ      string
	repeated bool
}

var wantFields = []wantField{
	{"SubmitProofRequest", "request_id", 1, "string", false},
	{"SubmitProofRequest", "proof_kind", 2, "cuzk.v1.ProofKind", false},
	{"SubmitProofRequest", "sector_size", 3, "uint64", false},
	{"SubmitProofRequest", "registered_proof", 4, "uint64", false},
	{"SubmitProofRequest", "priority", 5, "cuzk.v1.Priority", false},
	{"SubmitProofRequest", "vanilla_proof", 10, "bytes", false},
	{"SubmitProofRequest", "vanilla_proofs", 11, "bytes", true},
	{"SubmitProofRequest", "sector_number", 20, "uint64", false},
	{"SubmitProofRequest", "miner_id", 21, "uint64", false},
	{"SubmitProofRequest", "randomness", 22, "bytes", false},
	{"SubmitProofRequest", "partition_index", 23, "uint32", false},
	{"SubmitProofRequest", "comm_r_old", 30, "bytes", false},
	{"SubmitProofRequest", "comm_r_new", 31, "bytes", false},
	{"SubmitProofRequest", "comm_d_new", 32, "bytes", false},

	{"SubmitProofResponse", "job_id", 1, "string", false},
	{"SubmitProofResponse", "queue_position", 2, "uint32", false},
	{"SubmitProofResponse", "assigned_gpu", 3, "string", false},

	{"AwaitProofRequest", "job_id", 1, "string", false},
	{"AwaitProofRequest", "timeout_ms", 2, "uint64", false},

	{"AwaitProofResponse", "job_id", 1, "string", false},
	{"AwaitProofResponse", "status", 2, "cuzk.v1.AwaitProofResponse.Status", false},
	{"AwaitProofResponse", "proof", 3, "bytes", false},
	{"AwaitProofResponse", "error_message", 4, "string", false},
	{"AwaitProofResponse", "queue_wait_ms", 10, "uint64", false},
	{"AwaitProofResponse", "srs_load_ms", 11, "uint64", false},
	{"AwaitProofResponse", "synthesis_ms", 12, "uint64", false},
	{"AwaitProofResponse", "gpu_compute_ms", 13, "uint64", false},
	{"AwaitProofResponse", "total_ms", 14, "uint64", false},
	{"AwaitProofResponse", "prove_steps", 15, "cuzk.v1.ProveStep", true},
	{"ProveStep", "step", 1, "string", false},
	{"ProveStep", "sum_ns", 2, "uint64", false},
	{"ProveStep", "max_ns", 3, "uint64", false},

	{"ProveRequest", "submit", 1, "cuzk.v1.SubmitProofRequest", false},
	{"ProveResponse", "result", 1, "cuzk.v1.AwaitProofResponse", false},

	{"CancelProofRequest", "job_id", 1, "string", false},
	{"CancelProofResponse", "was_running", 1, "bool", false},

	{"GetStatusResponse", "gpus", 1, "cuzk.v1.GPUStatus", true},
	{"GetStatusResponse", "loaded_srs", 2, "cuzk.v1.SRSStatus", true},
	{"GetStatusResponse", "queues", 3, "cuzk.v1.QueueStatus", true},
	{"GetStatusResponse", "total_proofs_completed", 4, "uint64", false},
	{"GetStatusResponse", "total_proofs_failed", 5, "uint64", false},
	{"GetStatusResponse", "uptime_seconds", 6, "uint64", false},
	{"GetStatusResponse", "pinned_memory_bytes", 7, "uint64", false},
	{"GetStatusResponse", "pinned_memory_limit_bytes", 8, "uint64", false},
	{"GetStatusResponse", "cpu_arithmetic", 9, "cuzk.v1.CPUArithmetic", false},
	{"GetStatusResponse", "draining", 10, "bool", false},

	{"CPUArithmetic", "kind", 1, "string", false},
	{"CPUArithmetic", "reason", 2, "string", false},
	{"CPUArithmetic", "check_failed", 3, "bool", false},

	{"GPUStatus", "ordinal", 1, "uint32", false},
	{"GPUStatus", "name", 2, "string", false},
	{"GPUStatus", "vram_total_bytes", 3, "uint64", false},
	{"GPUStatus", "vram_free_bytes", 4, "uint64", false},
	{"GPUStatus", "current_job_id", 5, "string", false},
	{"GPUStatus", "current_proof_kind", 6, "string", false},

	{"SRSStatus", "circuit_id", 1, "string", false},
	{"SRSStatus", "tier", 2, "cuzk.v1.SRSStatus.Tier", false},
	{"SRSStatus", "size_bytes", 3, "uint64", false},
	{"SRSStatus", "ref_count", 4, "uint32", false},

	{"QueueStatus", "proof_kind", 1, "string", false},
	{"QueueStatus", "pending", 2, "uint32", false},
	{"QueueStatus", "in_progress", 3, "uint32", false},

	{"PreloadSrsRequest", "circuit_id", 1, "string", false},
	{"PreloadSrsResponse", "already_loaded", 1, "bool", false},
	{"PreloadSrsResponse", "load_time_ms", 2, "uint64", false},

	{"EvictSrsRequest", "circuit_id", 1, "string", false},
	{"EvictSrsResponse", "was_loaded", 1, "bool", false},
	{"EvictSrsResponse", "freed_bytes", 2, "uint64", false},

	{"GetMetricsResponse", "prometheus_text", 1, "string", false},
}

// Messages of the contract, including the two with no fields.
var wantMessages = []string{
	"SubmitProofRequest", "SubmitProofResponse",
	"AwaitProofRequest", "AwaitProofResponse",
	"ProveRequest", "ProveResponse",
	"CancelProofRequest", "CancelProofResponse",
	"GetStatusRequest", "GetStatusResponse",
	"GPUStatus", "SRSStatus", "QueueStatus",
	"PreloadSrsRequest", "PreloadSrsResponse",
	"EvictSrsRequest", "EvictSrsResponse",
	"GetMetricsRequest", "GetMetricsResponse",
	// Ours, after Curio's (not in its copy; see GetStatusResponse.cpu_arithmetic
	// and AwaitProofResponse.prove_steps).
	"CPUArithmetic", "ProveStep",
}

type wantEnumValue struct {
	enum   string // full name
	name   string
	number protoreflect.EnumNumber
}

var wantEnumValues = []wantEnumValue{
	{"cuzk.v1.ProofKind", "PROOF_KIND_UNSPECIFIED", 0},
	{"cuzk.v1.ProofKind", "POREP_SEAL_COMMIT", 1},
	{"cuzk.v1.ProofKind", "SNAP_DEALS_UPDATE", 2},
	{"cuzk.v1.ProofKind", "WINDOW_POST_PARTITION", 3},
	{"cuzk.v1.ProofKind", "WINNING_POST", 4},

	{"cuzk.v1.Priority", "PRIORITY_UNSPECIFIED", 0},
	{"cuzk.v1.Priority", "LOW", 1},
	{"cuzk.v1.Priority", "NORMAL", 2},
	{"cuzk.v1.Priority", "HIGH", 3},
	{"cuzk.v1.Priority", "CRITICAL", 4},

	{"cuzk.v1.AwaitProofResponse.Status", "UNKNOWN", 0},
	{"cuzk.v1.AwaitProofResponse.Status", "COMPLETED", 1},
	{"cuzk.v1.AwaitProofResponse.Status", "FAILED", 2},
	{"cuzk.v1.AwaitProofResponse.Status", "CANCELLED", 3},
	{"cuzk.v1.AwaitProofResponse.Status", "TIMEOUT", 4},

	{"cuzk.v1.SRSStatus.Tier", "HOT", 0},
	{"cuzk.v1.SRSStatus.Tier", "WARM", 1},
	{"cuzk.v1.SRSStatus.Tier", "COLD", 2},
}

func TestFileDescriptor(t *testing.T) {
	fd := File_cuzk_v1_proving_proto
	if got := fd.Path(); got != "cuzk/v1/proving.proto" {
		t.Errorf("file path = %q, want %q (Curio registers the same name)", got, "cuzk/v1/proving.proto")
	}
	if got := fd.Package(); got != "cuzk.v1" {
		t.Errorf("package = %q, want cuzk.v1", got)
	}
	if got := fd.Syntax(); got != protoreflect.Proto3 {
		t.Errorf("syntax = %v, want proto3", got)
	}
	if fd.Services().Len() != 1 {
		t.Fatalf("%d services, want 1", fd.Services().Len())
	}
}

func TestServiceMethods(t *testing.T) {
	svc := File_cuzk_v1_proving_proto.Services().ByName("ProvingEngine")
	if svc == nil {
		t.Fatal("service cuzk.v1.ProvingEngine missing")
	}
	if got := svc.FullName(); got != "cuzk.v1.ProvingEngine" {
		t.Errorf("service full name = %q", got)
	}
	methods := svc.Methods()
	if methods.Len() != len(wantMethods) {
		t.Errorf("%d methods, want %d", methods.Len(), len(wantMethods))
	}
	for i, w := range wantMethods {
		m := methods.ByName(protoreflect.Name(w.name))
		if m == nil {
			t.Errorf("method %s missing", w.name)
			continue
		}
		if m.Index() != i {
			t.Errorf("method %s at index %d, want %d", w.name, m.Index(), i)
		}
		if got := m.Input().FullName(); got != protoreflect.FullName("cuzk.v1."+w.input) {
			t.Errorf("%s input = %s, want cuzk.v1.%s", w.name, got, w.input)
		}
		if got := m.Output().FullName(); got != protoreflect.FullName("cuzk.v1."+w.output) {
			t.Errorf("%s output = %s, want cuzk.v1.%s", w.name, got, w.output)
		}
		if m.IsStreamingClient() || m.IsStreamingServer() {
			t.Errorf("%s is streaming, want unary", w.name)
		}
	}
}

// The generated full method names are what travels on the wire as the
// HTTP/2 :path; they must equal the names Curio's client dials.
func TestFullMethodNames(t *testing.T) {
	got := []string{
		ProvingEngine_SubmitProof_FullMethodName,
		ProvingEngine_AwaitProof_FullMethodName,
		ProvingEngine_Prove_FullMethodName,
		ProvingEngine_CancelProof_FullMethodName,
		ProvingEngine_GetStatus_FullMethodName,
		ProvingEngine_GetMetrics_FullMethodName,
		ProvingEngine_PreloadSRS_FullMethodName,
		ProvingEngine_EvictSRS_FullMethodName,
	}
	for i, w := range wantMethods {
		if want := "/cuzk.v1.ProvingEngine/" + w.name; got[i] != want {
			t.Errorf("full method name %d = %q, want %q", i, got[i], want)
		}
	}
	if ProvingEngine_ServiceDesc.ServiceName != "cuzk.v1.ProvingEngine" {
		t.Errorf("ServiceDesc.ServiceName = %q", ProvingEngine_ServiceDesc.ServiceName)
	}
}

func TestMessageFields(t *testing.T) {
	fd := File_cuzk_v1_proving_proto

	// Every message of the contract exists at top level, and there are no others.
	var gotMessages []string
	for i := range fd.Messages().Len() {
		gotMessages = append(gotMessages, string(fd.Messages().Get(i).Name()))
	}
	if !slices.Equal(gotMessages, wantMessages) {
		t.Errorf("messages = %v\nwant %v", gotMessages, wantMessages)
	}

	seen := map[string]int{} // message -> fields checked
	for _, w := range wantFields {
		md := fd.Messages().ByName(protoreflect.Name(w.message))
		if md == nil {
			t.Errorf("message %s missing", w.message)
			continue
		}
		seen[w.message]++
		f := md.Fields().ByName(protoreflect.Name(w.field))
		if f == nil {
			t.Errorf("%s.%s missing", w.message, w.field)
			continue
		}
		if f.Number() != w.number {
			t.Errorf("%s.%s has number %d, want %d", w.message, w.field, f.Number(), w.number)
		}
		if got := fieldType(f); got != w.typ {
			t.Errorf("%s.%s has type %s, want %s", w.message, w.field, got, w.typ)
		}
		if got := f.Cardinality() == protoreflect.Repeated; got != w.repeated {
			t.Errorf("%s.%s repeated = %v, want %v", w.message, w.field, got, w.repeated)
		}
		// proto3 "optional" would change the Go field to a pointer and
		// break Curio's struct literals.
		if f.HasPresence() && f.Kind() != protoreflect.MessageKind {
			t.Errorf("%s.%s has explicit presence; Curio's client expects a plain proto3 field", w.message, w.field)
		}
		if f.ContainingOneof() != nil {
			t.Errorf("%s.%s is in a oneof; Curio's client expects a plain field", w.message, w.field)
		}
	}

	// No field beyond the table: an extra field is not a wire break, but it
	// must be added to the table (and to Curio) on purpose.
	for _, name := range wantMessages {
		md := fd.Messages().ByName(protoreflect.Name(name))
		if md == nil {
			continue
		}
		if got := md.Fields().Len(); got != seen[name] {
			t.Errorf("%s has %d fields, the contract lists %d", name, got, seen[name])
		}
	}
}

func TestEnums(t *testing.T) {
	counts := map[string]int{}
	for _, w := range wantEnumValues {
		ed := enumByName(t, protoreflect.FullName(w.enum))
		if ed == nil {
			continue
		}
		counts[w.enum]++
		v := ed.Values().ByName(protoreflect.Name(w.name))
		if v == nil {
			t.Errorf("%s.%s missing", w.enum, w.name)
			continue
		}
		if v.Number() != w.number {
			t.Errorf("%s.%s = %d, want %d", w.enum, w.name, v.Number(), w.number)
		}
	}
	for name, n := range counts {
		ed := enumByName(t, protoreflect.FullName(name))
		if ed != nil && ed.Values().Len() != n {
			t.Errorf("%s has %d values, the contract lists %d", name, ed.Values().Len(), n)
		}
	}
	if got := File_cuzk_v1_proving_proto.Enums().Len(); got != 2 {
		t.Errorf("%d top-level enums, want 2 (ProofKind, Priority)", got)
	}
}

func fieldType(f protoreflect.FieldDescriptor) string {
	switch f.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return string(f.Message().FullName())
	case protoreflect.EnumKind:
		return string(f.Enum().FullName())
	default:
		return f.Kind().String()
	}
}

func enumByName(t *testing.T, name protoreflect.FullName) protoreflect.EnumDescriptor {
	t.Helper()
	fd := File_cuzk_v1_proving_proto
	if ed := fd.Enums().ByName(name.Name()); ed != nil && ed.FullName() == name {
		return ed
	}
	parent := fd.Messages().ByName(name.Parent().Name())
	if parent != nil {
		if ed := parent.Enums().ByName(name.Name()); ed != nil && ed.FullName() == name {
			return ed
		}
	}
	t.Errorf("enum %s missing", name)
	return nil
}

// A table that lost rows would make the tests above pass vacuously.
func TestTablesComplete(t *testing.T) {
	// Curio's proto has 60 fields; ours adds GetStatusResponse.cpu_arithmetic
	// and the three of CPUArithmetic, GetStatusResponse.draining, and
	// AwaitProofResponse.prove_steps and the three of ProveStep: new
	// numbers that Curio's client skips.
	if len(wantFields) != 69 {
		t.Errorf("field table has %d rows, want Curio's 60 and our 9", len(wantFields))
	}
	if len(wantEnumValues) != 18 {
		t.Errorf("enum table has %d rows, Curio's proto has 18 values", len(wantEnumValues))
	}
	keys := map[string]bool{}
	for _, w := range wantFields {
		k := fmt.Sprintf("%s/%d", w.message, w.number)
		if keys[k] {
			t.Errorf("duplicate field number in table: %s", k)
		}
		keys[k] = true
	}
}
