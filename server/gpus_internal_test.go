package server

import (
	"context"
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/prover/cpu"
)

// TestGetStatusGPUs: GetStatus.gpus is the engine's device query, mapped
// field for field; the metrics count GPU lanes and CPU retries.
func TestGetStatusGPUs(t *testing.T) {
	devices := func() ([]engine.DeviceStatus, error) {
		return []engine.DeviceStatus{
			{Ordinal: 1, Name: "NVIDIA H200", TotalBytes: 150_000_000_000, FreeBytes: 140_000_000_000, Lane: "gpu1"},
		}, nil
	}
	eng := testkit.NewEngine(t, testkit.EngineOptions{
		Lanes:   []engine.Lane{{Name: "gpu1", Backend: &cpu.Backend{}, DeviceMemory: 150_000_000_000}},
		Locator: testkind.Locator(t.TempDir()), Budget: 1 << 30, Devices: devices,
		Config: engine.Config{ReservedLane: true},
	}).Engine
	s := New(eng)
	out, err := (&service{s: s}).GetStatus(context.Background(), &cuzkv1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if g := out.GetGpus(); len(g) != 1 || g[0].GetOrdinal() != 1 || g[0].GetName() != "NVIDIA H200" ||
		g[0].GetVramTotalBytes() != 150_000_000_000 || g[0].GetVramFreeBytes() != 140_000_000_000 || g[0].GetCurrentJobId() != "" {
		t.Fatalf("gpus %v", g)
	}
	doc := statusDocument(eng.Status())
	if len(doc.GPUs) != 1 || len(doc.Lanes) != 2 || doc.Lanes[0].Name != "gpu1" || !doc.Lanes[1].Reserved ||
		!doc.Urgent.Enabled || doc.Memory.DeviceBytes != 150_000_000_000 || doc.Memory.ReservedBytes == 0 {
		t.Fatalf("status document: gpus %+v, lanes %+v, urgent %+v, memory %+v", doc.GPUs, doc.Lanes, doc.Urgent, doc.Memory)
	}
	s.metrics.GPURetry("bad_proof")
	text, err := s.metrics.Text()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cuzk_gpu_workers 1", `cuzk_gpu_proof_retries_total{reason="bad_proof"} 1`,
		`cuzk_gpu_proof_retries_total{reason="device_error"} 0`, "cuzk_preempt_pauses_total 0", "cuzk_urgent_active 0"} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
