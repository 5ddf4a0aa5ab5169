// Package gpu is the CUDA proving backend: supranational's Groth16 kernels
// (the supraseal-c2 crate and its sppark dependency, as published on
// crates.io) called through cgo, behind prover.Backend.
//
// It is built only with -tags cuda, by scripts/build-gpu.sh, which fetches
// the CUDA compiler from PyPI and the crate sources through cargo and
// compiles them into a static library. Without the tag the package is a
// stub: New and Devices return ErrNoCUDA, so a default build needs no CUDA
// toolchain.
//
// supraseal reads the .params file itself (its own SRS reader, into pinned
// host memory), so the backend needs the file behind every *groth16.Params
// it is given: register it in Paths. The a, b, c vectors, the witness and
// the density bitmaps of each r1cs.ProvingAssignment are handed to the
// kernels in place: gnark-crypto's fr.Element and blst's fr_t are both four
// little-endian 64-bit limbs in Montgomery form with R = 2^256, and the
// proof points come back as gnark-crypto affine points (six limbs per Fp
// coordinate, R = 2^384). layout_test.go checks both against the C++ types.
package gpu

import (
	"errors"
	"fmt"
)

// ErrNoCUDA is returned when the binary was built without -tags cuda.
var ErrNoCUDA = errors.New("gpu: built without -tags cuda")

// ErrNoDevice is returned when the CUDA runtime reports no usable device
// (none installed, no driver, or none that sppark can use).
var ErrNoDevice = errors.New("gpu: no CUDA device")

// Device is one CUDA device as the runtime reports it.
type Device struct {
	Index           int
	Name            string
	TotalMemory     uint64 // bytes
	FreeMemory      uint64 // bytes, when queried (it creates a context on the device)
	Major, Minor    int    // compute capability
	Multiprocessors int
	// Usable: sppark proves on it (compute capability 7.0 or later with
	// cooperative launch).
	Usable bool
}

// ComputeCapability is "major.minor".
func (d Device) ComputeCapability() string { return fmt.Sprintf("%d.%d", d.Major, d.Minor) }

// CUDAError is a failed CUDA runtime or kernel call.
type CUDAError struct {
	Op   string // what was being done
	Code int    // cudaError_t, or an errno from sppark
	Msg  string
}

func (e *CUDAError) Error() string {
	return fmt.Sprintf("gpu: %s: %s (code %d)", e.Op, e.Msg, e.Code)
}

// CUDA runtime codes that mean "there is nothing to run on".
const (
	cudaErrorInsufficientDriver = 35
	cudaErrorNoDevice           = 100
	cudaErrorStubLibrary        = 34
	errnoENODEV                 = 19 // sppark's "No CUDA devices available"
)

// Is makes errors.Is(err, ErrNoDevice) true for the runtime's "no device"
// and "no driver" codes.
func (e *CUDAError) Is(target error) bool {
	if target != ErrNoDevice {
		return false
	}
	switch e.Code {
	case cudaErrorInsufficientDriver, cudaErrorNoDevice, cudaErrorStubLibrary, errnoENODEV:
		return true
	}
	return false
}

// Options configure New.
type Options struct {
	// Devices are the CUDA device indices the backend may use; empty means
	// all usable ones. supraseal spreads each batch over every device the
	// process sees, so a subset must also be set as CUDA_VISIBLE_DEVICES
	// before the process first touches CUDA (see VisibleDevices).
	Devices []int
	// Paths maps parameters to their .params files; nil: a map of the
	// backend's own, filled by ParamsLoaded.
	Paths *Paths
}

// VisibleDevices is the CUDA_VISIBLE_DEVICES value for devs.
func VisibleDevices(devs []int) string {
	s := ""
	for i, d := range devs {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(d)
	}
	return s
}

// selectDevices picks the devices of opt among all: every usable one when
// opt.Devices is empty, else exactly those listed, each of which must exist
// and be usable.
func selectDevices(all []Device, want []int) ([]Device, error) {
	if len(want) == 0 {
		var out []Device
		for _, d := range all {
			if d.Usable {
				out = append(out, d)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%w: %d device(s), none usable (compute capability 7.0+ with cooperative launch)", ErrNoDevice, len(all))
		}
		return out, nil
	}
	seen := make(map[int]bool)
	var out []Device
	for _, i := range want {
		if seen[i] {
			return nil, fmt.Errorf("gpu: device %d listed twice", i)
		}
		seen[i] = true
		if i < 0 || i >= len(all) {
			return nil, fmt.Errorf("%w: device %d configured but the runtime sees %d", ErrNoDevice, i, len(all))
		}
		if !all[i].Usable {
			return nil, fmt.Errorf("%w: device %d (%s, compute capability %s) is not usable", ErrNoDevice, i, all[i].Name, all[i].ComputeCapability())
		}
		out = append(out, all[i])
	}
	return out, nil
}
