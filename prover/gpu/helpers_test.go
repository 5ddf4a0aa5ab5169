package gpu

import (
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// mixed is a small SHA-like circuit with public inputs.
func mixed(rows int, seed uint64) testcircuits.Mixed {
	return testcircuits.Mixed{Constraints: rows, Inputs: 3, Seed: seed}
}

// setup returns (insecure) parameters for c written to a .params file.
func setup(t testing.TB, c r1cs.Circuit, seed string) (*groth16.Params, string) {
	t.Helper()
	p, err := groth16.Setup(c, testparams.ToxicWaste(seed), groth16.SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "test.params")
	if err := groth16.WriteParamsFile(path, p); err != nil {
		t.Fatal(err)
	}
	return p, path
}
