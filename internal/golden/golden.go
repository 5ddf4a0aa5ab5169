// Package golden loads the golden files written by the Rust reference
// harness (tools/rustref, testdata/rustref) and compares them with what the
// Go side synthesises. The formats are defined once, here and in the harness
// (see tools/rustref/README.md): a mismatch names the first differing chunk
// of 2^16 rows so it can be located.
package golden

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/detstream"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Dir is the repository's testdata/rustref directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "rustref")
}

// RepoTestdata is the repository's testdata directory.
func RepoTestdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// R1CS is one golden circuit digest file (testdata/rustref/r1cs/<case>.json).
type R1CS struct {
	Case         string          `json:"case"`
	Description  string          `json:"description"`
	Constraints  int             `json:"constraints"`
	Inputs       int             `json:"inputs"`
	Aux          int             `json:"aux"`
	R1CS         string          `json:"r1cs_sha256"`
	ChunkRows    int             `json:"chunk_rows"`
	Chunks       []string        `json:"chunks"`
	InputsHash   string          `json:"inputs_sha256"`
	AuxHash      string          `json:"aux_sha256"`
	PublicInputs []string        `json:"public_inputs"`
	Extra        json.RawMessage `json:"extra"`
}

// LoadR1CS reads testdata/rustref/r1cs/<name>.json.
func LoadR1CS(name string) (*R1CS, error) {
	b, err := os.ReadFile(filepath.Join(Dir(), "r1cs", name+".json"))
	if err != nil {
		return nil, err
	}
	var g R1CS
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("golden %s: %w", name, err)
	}
	return &g, nil
}

// Require loads a golden file or fails the test: goldens are committed, so a
// missing one is an error, not a reason to skip.
func Require(t testing.TB, name string) *R1CS {
	t.Helper()
	g, err := LoadR1CS(name)
	if err != nil {
		t.Fatalf("golden %q: %v (regenerate with scripts/golden.sh)", name, err)
	}
	return g
}

// Compare checks a Go digest against the golden one and reports the first
// difference: counts, then the first differing chunk, then the witness.
func Compare(t testing.TB, g *R1CS, d r1cs.Digest) {
	t.Helper()
	if d.Constraints != g.Constraints || d.Inputs != g.Inputs || d.Aux != g.Aux {
		t.Errorf("%s: counts differ: Go %d rows / %d inputs / %d aux, Rust %d / %d / %d",
			g.Case, d.Constraints, d.Inputs, d.Aux, g.Constraints, g.Inputs, g.Aux)
	}
	if d.R1CS != g.R1CS {
		for i := 0; i < len(d.Chunks) && i < len(g.Chunks); i++ {
			if d.Chunks[i] != g.Chunks[i] {
				t.Errorf("%s: R1CS differs from rust-fil-proofs; first differing chunk %d (rows %d..%d)",
					g.Case, i, i*g.ChunkRows, (i+1)*g.ChunkRows-1)
				break
			}
		}
		if len(d.Chunks) != len(g.Chunks) {
			t.Errorf("%s: R1CS differs: %d chunks vs %d", g.Case, len(d.Chunks), len(g.Chunks))
		}
		t.Errorf("%s: R1CS digest %s, want %s", g.Case, d.R1CS, g.R1CS)
	}
	if d.InputsHash != g.InputsHash {
		t.Errorf("%s: input assignment digest differs", g.Case)
	}
	if d.AuxHash != g.AuxHash {
		t.Errorf("%s: aux assignment digest differs", g.Case)
	}
}

// Stream is the deterministic input stream shared with the Rust harness
// (see package detstream).
type Stream = detstream.Stream

// NewStream returns the stream for a label ("cuzk-golden/<case>").
func NewStream(label string) *Stream { return detstream.New(label) }
