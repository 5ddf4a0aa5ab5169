package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/checked"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/prover/gpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// provers is what a command proves on: the engine's lanes and reserved
// lane backend, and what the parameter manager and the status need to
// serve a GPU backend.
type provers struct {
	backend prover.Backend // the single CPU lane (lanes empty)
	lanes   []engine.Lane  // one per GPU
	urgent  prover.Backend
	// mapParams, keepC, onLoad and onEvict go to srs.Options: GPU lanes
	// map the parameters (supraseal reads the file into pinned memory
	// itself; the process's own copy is then the page cache, read only by
	// the CPU re-check's fallback proof) and keep c (supraseal takes it).
	mapParams bool
	keepC     bool
	onLoad    func(string, *groth16.Params, srs.Files) error
	onEvict   func(string, *groth16.Params, srs.Files)
	devices   func() ([]engine.DeviceStatus, error)
	close     func()
}

// visibleDevicesEnv is the CUDA runtime's device filter.
const visibleDevicesEnv = "CUDA_VISIBLE_DEVICES"

// chooseProvers picks the backends: the CPU for the one-shot commands
// (useGPU false), and for the daemon the CUDA devices of [gpus] (every
// usable one when the list is empty), each with a lane, or the CPU when
// there is none and gpus.cpu_fallback allows it. The reserved lane proves
// on every core when proving on the CPU (ordinary work pauses meanwhile),
// and on the GPU backend otherwise (supraseal's call cannot be paused, so
// urgent work waits for at most the one running).
func chooseProvers(cfg *config.Config, useGPU bool, onRetry func(reason string), log *slog.Logger) (provers, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cpuBE := &cpu.Backend{Workers: int(cfg.Prover.Threads)}
	onCPU := provers{backend: cpuBE, urgent: &cpu.Backend{}, close: func() {}}
	if !useGPU {
		return onCPU, nil
	}
	want := make([]int, len(cfg.GPUs.Devices))
	for i, d := range cfg.GPUs.Devices {
		want[i] = int(d)
	}
	if !gpu.Built {
		if len(want) == 0 {
			log.Info("proving on the CPU: this cuzk was built without CUDA (scripts/build-gpu.sh builds one with it); GetStatus lists no GPUs")
			return onCPU, nil
		}
		if !cfg.GPUs.CPUFallback {
			return provers{}, fmt.Errorf("gpus.devices = %v, but this cuzk was built without CUDA (scripts/build-gpu.sh builds one with it); "+
				"set gpus.cpu_fallback = true to prove on the CPU instead: %w", want, gpu.ErrNoCUDA)
		}
		log.Warn("gpus.devices is set but this cuzk was built without CUDA: proving on the CPU (gpus.cpu_fallback = true); GetStatus lists no GPUs",
			"devices", want)
		return onCPU, nil
	}

	// supraseal spreads every call over all the devices the process sees,
	// so a subset is chosen through the runtime's filter, before anything
	// touches CUDA; the backend then uses every visible device and
	// ordinals map back through want.
	ordinal := func(visible int) int { return visible }
	devices := want
	if len(want) > 0 {
		if v, ok := os.LookupEnv(visibleDevicesEnv); !ok {
			if err := os.Setenv(visibleDevicesEnv, gpu.VisibleDevices(want)); err != nil {
				return provers{}, fmt.Errorf("setting %s: %w", visibleDevicesEnv, err)
			}
			devices = nil
			ordinal = func(visible int) int {
				if visible < len(want) {
					return want[visible]
				}
				return visible
			}
		} else {
			log.Info("gpus.devices are indices into the devices "+visibleDevicesEnv+" leaves visible", visibleDevicesEnv, v, "devices", want)
		}
	}
	retry := func(reason checked.Reason, circuit int, err error) {
		log.Warn("GPU proof redone on the CPU", "reason", string(reason), "circuit", circuit, "err", err)
		if onRetry != nil {
			onRetry(string(reason))
		}
	}
	paths := &gpu.Paths{}
	be, g, err := gpu.Choose(gpu.Choice{Devices: devices, Required: !cfg.GPUs.CPUFallback, Paths: paths, CPU: cpuBE, OnRetry: retry, Log: log})
	if err != nil {
		return provers{}, fmt.Errorf("%w (gpus.cpu_fallback = true proves on the CPU instead)", err)
	}
	if g == nil {
		log.Warn("GetStatus lists no GPUs: proving on the CPU")
		return onCPU, nil
	}
	chk, _ := be.(*checked.Backend)
	p := provers{
		urgent:    be,
		mapParams: true,
		keepC:     true,
		onLoad: func(_ string, params *groth16.Params, f srs.Files) error {
			return paths.Register(params, f.Params)
		},
		onEvict: func(_ string, params *groth16.Params, f srs.Files) {
			g.Evict(f.Params)
			paths.Forget(params)
			if chk != nil {
				chk.Forget(params)
			}
		},
		close: func() { _ = g.Close() },
	}
	var used []int
	for _, d := range g.Devices() {
		o := ordinal(d.Index)
		used = append(used, d.Index)
		p.lanes = append(p.lanes, engine.Lane{Name: gpuLaneName(o), Backend: be, DeviceMemory: int64(d.TotalMemory)})
	}
	p.devices = func() ([]engine.DeviceStatus, error) {
		all, err := gpu.Devices(true)
		if err != nil {
			return nil, err
		}
		var out []engine.DeviceStatus
		for _, d := range all {
			if !slices.Contains(used, d.Index) {
				continue
			}
			o := ordinal(d.Index)
			out = append(out, engine.DeviceStatus{Ordinal: o, Name: d.Name, TotalBytes: d.TotalMemory, FreeBytes: d.FreeMemory, Lane: gpuLaneName(o)})
		}
		return out, nil
	}
	return p, nil
}

func gpuLaneName(ordinal int) string { return fmt.Sprintf("gpu%d", ordinal) }
