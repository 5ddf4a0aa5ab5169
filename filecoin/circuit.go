package filecoin

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnknownCircuit is returned when a string is no known circuit id.
var ErrUnknownCircuit = errors.New("unknown circuit id")

// CircuitID names one Groth16 circuit and so one parameter file. The daemon
// batches and loads parameters per circuit id. Ids follow Curio's cuzk
// (srs_manager.rs CircuitId: "porep-32g", "wpost-32g", "winning-32g",
// "snap-32g"), extended to every published size ("wpost-2k", …); every
// registered proof of one kind and size maps to the same id because the
// circuit depends on the kind and size alone (WindowPoSt V1 and V1_2 share
// theirs).
type CircuitID string

// PoRep circuit ids, one per published sector size.
const (
	CircuitPoRep2K   CircuitID = "porep-2k"
	CircuitPoRep8M   CircuitID = "porep-8m"
	CircuitPoRep512M CircuitID = "porep-512m"
	CircuitPoRep32G  CircuitID = "porep-32g"
	CircuitPoRep64G  CircuitID = "porep-64g"
)

// WindowPoSt circuit ids, one per published sector size.
const (
	CircuitWindowPoSt2K   CircuitID = "wpost-2k"
	CircuitWindowPoSt8M   CircuitID = "wpost-8m"
	CircuitWindowPoSt512M CircuitID = "wpost-512m"
	CircuitWindowPoSt32G  CircuitID = "wpost-32g"
	CircuitWindowPoSt64G  CircuitID = "wpost-64g"
)

// WinningPoSt circuit ids, one per published sector size.
const (
	CircuitWinningPoSt2K   CircuitID = "winning-2k"
	CircuitWinningPoSt8M   CircuitID = "winning-8m"
	CircuitWinningPoSt512M CircuitID = "winning-512m"
	CircuitWinningPoSt32G  CircuitID = "winning-32g"
	CircuitWinningPoSt64G  CircuitID = "winning-64g"
)

// SnapDeals (EmptySectorUpdate) circuit ids, one per published sector size.
const (
	CircuitUpdate2K   CircuitID = "snap-2k"
	CircuitUpdate8M   CircuitID = "snap-8m"
	CircuitUpdate512M CircuitID = "snap-512m"
	CircuitUpdate32G  CircuitID = "snap-32g"
	CircuitUpdate64G  CircuitID = "snap-64g"
)

// CircuitKind is the proof family a circuit proves. The zero value is
// invalid.
type CircuitKind uint8

// The circuit kinds.
const (
	CircuitKindPoRep CircuitKind = iota + 1
	CircuitKindWindowPoSt
	CircuitKindWinningPoSt
	CircuitKindUpdate
)

// CircuitKinds lists the kinds in the order Circuits lists their ids.
func CircuitKinds() []CircuitKind {
	return []CircuitKind{CircuitKindPoRep, CircuitKindWindowPoSt, CircuitKindWinningPoSt, CircuitKindUpdate}
}

// circuitPrefix is the first part of the kind's circuit ids (Curio's).
func (k CircuitKind) circuitPrefix() string {
	switch k {
	case CircuitKindPoRep:
		return "porep"
	case CircuitKindWindowPoSt:
		return "wpost"
	case CircuitKindWinningPoSt:
		return "winning"
	case CircuitKindUpdate:
		return "snap"
	}
	return ""
}

// String is the kind's name on the command line: "porep", "window-post",
// "winning-post" or "snap".
func (k CircuitKind) String() string {
	switch k {
	case CircuitKindPoRep:
		return "porep"
	case CircuitKindWindowPoSt:
		return "window-post"
	case CircuitKindWinningPoSt:
		return "winning-post"
	case CircuitKindUpdate:
		return "snap"
	}
	return fmt.Sprintf("CircuitKind(%d)", uint8(k))
}

// ParseCircuitKind parses a kind name: the String forms, or the circuit id
// prefixes and the Rust cuzk-bench aliases (wpost, windowpost, winning,
// winningpost, snap-deals, update).
func ParseCircuitKind(s string) (CircuitKind, error) {
	switch strings.ToLower(s) {
	case "porep", "porep-c2":
		return CircuitKindPoRep, nil
	case "window-post", "wpost", "windowpost":
		return CircuitKindWindowPoSt, nil
	case "winning-post", "winning", "winningpost":
		return CircuitKindWinningPoSt, nil
	case "snap", "snap-deals", "update":
		return CircuitKindUpdate, nil
	}
	return 0, fmt.Errorf("%w: unknown circuit kind %q (porep, window-post, winning-post or snap)", ErrUnknownCircuit, s)
}

// circuitSizeSuffix is the size part of circuit ids ("2k", "32g").
var circuitSizeSuffix = map[SectorSize]string{
	SectorSize2KiB:   "2k",
	SectorSize8MiB:   "8m",
	SectorSize512MiB: "512m",
	SectorSize32GiB:  "32g",
	SectorSize64GiB:  "64g",
}

type circuitInfo struct {
	kind CircuitKind
	size SectorSize
}

// circuits maps every circuit id to its kind and size; built once, never
// written after init.
var circuits = func() map[CircuitID]circuitInfo {
	m := map[CircuitID]circuitInfo{}
	for _, k := range CircuitKinds() {
		for _, s := range PublishedSectorSizes() {
			m[CircuitID(k.circuitPrefix()+"-"+circuitSizeSuffix[s])] = circuitInfo{k, s}
		}
	}
	return m
}()

// Circuits lists every circuit id: by kind (PoRep, WindowPoSt, WinningPoSt,
// SnapDeals), then by ascending sector size.
func Circuits() []CircuitID {
	var out []CircuitID
	for _, k := range CircuitKinds() {
		for _, s := range PublishedSectorSizes() {
			out = append(out, CircuitID(k.circuitPrefix()+"-"+circuitSizeSuffix[s]))
		}
	}
	return out
}

// CircuitIDFor is the circuit id of a kind at a published sector size.
func CircuitIDFor(k CircuitKind, size SectorSize) (CircuitID, error) {
	suffix, ok := circuitSizeSuffix[size]
	if !ok || k.circuitPrefix() == "" {
		return "", fmt.Errorf("%w: no %v circuit for sector size %v", ErrUnknownCircuit, k, size)
	}
	return CircuitID(k.circuitPrefix() + "-" + suffix), nil
}

// PoRepCircuits lists the PoRep circuit ids by ascending sector size.
func PoRepCircuits() []CircuitID {
	return []CircuitID{CircuitPoRep2K, CircuitPoRep8M, CircuitPoRep512M, CircuitPoRep32G, CircuitPoRep64G}
}

// PoRepCircuitID is the circuit id of a published sector size.
func PoRepCircuitID(size SectorSize) (CircuitID, error) {
	return CircuitIDFor(CircuitKindPoRep, size)
}

// ParseCircuitID validates a circuit id string.
func ParseCircuitID(s string) (CircuitID, error) {
	if _, ok := circuits[CircuitID(s)]; ok {
		return CircuitID(s), nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownCircuit, s)
}

// String returns the id itself.
func (c CircuitID) String() string { return string(c) }

func (c CircuitID) info() (circuitInfo, error) {
	i, ok := circuits[c]
	if !ok {
		return circuitInfo{}, fmt.Errorf("%w: %q", ErrUnknownCircuit, string(c))
	}
	return i, nil
}

// Kind is the proof family of the circuit; 0 for an unknown id.
func (c CircuitID) Kind() CircuitKind { return circuits[c].kind }

// SectorSize is the sector size the circuit proves.
func (c CircuitID) SectorSize() (SectorSize, error) {
	i, err := c.info()
	return i.size, err
}

// SealSpec is the seal spec of the circuit's sector size (for PoSt and
// SnapDeals circuits: the shape of the sealed sector they prove about).
func (c CircuitID) SealSpec() (SealSpec, error) {
	s, err := c.SectorSize()
	if err != nil {
		return SealSpec{}, err
	}
	return s.SealSpec()
}

// errWrongKind says a circuit is not of the kind asked for.
func (c CircuitID) errWrongKind(want CircuitKind) error {
	return fmt.Errorf("%w: %q is a %v circuit, not %v", ErrUnknownCircuit, string(c), c.Kind(), want)
}

// SealProof is the registered seal proof (V1_1, no feature) of a PoRep
// circuit; every seal proof of the size shares the circuit.
func (c CircuitID) SealProof() (RegisteredSealProof, error) {
	i, err := c.info()
	if err != nil {
		return 0, err
	}
	if i.kind != CircuitKindPoRep {
		return 0, c.errWrongKind(CircuitKindPoRep)
	}
	for _, p := range SealProofs() {
		if p.SectorSize() == i.size && p.APIVersion() == V1_1_0 && len(p.Features()) == 0 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: no V1_1 seal proof for %v", ErrUnknownCircuit, i.size)
}

// PoStProof is the registered PoSt proof of a WindowPoSt or WinningPoSt
// circuit: the WinningPoSt proof of the size, or the WindowPoSt *V1_2 proof
// (the network's; V1 shares the circuit and its parameters).
func (c CircuitID) PoStProof() (RegisteredPoStProof, error) {
	i, err := c.info()
	if err != nil {
		return 0, err
	}
	want := WinningPoSt
	switch i.kind {
	case CircuitKindWinningPoSt:
	case CircuitKindWindowPoSt:
		want = WindowPoSt
	default:
		return 0, c.errWrongKind(CircuitKindWindowPoSt)
	}
	for _, p := range PoStProofs() {
		if p.SectorSize() == i.size && p.Type() == want && (want == WinningPoSt || p.APIVersion() == V1_2_0) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: no %v proof for %v", ErrUnknownCircuit, want, i.size)
}

// UpdateProof is the registered update proof of a SnapDeals circuit.
func (c CircuitID) UpdateProof() (RegisteredUpdateProof, error) {
	i, err := c.info()
	if err != nil {
		return 0, err
	}
	if i.kind != CircuitKindUpdate {
		return 0, c.errWrongKind(CircuitKindUpdate)
	}
	p, err := UpdateProofForSize(i.size)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrUnknownCircuit, err)
	}
	return p, nil
}

// ParameterSetID names the circuit's parameter and verifying key files.
func (c CircuitID) ParameterSetID() (ParameterSetID, error) {
	i, err := c.info()
	if err != nil {
		return "", err
	}
	switch i.kind {
	case CircuitKindWindowPoSt, CircuitKindWinningPoSt:
		p, err := c.PoStProof()
		if err != nil {
			return "", err
		}
		return p.ParameterSetID(), nil
	case CircuitKindUpdate:
		p, err := c.UpdateProof()
		if err != nil {
			return "", err
		}
		return p.ParameterSetID(), nil
	}
	sh, err := c.SealSpec()
	if err != nil {
		return "", err
	}
	return sh.PoRepParameterSetID(), nil
}

// CircuitID is the circuit (and parameter set) the PoSt proof is proven
// with: "winning-<size>" or "wpost-<size>" (V1 and V1_2 alike); "" for an
// invalid p.
func (p RegisteredPoStProof) CircuitID() CircuitID {
	k := CircuitKindWinningPoSt
	switch p.Type() {
	case WinningPoSt:
	case WindowPoSt:
		k = CircuitKindWindowPoSt
	default:
		return ""
	}
	c, _ := CircuitIDFor(k, p.SectorSize())
	return c
}

// CircuitID is the circuit (and parameter set) the update proof is proven
// with ("snap-<size>"); "" for an invalid p.
func (p RegisteredUpdateProof) CircuitID() CircuitID {
	if !p.Valid() {
		return ""
	}
	c, _ := CircuitIDFor(CircuitKindUpdate, p.SectorSize())
	return c
}
