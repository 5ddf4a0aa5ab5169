package filecoin

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/cuzk-dev/cuzk/merkle"
)

// ErrUnknownPoStProof is returned when a name or id is no registered PoSt
// proof.
var ErrUnknownPoStProof = errors.New("unknown registered post proof")

// RegisteredPoStProof is a PoSt proof type. The values are the numeric ids
// of go-state-types abi.RegisteredPoStProof.
type RegisteredPoStProof int64

// The registered PoSt proofs. Names are the rust-filecoin-proofs-api
// variants. Ids 10..14 are go-state-types' StackedDrgWindow*V1_1, which the
// api calls V1_2 (the grindability fix; filecoin-ffi maps one to the other).
const (
	StackedDrgWinning2KiBV1   RegisteredPoStProof = 0
	StackedDrgWinning8MiBV1   RegisteredPoStProof = 1
	StackedDrgWinning512MiBV1 RegisteredPoStProof = 2
	StackedDrgWinning32GiBV1  RegisteredPoStProof = 3
	StackedDrgWinning64GiBV1  RegisteredPoStProof = 4

	StackedDrgWindow2KiBV1   RegisteredPoStProof = 5
	StackedDrgWindow8MiBV1   RegisteredPoStProof = 6
	StackedDrgWindow512MiBV1 RegisteredPoStProof = 7
	StackedDrgWindow32GiBV1  RegisteredPoStProof = 8
	StackedDrgWindow64GiBV1  RegisteredPoStProof = 9

	StackedDrgWindow2KiBV1_2   RegisteredPoStProof = 10
	StackedDrgWindow8MiBV1_2   RegisteredPoStProof = 11
	StackedDrgWindow512MiBV1_2 RegisteredPoStProof = 12
	StackedDrgWindow32GiBV1_2  RegisteredPoStProof = 13
	StackedDrgWindow64GiBV1_2  RegisteredPoStProof = 14
)

const postProofCount = 15

// PoStType tells winning from window PoSt.
type PoStType uint8

// PoSt types. The zero value is invalid.
const (
	WinningPoSt PoStType = iota + 1
	WindowPoSt
)

// String returns "winning" or "window".
func (t PoStType) String() string {
	switch t {
	case WinningPoSt:
		return "winning"
	case WindowPoSt:
		return "window"
	}
	return fmt.Sprintf("PoStType(%d)", uint8(t))
}

// PoSt constants of filecoin-proofs/src/constants.rs.
const (
	WinningPoStChallengeCount = 66
	WinningPoStSectorCount    = 1
	WindowPoStChallengeCount  = 10
)

// windowPoStSectorCount is WINDOW_POST_SECTOR_COUNT for the published sizes.
var windowPoStSectorCount = map[SectorSize]int{
	SectorSize2KiB:   2,
	SectorSize8MiB:   2,
	SectorSize512MiB: 2,
	SectorSize32GiB:  2349,
	SectorSize64GiB:  2300,
}

var postProofNames = func() map[string]RegisteredPoStProof {
	m := make(map[string]RegisteredPoStProof, postProofCount)
	for p := RegisteredPoStProof(0); p < postProofCount; p++ {
		m[p.String()] = p
	}
	return m
}()

// PoStProofs lists every registered PoSt proof in id order.
func PoStProofs() []RegisteredPoStProof {
	out := make([]RegisteredPoStProof, postProofCount)
	for i := range out {
		out[i] = RegisteredPoStProof(i)
	}
	return out
}

// PoStProofFromID validates a numeric id.
func PoStProofFromID(id uint64) (RegisteredPoStProof, error) {
	if id >= postProofCount {
		return 0, fmt.Errorf("%w: id %d (known ids are 0..%d)", ErrUnknownPoStProof, id, postProofCount-1)
	}
	return RegisteredPoStProof(id), nil
}

// ParsePoStProof parses an api variant name such as "StackedDrgWindow32GiBV1_2".
func ParsePoStProof(name string) (RegisteredPoStProof, error) {
	if p, ok := postProofNames[name]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownPoStProof, name)
}

// Valid reports whether p is a registered PoSt proof.
func (p RegisteredPoStProof) Valid() bool { return p >= 0 && p < postProofCount }

// String returns the api variant name, or "RegisteredPoStProof(n)".
func (p RegisteredPoStProof) String() string {
	if !p.Valid() {
		return "RegisteredPoStProof(" + strconv.FormatInt(int64(p), 10) + ")"
	}
	kind, suffix := "Window", "V1"
	switch {
	case p < 5:
		kind = "Winning"
	case p >= 10:
		suffix = "V1_2"
	}
	return "StackedDrg" + kind + p.SectorSize().String() + suffix
}

// SectorSize is the padded sector size; 0 for an invalid p.
func (p RegisteredPoStProof) SectorSize() SectorSize {
	if !p.Valid() {
		return 0
	}
	return sealProofSizes[p%5]
}

// Type is winning or window; 0 for an invalid p.
func (p RegisteredPoStProof) Type() PoStType {
	switch {
	case !p.Valid():
		return 0
	case p < 5:
		return WinningPoSt
	default:
		return WindowPoSt
	}
}

// APIVersion is V1_0_0, or V1_2_0 for the Window *V1_2 proofs.
func (p RegisteredPoStProof) APIVersion() APIVersion {
	switch {
	case !p.Valid():
		return 0
	case p >= 10:
		return V1_2_0
	default:
		return V1_0_0
	}
}

// SectorCount is the number of sectors one proof covers (sector_count).
func (p RegisteredPoStProof) SectorCount() int {
	switch p.Type() {
	case WinningPoSt:
		return WinningPoStSectorCount
	case WindowPoSt:
		return windowPoStSectorCount[p.SectorSize()]
	}
	return 0
}

// ChallengeCount is the number of challenges per sector (challenge_count).
func (p RegisteredPoStProof) ChallengeCount() int {
	switch p.Type() {
	case WinningPoSt:
		return WinningPoStChallengeCount
	case WindowPoSt:
		return WindowPoStChallengeCount
	}
	return 0
}

// TreeShape is the shape of the sector's tree_r_last, whose leaves the
// PoSt challenges (8-0-0, 8-8-0 or 8-8-2); the zero value for an invalid p.
func (p RegisteredPoStProof) TreeShape() merkle.Shape {
	if !p.Valid() {
		return merkle.Shape{}
	}
	return specs[p.SectorSize()].tree
}

// CircuitSectorCount is the sector_count of p's circuit
// (fallback::PublicParams): WindowPoSt's sectors per partition, and for
// WinningPoSt 66, because winning_post_setup_params swaps the roles (66
// one-challenge "sectors", the 66 challenges of the one sector unrolled).
func (p RegisteredPoStProof) CircuitSectorCount() int {
	if p.Type() == WinningPoSt {
		return p.ChallengeCount() / p.SectorCount()
	}
	return p.SectorCount()
}

// CircuitChallengeCount is the challenge_count of p's circuit: 10 for
// WindowPoSt, 1 for WinningPoSt.
func (p RegisteredPoStProof) CircuitChallengeCount() int {
	if p.Type() == WinningPoSt {
		return p.ChallengeCount() / p.CircuitSectorCount()
	}
	return p.ChallengeCount()
}

// PublicInputCount is the number of public inputs of p's circuit, ONE
// excluded: per sector comm_r and one leaf index per challenge
// (FallbackPoStCompound::generate_public_inputs).
func (p RegisteredPoStProof) PublicInputCount() int {
	return p.CircuitSectorCount() * (1 + p.CircuitChallengeCount())
}

// ParameterSetID names the PoSt circuit's parameter files. Winning PoSt
// circuits are set up with the roles swapped (winning_post_setup_params:
// 66 "sectors" of 1 challenge), and window V1 and V1_2 share parameters.
func (p RegisteredPoStProof) ParameterSetID() ParameterSetID {
	if !p.Valid() {
		return ""
	}
	size := p.SectorSize()
	return NewParameterSetID(PoStCachePrefix(specs[size].tree), PoStIdentifier(size, p.CircuitChallengeCount(), p.CircuitSectorCount()))
}
