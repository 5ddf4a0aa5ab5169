package daemon

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/checked"
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
		p, err := chooseProvers(&cfg, !tc.useGPU, nil, log)
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
		_, holds := p.backend.(prover.ParamsHolder)
		if _, ok := p.backend.(*cpu.Backend); !ok || len(p.lanes) != 0 || p.devices() != nil || holds {
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
	err := Run(context.Background(), cfg, Options{ShutdownTimeout: time.Second})
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
	dev := &fakeDevice{t: t}
	gpuPV := provers{backend: &checked.Backend{Primary: dev, Fallback: &cpu.Backend{}}}
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
		if s.Mapped != tc.mapped || s.KeepC != tc.mapped || s.AssignmentOptions().OmitC == tc.mapped {
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
	if len(dev.loaded) != 1 || dev.loaded[0] != testkind.FileBase(10)+".params" {
		t.Errorf("registered %v", dev.loaded)
	}
	if len(dev.evicted) != 1 || dev.evicted[0] != dev.loaded[0] {
		t.Errorf("evicted %v at Close", dev.evicted)
	}
	cfg.SRS.Residency = "hot"
	if _, err := srsOptions(&cfg, Options{}, provers{}); err == nil {
		t.Error("a bad residency was accepted")
	}
}

// fakeDevice is a device backend without a device: it proves nothing but
// has what prover/device.go lets a device add, and records what it is
// told.
type fakeDevice struct {
	prover.Backend
	t               *testing.T
	loaded, evicted []string
	devs            []prover.Device
	closed          int
}

func (f *fakeDevice) Name() string { return "fake" }

func (f *fakeDevice) ParamsLoaded(p *groth16.Params, path string) error {
	if !p.Mapped() {
		f.t.Error("the device's parameters were decoded, not mapped")
	}
	f.loaded = append(f.loaded, filepath.Base(path))
	return nil
}

func (f *fakeDevice) ParamsEvicted(_ *groth16.Params, path string) {
	f.evicted = append(f.evicted, filepath.Base(path))
}

func (f *fakeDevice) PreferredResidency() prover.Residency {
	return prover.Residency{MappedParams: true, KeepC: true}
}

func (f *fakeDevice) ListDevices(withFree bool) ([]prover.Device, error) {
	out := slices.Clone(f.devs)
	for i := range out {
		if withFree {
			out[i].FreeBytes = out[i].TotalBytes / 2
		}
	}
	return out, nil
}

func (f *fakeDevice) Close() error { f.closed++; return nil }

// TestDeviceProvers: a device backend (behind the CPU check, as gpu.Choose
// returns it) gets one lane per device, named by the ordinal [gpus]
// configured; GetStatus lists them with their free memory; the reserved
// lane shares the backend; closing the provers closes the device once.
func TestDeviceProvers(t *testing.T) {
	dev := &fakeDevice{t: t, devs: []prover.Device{{Index: 0, Name: "A", TotalBytes: 8 << 30}, {Index: 1, Name: "B", TotalBytes: 16 << 30}}}
	be := &checked.Backend{Primary: dev, Fallback: &cpu.Backend{}}
	want := []int{2, 5} // CUDA_VISIBLE_DEVICES=2,5: visible 0 and 1
	p, err := deviceProvers(be, func(i int) int { return want[i] })
	if err != nil {
		t.Fatal(err)
	}
	if p.urgent != be || p.backend != be || len(p.lanes) != 2 {
		t.Fatalf("provers %+v", p)
	}
	for i, l := range p.lanes {
		if l.Name != fmt.Sprintf("gpu%d", want[i]) || l.Backend != be || l.DeviceMemory != int64(dev.devs[i].TotalBytes) {
			t.Errorf("lane %d: %+v", i, l)
		}
	}
	st, err := p.devices()()
	if err != nil || len(st) != 2 {
		t.Fatalf("devices %+v, %v", st, err)
	}
	if st[1].Ordinal != 5 || st[1].Name != "B" || st[1].Lane != "gpu5" || st[1].FreeBytes != 8<<30 || st[1].TotalBytes != 16<<30 {
		t.Errorf("device status %+v", st[1])
	}
	p.close()
	if dev.closed != 1 {
		t.Errorf("device closed %d times", dev.closed)
	}
}
