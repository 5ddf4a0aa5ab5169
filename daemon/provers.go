package daemon

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/checked"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/prover/gpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// provers is what a daemon proves on: the engine's lanes and the reserved
// lane's backend. What a device adds (its parameter hooks, its devices,
// closing it) the daemon finds on backend through the interfaces of
// prover/device.go.
type provers struct {
	backend prover.Backend // every lane's
	// lanes has one lane per device of a prover.DeviceLister; empty, the
	// engine has one lane over backend.
	lanes  []engine.Lane
	urgent prover.Backend
	// ordinal maps a device's index to the one configured in [gpus]
	// (they differ when the daemon set CUDA_VISIBLE_DEVICES).
	ordinal func(index int) int
}

// visibleDevicesEnv is the CUDA runtime's device filter.
const visibleDevicesEnv = "CUDA_VISIBLE_DEVICES"

// chooseProvers picks the backends: the CPU when cpuOnly (the one-shot
// commands), else the CUDA devices of [gpus] (every usable one when the
// list is empty), each with a lane, or the CPU when there is none and
// gpus.cpu_fallback allows it. The reserved lane proves on every core when
// proving on the CPU (ordinary work pauses meanwhile), and on the GPU
// backend otherwise (supraseal's call cannot be paused, so urgent work
// waits for at most the one running).
func chooseProvers(cfg *config.Config, cpuOnly bool, onRetry func(reason string), log *slog.Logger) (provers, error) {
	cpuBE := &cpu.Backend{Workers: int(cfg.Prover.Threads)}
	onCPU := provers{backend: cpuBE, urgent: &cpu.Backend{}}
	want := make([]int, len(cfg.GPUs.Devices))
	for i, d := range cfg.GPUs.Devices {
		want[i] = int(d)
	}
	switch {
	case cpuOnly:
		return onCPU, nil
	case !gpu.Built && len(want) == 0:
		log.Info("proving on the CPU: this cuzk was built without CUDA (scripts/build-gpu.sh builds one with it); GetStatus lists no GPUs")
		return onCPU, nil
	case !gpu.Built && !cfg.GPUs.CPUFallback:
		return provers{}, fmt.Errorf("gpus.devices = %v, but this cuzk was built without CUDA (scripts/build-gpu.sh builds one with it); "+
			"set gpus.cpu_fallback = true to prove on the CPU instead: %w", want, gpu.ErrNoCUDA)
	case !gpu.Built:
		log.Warn("gpus.devices is set but this cuzk was built without CUDA: proving on the CPU (gpus.cpu_fallback = true); GetStatus lists no GPUs",
			"devices", want)
		return onCPU, nil
	}
	devices, ordinal, err := visibleDevices(want, log)
	if err != nil {
		return provers{}, err
	}
	retry := func(reason checked.Reason, circuit int, err error) {
		log.Warn("GPU proof redone on the CPU", "reason", string(reason), "circuit", circuit, "err", err)
		if onRetry != nil {
			onRetry(string(reason))
		}
	}
	be, g, err := gpu.Choose(gpu.Choice{Devices: devices, Required: !cfg.GPUs.CPUFallback, CPU: cpuBE, OnRetry: retry, Log: log})
	if err != nil {
		return provers{}, fmt.Errorf("%w (gpus.cpu_fallback = true proves on the CPU instead)", err)
	}
	if g == nil {
		log.Warn("GetStatus lists no GPUs: proving on the CPU")
		return onCPU, nil
	}
	return deviceProvers(be, ordinal)
}

// visibleDevices hides the devices not in want from the CUDA runtime:
// supraseal spreads every call over all the devices the process sees, so
// a subset is chosen through the runtime's filter, before anything touches
// CUDA. The backend then uses every visible device (devices nil), and
// ordinal maps their indices back to want. A filter set already is the
// operator's: want indexes what it leaves visible.
func visibleDevices(want []int, log *slog.Logger) (devices []int, ordinal func(int) int, err error) {
	identity := func(i int) int { return i }
	if len(want) == 0 {
		return nil, identity, nil
	}
	if v, ok := os.LookupEnv(visibleDevicesEnv); ok {
		log.Info("gpus.devices are indices into the devices "+visibleDevicesEnv+" leaves visible", visibleDevicesEnv, v, "devices", want)
		return want, identity, nil
	}
	if err := os.Setenv(visibleDevicesEnv, gpu.VisibleDevices(want)); err != nil {
		return nil, nil, fmt.Errorf("setting %s: %w", visibleDevicesEnv, err)
	}
	return nil, func(visible int) int {
		if visible < len(want) {
			return want[visible]
		}
		return visible
	}, nil
}

// deviceProvers gives each device of be a lane; the reserved lane shares
// be.
func deviceProvers(be prover.Backend, ordinal func(int) int) (provers, error) {
	p := provers{backend: be, urgent: be, ordinal: ordinal}
	if dl, ok := be.(prover.DeviceLister); ok {
		devs, err := dl.ListDevices(false)
		if err != nil {
			p.close()
			return provers{}, err
		}
		for _, d := range devs {
			p.lanes = append(p.lanes, engine.Lane{Name: gpuLaneName(ordinal(d.Index)), Backend: be, DeviceMemory: int64(d.TotalBytes)})
		}
	}
	return p, nil
}

// devices is the engine's device query for GetStatus (nil without
// devices).
func (p provers) devices() func() ([]engine.DeviceStatus, error) {
	dl, ok := p.backend.(prover.DeviceLister)
	if !ok || len(p.lanes) == 0 {
		return nil
	}
	return func() ([]engine.DeviceStatus, error) {
		devs, err := dl.ListDevices(true)
		if err != nil {
			return nil, err
		}
		out := make([]engine.DeviceStatus, len(devs))
		for i, d := range devs {
			o := p.ordinal(d.Index)
			out[i] = engine.DeviceStatus{Ordinal: o, Name: d.Name, TotalBytes: d.TotalBytes, FreeBytes: d.FreeBytes, Lane: gpuLaneName(o)}
		}
		return out, nil
	}
}

// paramHooks sets what the backend wants of the parameter manager: its
// residency (a GPU's parameters are mapped whatever the configuration
// says: supraseal holds its own pinned copy, so a decoded one would hold
// them twice) and its load and evict callbacks.
func (p provers) paramHooks(so *srs.Options) {
	if r, ok := p.backend.(prover.ResidencyPreference); ok {
		pref := r.PreferredResidency()
		if pref.MappedParams {
			so.Residency = srs.ResidencyMapped
		}
		so.KeepC = pref.KeepC
	}
	if h, ok := p.backend.(prover.ParamsHolder); ok {
		so.OnLoad = func(_ string, params *groth16.Params, f srs.Files) error { return h.ParamsLoaded(params, f.Params) }
		so.OnEvict = func(_ string, params *groth16.Params, f srs.Files) { h.ParamsEvicted(params, f.Params) }
	}
}

// close closes the backend (a GPU's pinned parameters) once the engine has
// stopped with it.
func (p provers) close() {
	if c, ok := p.backend.(io.Closer); ok {
		_ = c.Close()
	}
}

func gpuLaneName(ordinal int) string { return fmt.Sprintf("gpu%d", ordinal) }
