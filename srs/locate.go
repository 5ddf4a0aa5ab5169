package srs

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// ErrUnknownCircuit is returned when no locator knows the circuit id.
var ErrUnknownCircuit = errors.New("unknown circuit id")

// Files are the paths of one circuit's parameter set.
type Files struct {
	Params string // the .params file (proving key, verifying key inside)
	VK     string // the .vk file; checked against the params' key when present
	// Official says the names are those of the Filecoin trusted setup
	// (files with a test marker use them too; Status tells them apart).
	Official bool
}

// Locator maps a circuit id to its parameter files. It does no I/O; a
// missing file is found when it is opened. It returns an error wrapping
// ErrUnknownCircuit for ids it does not serve.
type Locator interface {
	Locate(circuitID string) (Files, error)
}

// LocatorFunc adapts a function to Locator.
type LocatorFunc func(circuitID string) (Files, error)

// Locate implements Locator.
func (f LocatorFunc) Locate(id string) (Files, error) { return f(id) }

// FilecoinLocator finds the official parameter files of Filecoin circuit ids
// ("porep-32g", ...) in dir under their rust-fil-proofs names
// (v28-<parameter set id>.params / .vk).
func FilecoinLocator(dir string) Locator {
	return LocatorFunc(func(id string) (Files, error) {
		cid, err := filecoin.ParseCircuitID(id)
		if err != nil {
			return Files{}, fmt.Errorf("%w: %w", ErrUnknownCircuit, err)
		}
		ps, err := cid.ParameterSetID()
		if err != nil {
			return Files{}, fmt.Errorf("%w: %w", ErrUnknownCircuit, err)
		}
		return Files{
			Params:   filepath.Join(dir, ps.ParamsFileName()),
			VK:       filepath.Join(dir, ps.VerifyingKeyFileName()),
			Official: true,
		}, nil
	})
}

// Chain asks each locator in turn and returns the first answer that is not
// ErrUnknownCircuit.
func Chain(ls ...Locator) Locator {
	return LocatorFunc(func(id string) (Files, error) {
		for _, l := range ls {
			f, err := l.Locate(id)
			if err == nil || !errors.Is(err, ErrUnknownCircuit) {
				return f, err
			}
		}
		return Files{}, fmt.Errorf("%w: %q", ErrUnknownCircuit, id)
	})
}
