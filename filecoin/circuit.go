package filecoin

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cuzk-dev/cuzk/proofkind"
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

// Kinds lists the Filecoin proof kinds, the ones with registered proofs
// and official parameters, in the order Circuits lists their ids.
func Kinds() []proofkind.Kind {
	return []proofkind.Kind{proofkind.PoRep, proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals}
}

// ParseKind reads a Filecoin proof kind by any of its names
// (proofkind.Parse); the test kind and unknown names are refused.
func ParseKind(s string) (proofkind.Kind, error) {
	k, err := proofkind.Parse(s)
	if err == nil && !slices.Contains(Kinds(), k) {
		err = fmt.Errorf("%v is not a Filecoin proof kind", k)
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %w (porep-c2, window-post, winning-post or snap-update)", ErrUnknownCircuit, err)
	}
	return k, nil
}

// circuitPrefix is the first part of a Filecoin kind's circuit ids
// (Curio's), from its descriptor; "" for any other kind.
func circuitPrefix(k proofkind.Kind) string {
	if !slices.Contains(Kinds(), k) {
		return ""
	}
	d, _ := proofkind.Lookup(k)
	return d.CircuitPrefix
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
	kind proofkind.Kind
	size SectorSize
}

// circuits maps every circuit id to its kind and size; built once, never
// written after init.
var circuits = func() map[CircuitID]circuitInfo {
	m := map[CircuitID]circuitInfo{}
	for _, k := range Kinds() {
		for _, s := range PublishedSectorSizes() {
			m[CircuitID(circuitPrefix(k)+"-"+circuitSizeSuffix[s])] = circuitInfo{k, s}
		}
	}
	return m
}()

// Circuits lists every circuit id: by kind (PoRep, WindowPoSt, WinningPoSt,
// SnapDeals), then by ascending sector size.
func Circuits() []CircuitID {
	var out []CircuitID
	for _, k := range Kinds() {
		for _, s := range PublishedSectorSizes() {
			out = append(out, CircuitID(circuitPrefix(k)+"-"+circuitSizeSuffix[s]))
		}
	}
	return out
}

// CircuitIDFor is the circuit id of a kind at a published sector size.
func CircuitIDFor(k proofkind.Kind, size SectorSize) (CircuitID, error) {
	suffix, ok := circuitSizeSuffix[size]
	if !ok || circuitPrefix(k) == "" {
		return "", fmt.Errorf("%w: no %v circuit for sector size %v", ErrUnknownCircuit, k, size)
	}
	return CircuitID(circuitPrefix(k) + "-" + suffix), nil
}

// PoRepCircuits lists the PoRep circuit ids by ascending sector size.
func PoRepCircuits() []CircuitID {
	return []CircuitID{CircuitPoRep2K, CircuitPoRep8M, CircuitPoRep512M, CircuitPoRep32G, CircuitPoRep64G}
}

// PoRepCircuitID is the circuit id of a published sector size.
func PoRepCircuitID(size SectorSize) (CircuitID, error) {
	return CircuitIDFor(proofkind.PoRep, size)
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

// Kind is the proof kind of the circuit; proofkind.Unspecified for an
// unknown id.
func (c CircuitID) Kind() proofkind.Kind { return circuits[c].kind }

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
func (c CircuitID) errWrongKind(want proofkind.Kind) error {
	return fmt.Errorf("%w: %q is a %v circuit, not %v", ErrUnknownCircuit, string(c), c.Kind(), want)
}

// SealProof is the registered seal proof (V1_1, no feature) of a PoRep
// circuit; every seal proof of the size shares the circuit.
func (c CircuitID) SealProof() (RegisteredSealProof, error) {
	i, err := c.info()
	if err != nil {
		return 0, err
	}
	if i.kind != proofkind.PoRep {
		return 0, c.errWrongKind(proofkind.PoRep)
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
	case proofkind.WinningPoSt:
	case proofkind.WindowPoSt:
		want = WindowPoSt
	default:
		return 0, c.errWrongKind(proofkind.WindowPoSt)
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
	if i.kind != proofkind.SnapDeals {
		return 0, c.errWrongKind(proofkind.SnapDeals)
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
	case proofkind.WindowPoSt, proofkind.WinningPoSt:
		p, err := c.PoStProof()
		if err != nil {
			return "", err
		}
		return p.ParameterSetID(), nil
	case proofkind.SnapDeals:
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
	k := proofkind.WinningPoSt
	switch p.Type() {
	case WinningPoSt:
	case WindowPoSt:
		k = proofkind.WindowPoSt
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
	c, _ := CircuitIDFor(proofkind.SnapDeals, p.SectorSize())
	return c
}
