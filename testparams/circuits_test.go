package testparams

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// TestBlankCircuits: the blank circuit of every 2 KiB kind has the
// upstream row count (REFERENCES-POST-SNAP §4 and the PoRep golden) and
// the public inputs its registered proofs declare.
func TestBlankCircuits(t *testing.T) {
	cases := []struct {
		c      filecoin.CircuitID
		rows   int
		inputs int // ONE excluded
	}{
		{filecoin.CircuitWindowPoSt2K, 21_866, filecoin.StackedDrgWindow2KiBV1_2.PublicInputCount()},
		{filecoin.CircuitWinningPoSt2K, 90_750, filecoin.StackedDrgWinning2KiBV1.PublicInputCount()},
		{filecoin.CircuitUpdate2K, 1_705_039, filecoin.StackedDrg2KiBUpdateV1.PublicInputCount()},
	}
	if !testing.Short() {
		porepInputs := filecoin.StackedDrg2KiBV1_1.SealSpec().PublicInputsPerPartition()
		cases = append(cases, struct {
			c      filecoin.CircuitID
			rows   int
			inputs int
		}{filecoin.CircuitPoRep2K, -1, porepInputs})
	}
	for _, tc := range cases {
		c, err := Blank(tc.c)
		if err != nil {
			t.Fatalf("%s: %v", tc.c, err)
		}
		cs, err := r1cs.Synthesize(c, r1cs.Counter{})
		if err != nil {
			t.Fatalf("%s: %v", tc.c, err)
		}
		if tc.rows >= 0 && cs.NumConstraints() != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.c, cs.NumConstraints(), tc.rows)
		}
		if cs.NumInputs() != tc.inputs+1 {
			t.Errorf("%s: %d inputs with ONE, want %d", tc.c, cs.NumInputs(), tc.inputs+1)
		}
	}
	if _, err := Blank("wpost-4k"); !errors.Is(err, filecoin.ErrUnknownCircuit) {
		t.Errorf("Blank(wpost-4k): %v", err)
	}
}

// TestEnsureCircuitWindowPoSt generates the (small) 2 KiB WindowPoSt test
// parameters: official file names of the circuit, the marker with the
// default seed, a verifying key with one IC point per public input, reuse
// on the next call; the seal-proof helpers still name the PoRep files.
func TestEnsureCircuitWindowPoSt(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	f, gen, err := EnsureCircuit(ctx, filecoin.CircuitWindowPoSt2K, dir, Options{Workers: 2})
	if err != nil || !gen {
		t.Fatalf("%v generated=%v", err, gen)
	}
	id := filecoin.StackedDrgWindow2KiBV1_2.ParameterSetID()
	if filepath.Base(f.Params) != id.ParamsFileName() || filepath.Base(f.VK) != id.VerifyingKeyFileName() || !f.Complete() || !IsTest(f.Params) {
		t.Fatalf("files %+v", f)
	}
	if got := markerSeed(f.Marker); got != DefaultSeed {
		t.Fatalf("marker seed %q", got)
	}
	vk, err := groth16.ReadVerifyingKeyFile(f.VK)
	if err != nil {
		t.Fatal(err)
	}
	if len(vk.IC) != filecoin.StackedDrgWindow2KiBV1_2.PublicInputCount()+1 {
		t.Fatalf("vk has %d IC points", len(vk.IC))
	}
	st, _ := os.Stat(f.Params)
	if _, gen, err := EnsureCircuit(ctx, filecoin.CircuitWindowPoSt2K, dir, Options{}); err != nil || gen {
		t.Fatalf("second Ensure: %v generated=%v", err, gen)
	}
	if st2, _ := os.Stat(f.Params); !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("parameters rewritten")
	}
	// The V1 window proof shares the file.
	if g, _ := PathsForCircuit(filecoin.StackedDrgWindow2KiBV1.CircuitID(), dir); g != f {
		t.Fatalf("window V1 files %+v", g)
	}
	porep, err := PathsFor(filecoin.StackedDrg2KiBV1, dir)
	if err != nil || filepath.Base(porep.Params) != filecoin.StackedDrg2KiBV1.ParameterSetID().ParamsFileName() {
		t.Fatalf("PoRep paths %+v %v", porep, err)
	}
	if _, err := PathsForCircuit("nope", dir); !errors.Is(err, filecoin.ErrUnknownCircuit) {
		t.Fatalf("unknown circuit: %v", err)
	}
}

// Parameters bigger than the machine are refused with both sizes named;
// a small circuit, or a machine whose memory is unknown, passes.
func TestCheckFits(t *testing.T) {
	small := func() (uint64, error) { return 8 << 30, nil }
	for _, c := range []filecoin.CircuitID{filecoin.CircuitWindowPoSt32G, filecoin.StackedDrg32GiBV1_1.CircuitID()} {
		err := CheckFits(c, small)
		if err == nil || !strings.Contains(err.Error(), "need more than") || !strings.Contains(err.Error(), "this machine has 8GiB") {
			t.Errorf("%s on an 8 GiB machine: %v", c, err)
		}
		if err := CheckFits(c, func() (uint64, error) { return 0, errors.New("no /proc") }); err != nil {
			t.Errorf("%s, memory unknown: %v", c, err)
		}
	}
	for _, c := range []filecoin.CircuitID{filecoin.CircuitUpdate2K, filecoin.StackedDrg2KiBV1_1.CircuitID()} {
		if err := CheckFits(c, small); err != nil {
			t.Errorf("%s on an 8 GiB machine: %v", c, err)
		}
	}
	if err := CheckFits(filecoin.CircuitID("nope"), small); err == nil {
		t.Error("an unknown circuit passed")
	}
}
