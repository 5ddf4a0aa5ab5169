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
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
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
// copied, between the requests built from it.
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

	// C1 is the parsed PoRep input, for verify-seal; LogRows the test
	// circuit's size, for its verification.
	C1      *c1.Output `json:"-"`
	LogRows int        `json:"log_rows,omitempty"`
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

// PoRepOptions say how a C1 becomes a request.
type PoRepOptions struct {
	// SectorNumber: 0 takes the envelope's (a plain C1 gets
	// seal.DefaultSector); a value that contradicts the envelope is an
	// error.
	SectorNumber uint64
	// MinerID is sent as miner_id and is what verify-seal derives the
	// prover id from.
	MinerID uint64
	// RegisteredProof: -1 takes the C1's; another value must equal it.
	RegisteredProof int64
}

// PoRepSpec builds a PoRep C2 request from C1 output, plain or in Curio's
// envelope. A plain C1 is wrapped (the daemon takes only the envelope).
func PoRepSpec(data []byte, opt PoRepOptions) (*Spec, error) {
	o, w, err := c1.ParseAny(data)
	if err != nil {
		return nil, fmt.Errorf("C1: %w", err)
	}
	if opt.RegisteredProof >= 0 && uint64(opt.RegisteredProof) != uint64(o.RegisteredProof) {
		return nil, fmt.Errorf("--registered-proof %d, but the C1 is for %v (%d)", opt.RegisteredProof, o.RegisteredProof, uint64(o.RegisteredProof))
	}
	sector := opt.SectorNumber
	envelope := data
	switch {
	case w != nil && sector != 0 && sector != w.SectorNum:
		return nil, fmt.Errorf("sector number %d, but the C1 envelope says %d", sector, w.SectorNum)
	case w != nil:
		sector = w.SectorNum
	default:
		if sector == 0 {
			sector = seal.DefaultSector
		}
		if envelope, err = c1.Wrap(o, sector).MarshalJSON(); err != nil {
			return nil, fmt.Errorf("wrapping the C1: %w", err)
		}
	}
	cid, err := filecoin.PoRepCircuitID(o.RegisteredProof.SectorSize())
	if err != nil {
		return nil, err
	}
	return &Spec{
		Type: TypePoRep, RegisteredProof: uint64(o.RegisteredProof), SectorSize: uint64(o.RegisteredProof.SectorSize()),
		SectorNumber: sector, MinerID: opt.MinerID, VanillaProof: envelope,
		Circuit: string(cid), Partitions: len(o.VanillaProofs), C1: o,
	}, nil
}

// TestSpec builds a request for the daemon's test circuit with 2^logRows
// rows (served only by `cuzk daemon --enable-test-circuits`).
func TestSpec(logRows int, opt testkind.Options) (*Spec, error) {
	if logRows < testkind.MinLog || logRows > testkind.MaxLog {
		return nil, fmt.Errorf("test circuit: log rows %d outside %d..%d", logRows, testkind.MinLog, testkind.MaxLog)
	}
	var options []byte
	if opt != (testkind.Options{}) {
		var err error
		if options, err = json.Marshal(opt); err != nil {
			return nil, err
		}
	}
	parts := max(opt.Partitions, 1)
	r := client.TestRequest("", logRows, options)
	return &Spec{
		Type: TypeTest, RegisteredProof: r.RegisteredProof, SectorSize: r.SectorSize, VanillaProof: r.VanillaProof,
		Circuit: testkind.CircuitID(logRows), Partitions: parts, LogRows: logRows,
	}, nil
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
