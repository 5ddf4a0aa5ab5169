package bench

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
)

// ProofType is what `cuzk bench -t` names: a proof family of the wire
// contract, or the daemon's test circuit.
type ProofType string

// The proof types, with the Rust cuzk-bench's names.
const (
	TypePoRep   ProofType = "porep"
	TypeSnap    ProofType = "snap"
	TypeWPoSt   ProofType = "wpost"
	TypeWinning ProofType = "winning"
	TypeTest    ProofType = "test"
)

// ErrUnknownType: a proof type name that ParseProofType does not know.
var ErrUnknownType = errors.New("unknown proof type")

// ParseProofType accepts the names and aliases of the Rust cuzk-bench
// (porep, porep-c2, seal-commit; snap, snap-deals, update; wpost,
// window-post, windowpost; winning, winning-post, winningpost) and test.
func ParseProofType(s string) (ProofType, error) {
	switch strings.ToLower(s) {
	case "porep", "porep-c2", "seal-commit":
		return TypePoRep, nil
	case "snap", "snap-deals", "update":
		return TypeSnap, nil
	case "wpost", "window-post", "windowpost":
		return TypeWPoSt, nil
	case "winning", "winning-post", "winningpost":
		return TypeWinning, nil
	case "test":
		return TypeTest, nil
	}
	return "", fmt.Errorf("%w %q (porep, snap, wpost, winning or test)", ErrUnknownType, s)
}

// Kind is the wire proof kind.
func (t ProofType) Kind() cuzkv1.ProofKind {
	switch t {
	case TypePoRep:
		return cuzkv1.ProofKind_POREP_SEAL_COMMIT
	case TypeSnap:
		return cuzkv1.ProofKind_SNAP_DEALS_UPDATE
	case TypeWPoSt:
		return cuzkv1.ProofKind_WINDOW_POST_PARTITION
	case TypeWinning:
		return cuzkv1.ProofKind_WINNING_POST
	case TypeTest:
		return client.TestProofKind
	}
	return cuzkv1.ProofKind_PROOF_KIND_UNSPECIFIED
}

// Spec is the request a run sends: every proof of a batch or stress run is
// this request under its own request id. Byte fields are shared, never
// copied, between the requests built from it. Building one from a sealed
// sector or a test circuit, and checking the proofs, is the caller's
// (cmd/cuzk): this package knows only the wire.
type Spec struct {
	Type            ProofType       `json:"type"`
	RegisteredProof uint64          `json:"registered_proof"`
	SectorSize      uint64          `json:"sector_size"`
	SectorNumber    uint64          `json:"sector_number,omitempty"`
	MinerID         uint64          `json:"miner_id,omitempty"`
	Priority        cuzkv1.Priority `json:"priority,omitempty"`
	VanillaProof    []byte          `json:"-"`
	VanillaProofs   [][]byte        `json:"-"`
	PartitionIndex  uint32          `json:"partition_index,omitempty"`
	Randomness      []byte          `json:"-"`
	CommROld        []byte          `json:"-"`
	CommRNew        []byte          `json:"-"`
	CommDNew        []byte          `json:"-"`

	// Circuit and Partitions describe the proof for people (0 and "" when
	// the tool cannot tell).
	Circuit    string `json:"circuit,omitempty"`
	Partitions int    `json:"partitions,omitempty"`
}

// Request builds the wire request with the given request id.
func (s *Spec) Request(requestID string) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{
		RequestId:       requestID,
		ProofKind:       s.Type.Kind(),
		SectorSize:      s.SectorSize,
		RegisteredProof: s.RegisteredProof,
		Priority:        s.Priority,
		VanillaProof:    s.VanillaProof,
		VanillaProofs:   s.VanillaProofs,
		SectorNumber:    s.SectorNumber,
		MinerId:         s.MinerID,
		PartitionIndex:  s.PartitionIndex,
		Randomness:      s.Randomness,
		CommROld:        s.CommROld,
		CommRNew:        s.CommRNew,
		CommDNew:        s.CommDNew,
	}
}

// Describe is a one-line description of the spec.
func (s *Spec) Describe() string {
	var b strings.Builder
	b.WriteString(string(s.Type))
	if s.Circuit != "" {
		fmt.Fprintf(&b, " (%s", s.Circuit)
		if s.Partitions > 0 {
			fmt.Fprintf(&b, ", %d partition(s)", s.Partitions)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ", registered_proof %d", s.RegisteredProof)
	if s.Type == TypePoRep {
		fmt.Fprintf(&b, ", sector %d, miner %d", s.SectorNumber, s.MinerID)
	}
	return b.String()
}

// ParseVanillaFile reads the --vanilla file of PoSt and SnapDeals runs as
// the Rust cuzk-bench does: a JSON array of base64 strings (Go's
// json.Marshal of [][]byte), or else the whole file as one raw proof.
func ParseVanillaFile(data []byte) ([][]byte, error) {
	var strs []string
	if json.Unmarshal(bytes.TrimSpace(data), &strs) != nil {
		return [][]byte{data}, nil
	}
	out := make([][]byte, len(strs))
	for i, s := range strs {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("vanilla proof %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}
