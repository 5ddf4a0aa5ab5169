package testkind

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

func TestCircuitFillsDomainAndInputsMatch(t *testing.T) {
	for _, k := range []int{MinLog, 8, 10} {
		pa := r1cs.NewProvingAssignment(r1cs.Size{})
		cs, err := r1cs.Synthesize(Circuit(k), pa)
		if err != nil {
			t.Fatal(err)
		}
		cs.AppendInputRows()
		if cs.NumConstraints() != 1<<k {
			t.Fatalf("k=%d: %d rows, want %d", k, cs.NumConstraints(), 1<<k)
		}
		in := PublicInputs(k)
		if len(in) != Inputs || len(pa.Input) != Inputs+1 {
			t.Fatalf("k=%d: %d public inputs, %d allocated", k, len(in), len(pa.Input))
		}
		for i := range in {
			if !in[i].Equal(&pa.Input[i+1]) {
				t.Fatalf("k=%d: input %d differs from the synthesised one", k, i)
			}
		}
	}
}

func TestCircuitIDs(t *testing.T) {
	if CircuitID(12) != "test-k12" {
		t.Fatal(CircuitID(12))
	}
	for _, bad := range []string{"test-k3", "test-k27", "test-k012", "test-k", "porep-2k", "test-kx"} {
		if _, err := ParseCircuitID(bad); !errors.Is(err, srs.ErrUnknownCircuit) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	f, err := Locator("/p").Locate("test-k12")
	if err != nil || f.Params != "/p/cuzk-test-mixed-k12.params" || f.VK != "/p/cuzk-test-mixed-k12.vk" || f.Official {
		t.Fatalf("%+v %v", f, err)
	}
}

func TestPlanValidates(t *testing.T) {
	kind := New()
	req := func(k uint64, size uint64, vanilla string) *engine.Request {
		return &engine.Request{Kind: proofkind.Test, RegisteredProof: k, SectorSize: size, VanillaProof: []byte(vanilla)}
	}
	for name, r := range map[string]*engine.Request{
		"k too small":       req(3, 8, ""),
		"k too large":       req(27, 1<<27, ""),
		"sector size":       req(10, 2048, ""),
		"not json":          req(10, 1024, "partitions=2"),
		"unknown field":     req(10, 1024, `{"partitons":2}`),
		"trailing data":     req(10, 1024, `{} {}`),
		"partitions":        req(10, 1024, `{"partitions":65}`),
		"negative delay":    req(10, 1024, `{"synthesis_delay_ms":-1}`),
		"fail out of range": req(10, 1024, `{"partitions":2,"fail_partition":2}`),
	} {
		if _, err := kind.Plan(context.Background(), r); !errors.Is(err, engine.ErrInvalidRequest) {
			t.Errorf("%s: %v", name, err)
		}
	}
	plan, err := kind.Plan(context.Background(), req(10, 1024, `{"partitions":3,"corrupt_inputs":true}`))
	if err != nil || plan.CircuitID != "test-k10" || len(plan.Partitions) != 3 {
		t.Fatalf("%+v %v", plan, err)
	}
	good := PublicInputs(10)
	if plan.Partitions[0].PublicInputs[0].Equal(&good[0]) {
		t.Fatal("corrupt_inputs left the inputs intact")
	}
	if plan, err := kind.Plan(context.Background(), req(10, 1024, "")); err != nil || len(plan.Partitions) != 1 {
		t.Fatalf("empty options: %v", err)
	}
}

func TestWriteParamsMarksThem(t *testing.T) {
	dir := t.TempDir()
	if err := WriteParams(dir, 6); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".params", ".vk", ".params" + filecoin.TestMarkerSuffix} {
		if _, err := os.Stat(filepath.Join(dir, FileBase(6)+ext)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := srs.ReadSizes(filepath.Join(dir, FileBase(6)+".params"))
	if err != nil || s.Domain != 64 || s.Inputs != Inputs+1 {
		t.Fatalf("%+v %v", s, err)
	}
}

// NewRequest is the request Plan reads: its circuit, its options.
func TestNewRequest(t *testing.T) {
	plan, err := New().Plan(context.Background(), NewRequest(10, Options{Partitions: 2}))
	if err != nil || plan.CircuitID != CircuitID(10) || len(plan.Partitions) != 2 {
		t.Fatalf("plan %+v: %v", plan, err)
	}
	if _, err := New().Plan(context.Background(), NewRequest(MaxLog+1, Options{})); !errors.Is(err, engine.ErrInvalidRequest) {
		t.Fatalf("2^%d rows: %v", MaxLog+1, err)
	}
}
