package filecoin

import (
	"errors"
	"fmt"
)

// ErrUnknownCircuit is returned when a string is no known circuit id.
var ErrUnknownCircuit = errors.New("unknown circuit id")

// CircuitID names one Groth16 circuit and so one parameter file. The daemon
// batches and loads parameters per circuit id. PoRep ids follow Curio's
// cuzk ("porep-32g"); every registered seal proof of one size maps to the
// same id because the circuit depends on the size alone.
type CircuitID string

// PoRep circuit ids, one per published sector size.
const (
	CircuitPoRep2K   CircuitID = "porep-2k"
	CircuitPoRep8M   CircuitID = "porep-8m"
	CircuitPoRep512M CircuitID = "porep-512m"
	CircuitPoRep32G  CircuitID = "porep-32g"
	CircuitPoRep64G  CircuitID = "porep-64g"
)

var porepCircuits = map[CircuitID]SectorSize{
	CircuitPoRep2K:   SectorSize2KiB,
	CircuitPoRep8M:   SectorSize8MiB,
	CircuitPoRep512M: SectorSize512MiB,
	CircuitPoRep32G:  SectorSize32GiB,
	CircuitPoRep64G:  SectorSize64GiB,
}

// PoRepCircuits lists the PoRep circuit ids by ascending sector size.
func PoRepCircuits() []CircuitID {
	return []CircuitID{CircuitPoRep2K, CircuitPoRep8M, CircuitPoRep512M, CircuitPoRep32G, CircuitPoRep64G}
}

// PoRepCircuitID is the circuit id of a published sector size.
func PoRepCircuitID(size SectorSize) (CircuitID, error) {
	for c, s := range porepCircuits {
		if s == size {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: no PoRep circuit for sector size %v", ErrUnknownCircuit, size)
}

// ParseCircuitID validates a circuit id string.
func ParseCircuitID(s string) (CircuitID, error) {
	if _, ok := porepCircuits[CircuitID(s)]; ok {
		return CircuitID(s), nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownCircuit, s)
}

// String returns the id itself.
func (c CircuitID) String() string { return string(c) }

// SectorSize is the sector size the circuit proves.
func (c CircuitID) SectorSize() (SectorSize, error) {
	s, ok := porepCircuits[c]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrUnknownCircuit, string(c))
	}
	return s, nil
}

// SealSpec is the seal spec the circuit proves.
func (c CircuitID) SealSpec() (SealSpec, error) {
	s, err := c.SectorSize()
	if err != nil {
		return SealSpec{}, err
	}
	return s.SealSpec()
}

// ParameterSetID names the circuit's parameter and verifying key files.
func (c CircuitID) ParameterSetID() (ParameterSetID, error) {
	sh, err := c.SealSpec()
	if err != nil {
		return "", err
	}
	return sh.PoRepParameterSetID(), nil
}
