package server

import (
	"context"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestGetStatusArithmetic: GetStatus and GET /status report the process's
// field arithmetic as ifma decided it (CUZK_NO_IFMA=1 go test … reports
// scalar with its reason).
func TestGetStatusArithmetic(t *testing.T) {
	b := budget.New(1 << 30)
	params := srs.NewManager(srs.Options{Locator: testkind.Locator(t.TempDir()), Budget: b})
	eng, err := engine.New(engine.Options{Backend: &cpu.Backend{}, Params: params, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Shutdown(context.Background())
	out, err := (&service{s: New(eng)}).GetStatus(context.Background(), &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := ifma.Current()
	a := out.GetCpuArithmetic()
	if a.GetKind() != want.Arithmetic || a.GetReason() != want.Reason || a.GetCheckFailed() != want.Failed || a.GetKind() == "" {
		t.Fatalf("GetStatus cpu_arithmetic %v, ifma says %+v", a, want)
	}
	doc := statusDocument(eng.Status())
	if d := doc.CPUArithmetic; d.Kind != want.Arithmetic || d.Reason != want.Reason || d.CheckFailed != want.Failed {
		t.Fatalf("GET /status cpu_arithmetic %+v, ifma says %+v", d, want)
	}
}
