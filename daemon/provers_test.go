package daemon

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/prover/gpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestChooseProversWithoutDevice: on a machine or build without a usable
// CUDA device, [gpus] devices falls back to the CPU with a warning when
// cpu_fallback allows it and is an error naming the fix otherwise; the
// one-shot commands always prove on the CPU; nothing crashes.
func TestChooseProversWithoutDevice(t *testing.T) {
	if devs, err := gpu.Devices(false); err == nil {
		t.Skipf("%d CUDA device(s) present", len(devs))
	}
	// chooseProvers may set CUDA_VISIBLE_DEVICES; restore it afterwards.
	t.Setenv(visibleDevicesEnv, "")
	os.Unsetenv(visibleDevicesEnv)
	for _, tc := range []struct {
		devices  []uint32
		fallback bool
		useGPU   bool
		wantErr  bool
		wantLog  string
	}{
		{nil, true, false, false, ""},
		{[]uint32{0}, false, false, false, ""}, // one-shot: CPU whatever [gpus] says
		// No devices listed: without CUDA the CPU is the only choice; with
		// it, a missing device is an error unless cpu_fallback.
		{nil, false, true, gpu.Built, "CPU"},
		{nil, true, true, false, "CPU"},
		{[]uint32{0}, true, true, false, "proving on the CPU"},
		{[]uint32{0, 1}, false, true, true, ""},
	} {
		cfg := config.Default()
		cfg.GPUs.Devices, cfg.GPUs.CPUFallback = tc.devices, tc.fallback
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		p, err := chooseProvers(&cfg, tc.useGPU, nil, log)
		if tc.wantErr {
			if err == nil || !(errors.Is(err, gpu.ErrNoCUDA) || errors.Is(err, gpu.ErrNoDevice)) || !strings.Contains(err.Error(), "cpu_fallback") {
				t.Errorf("%+v: err %v, want one naming cpu_fallback", tc, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc, err)
			continue
		}
		if _, ok := p.backend.(*cpu.Backend); !ok || len(p.lanes) != 0 || p.devices != nil || p.mapParams || p.keepC {
			t.Errorf("%+v: provers %+v, want the CPU backend alone", tc, p)
		}
		if u, ok := p.urgent.(*cpu.Backend); !ok || u.Workers != 0 {
			t.Errorf("%+v: reserved lane backend %#v, want the CPU on every core", tc, p.urgent)
		}
		if !strings.Contains(logs.String(), tc.wantLog) {
			t.Errorf("%+v: log %q lacks %q", tc, logs.String(), tc.wantLog)
		}
		p.close()
	}
}

// TestDaemonRefusesMissingGPU: `cuzk daemon` with [gpus] devices that
// cannot be used and cpu_fallback = false exits with an error that says
// why, before it listens.
func TestDaemonRefusesMissingGPU(t *testing.T) {
	if devs, err := gpu.Devices(false); err == nil {
		t.Skipf("%d CUDA device(s) present", len(devs))
	}
	t.Setenv(visibleDevicesEnv, "")
	os.Unsetenv(visibleDevicesEnv)
	cfg := config.Default()
	sock := filepath.Join(t.TempDir(), "cuzk.sock")
	cfg.Daemon.Listen = "unix://" + sock
	cfg.GPUs.Devices = []uint32{0}
	cfg.GPUs.CPUFallback = false
	err := Run(context.Background(), cfg, RunOptions{ShutdownTimeout: time.Second})
	if err == nil || errors.Is(err, ErrServe) || !strings.Contains(err.Error(), "cpu_fallback") {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Fatal("the daemon listened before refusing its GPUs")
	}
}

// TestGPUProversHoldParamsOnce: with GPU lanes the parameters are mapped
// whatever [srs] residency says (supraseal holds the only decoded copy),
// the budget charges their verifying key alone, partitions keep c, and the
// registration hook still sees every load with its file; on the CPU the
// configuration decides.
func TestGPUProversHoldParamsOnce(t *testing.T) {
	dir := testkit.TestParams(t, 10)
	cfg := config.Default()
	cfg.SRS.Residency = "resident"
	var registered []string
	gpuPV := provers{mapParams: true, keepC: true,
		onLoad: func(_ string, p *groth16.Params, f srs.Files) error {
			if !p.Mapped() {
				t.Error("the GPU's parameters were decoded, not mapped")
			}
			registered = append(registered, filepath.Base(f.Params))
			return nil
		}}
	for _, tc := range []struct {
		name   string
		pv     provers
		mapped bool
	}{{"gpu", gpuPV, true}, {"cpu", provers{}, false}} {
		so, err := srsOptions(&cfg, Options{}, tc.pv)
		if err != nil {
			t.Fatal(err)
		}
		b := budget.New(1 << 30)
		so.Locator, so.Budget = testkind.Locator(dir), b
		m := srs.NewManager(so)
		id := testkind.CircuitID(10)
		s, err := m.Sizes(id)
		if err != nil {
			t.Fatal(err)
		}
		if s.Mapped != tc.mapped || s.KeepC != tc.pv.keepC || s.AssignmentOptions().OmitC == tc.pv.keepC {
			t.Fatalf("%s: sizes %+v", tc.name, s)
		}
		if _, _, err := m.Preload(context.Background(), id, 0); err != nil {
			t.Fatal(err)
		}
		want := s.DecodedBytes()
		if tc.mapped {
			want = s.ParamsBytes()
			if want*10 > s.DecodedBytes() {
				t.Fatalf("%s: mapped parameters charged %d of %d decoded bytes", tc.name, want, s.DecodedBytes())
			}
		}
		if b.Used() != want {
			t.Errorf("%s: budget holds %d, want %d", tc.name, b.Used(), want)
		}
		m.Close()
	}
	if len(registered) != 1 || registered[0] != testkind.FileBase(10)+".params" {
		t.Errorf("registered %v", registered)
	}
	cfg.SRS.Residency = "hot"
	if _, err := srsOptions(&cfg, Options{}, provers{}); err == nil {
		t.Error("a bad residency was accepted")
	}
}
