package bench

import (
	"encoding/json"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/internal/prototest"
	"github.com/cuzk-dev/cuzk/proofkind"
	"google.golang.org/protobuf/proto"
)

// Request copies every field of the template but the request id, and
// shares the byte fields: a field added to the proto and forgotten here
// fails.
func TestSpecRequestCopiesEveryField(t *testing.T) {
	tmpl := prototest.FullRequest(t, "template-")
	spec := &Spec{Template: tmpl}
	got := spec.Request("r-1")
	want := proto.Clone(tmpl).(*cuzkv1.SubmitProofRequest)
	want.RequestId = "r-1"
	if !proto.Equal(got, want) {
		t.Fatalf("Request:\n%v\nwant\n%v", got, want)
	}
	if &got.VanillaProof[0] != &tmpl.VanillaProof[0] || &got.VanillaProofs[0][0] != &tmpl.VanillaProofs[0][0] {
		t.Error("byte fields copied, not shared")
	}
	if tmpl.RequestId != "template-request_id" {
		t.Error("Request changed the template")
	}
	if spec.Kind() != proofkind.WindowPoSt {
		t.Errorf("Kind %v", spec.Kind())
	}
	spec.SetPriority(proofkind.PriorityCritical)
	if tmpl.Priority != cuzkv1.Priority_CRITICAL || spec.Request("r-2").Priority != cuzkv1.Priority_CRITICAL {
		t.Errorf("SetPriority: template at %v", tmpl.Priority)
	}
}

// A report shows the spec's scalar fields and the kind's name.
func TestSpecJSON(t *testing.T) {
	spec := &Spec{Template: &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_WINNING_POST, RegisteredProof: 0, SectorSize: 2048,
		Randomness: make([]byte, 32)}, Circuit: "winning-2k", Partitions: 1}
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"winning-post","registered_proof":0,"sector_size":2048,"circuit":"winning-2k","partitions":1}`; string(b) != want {
		t.Errorf("%s\nwant %s", b, want)
	}
	if got := spec.Describe(); got != "winning-post (winning-2k, 1 partition(s)), registered_proof 0" {
		t.Errorf("Describe: %q", got)
	}
}
