package bench

import (
	"encoding/json"
	"fmt"
	"strings"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// Spec is what a run sends: every proof of a batch or stress run is
// Template under its own request id. Byte fields are shared, never copied,
// between the requests built from it. Building one from a sealed sector or
// a test circuit, and checking the proofs, is the caller's (cmd/cuzk):
// this package knows only the wire.
type Spec struct {
	// Template is the request; its request_id is ignored.
	Template *cuzkv1.SubmitProofRequest
	// Circuit and Partitions describe the proof for people (0 and "" when
	// the tool cannot tell).
	Circuit    string
	Partitions int
}

// Kind is the request's proof kind.
func (s *Spec) Kind() proofkind.Kind { return proofkind.Kind(s.Template.GetProofKind()) }

// SetPriority sets the priority the request is sent at
// (proofkind.PriorityUnspecified: the daemon's for the kind).
func (s *Spec) SetPriority(p proofkind.Priority) { s.Template.Priority = cuzkv1.Priority(p) }

// Request is Template under requestID: a new message sharing Template's
// byte fields.
func (s *Spec) Request(requestID string) *cuzkv1.SubmitProofRequest {
	t := s.Template
	return &cuzkv1.SubmitProofRequest{
		RequestId:       requestID,
		ProofKind:       t.GetProofKind(),
		SectorSize:      t.GetSectorSize(),
		RegisteredProof: t.GetRegisteredProof(),
		Priority:        t.GetPriority(),
		VanillaProof:    t.GetVanillaProof(),
		VanillaProofs:   t.GetVanillaProofs(),
		SectorNumber:    t.GetSectorNumber(),
		MinerId:         t.GetMinerId(),
		PartitionIndex:  t.GetPartitionIndex(),
		Randomness:      t.GetRandomness(),
		CommROld:        t.GetCommROld(),
		CommRNew:        t.GetCommRNew(),
		CommDNew:        t.GetCommDNew(),
	}
}

// specJSON is how reports show a spec: the request's scalar fields (the
// byte fields are the caller's files).
type specJSON struct {
	Kind            string          `json:"type"`
	RegisteredProof uint64          `json:"registered_proof"`
	SectorSize      uint64          `json:"sector_size"`
	SectorNumber    uint64          `json:"sector_number,omitempty"`
	MinerID         uint64          `json:"miner_id,omitempty"`
	Priority        cuzkv1.Priority `json:"priority,omitempty"`
	PartitionIndex  uint32          `json:"partition_index,omitempty"`
	Circuit         string          `json:"circuit,omitempty"`
	Partitions      int             `json:"partitions,omitempty"`
}

// MarshalJSON writes the spec for a report.
func (s *Spec) MarshalJSON() ([]byte, error) {
	t := s.Template
	return json.Marshal(specJSON{Kind: s.Kind().String(), RegisteredProof: t.GetRegisteredProof(), SectorSize: t.GetSectorSize(),
		SectorNumber: t.GetSectorNumber(), MinerID: t.GetMinerId(), Priority: t.GetPriority(), PartitionIndex: t.GetPartitionIndex(),
		Circuit: s.Circuit, Partitions: s.Partitions})
}

// Describe is a one-line description of the spec.
func (s *Spec) Describe() string {
	var b strings.Builder
	b.WriteString(s.Kind().String())
	if s.Circuit != "" {
		fmt.Fprintf(&b, " (%s", s.Circuit)
		if s.Partitions > 0 {
			fmt.Fprintf(&b, ", %d partition(s)", s.Partitions)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", registered_proof %d", s.Template.GetRegisteredProof())
	if s.Kind() == proofkind.PoRep {
		fmt.Fprintf(&b, ", sector %d, miner %d", s.Template.GetSectorNumber(), s.Template.GetMinerId())
	}
	return b.String()
}
