package prover

import "github.com/cuzk-dev/cuzk/groth16"

// What a device adds to a Backend. A CPU backend needs none of it; a
// backend that proves on devices of its own (prover/gpu, and
// prover/checked around it) implements the interfaces below, and the
// daemon finds them by type assertion on the backend it proves on, so that
// a new device needs no hook in the daemon: parameters reach it in the form
// it prefers, their loads and evictions reach it, each of its devices gets
// a lane and a line in GetStatus, and it is closed (io.Closer) after the
// engine has stopped and released its parameters.

// ParamsHolder is a backend that keeps its own copy of the parameters it
// proves with (supraseal reads the .params file into pinned host memory).
// The parameter manager tells it which file each *groth16.Params came
// from, and when it drops them.
type ParamsHolder interface {
	// ParamsLoaded is told that p was read from the .params file at path,
	// before p proves anything; an error refuses p (path does not hold
	// p, so the backend's copy would be another circuit's).
	ParamsLoaded(p *groth16.Params, path string) error
	// ParamsEvicted is told that p, read from path, is dropped; the
	// backend frees its copy.
	ParamsEvicted(p *groth16.Params, path string)
}

// Residency is how a backend wants parameters and assignments held.
type Residency struct {
	// MappedParams maps the .params file instead of decoding it, whatever
	// the configuration says: a backend that holds its own decoded copy
	// would otherwise have the process hold a second one.
	MappedParams bool
	// KeepC keeps each assignment's c vector (the backend reads it rather
	// than computing it from a and b).
	KeepC bool
}

// ResidencyPreference is a backend that wants a Residency other than the
// configuration's.
type ResidencyPreference interface {
	PreferredResidency() Residency
}

// Device is one accelerator a backend proves on.
type Device struct {
	// Index is the backend's number for it (CUDA's, among the devices
	// the process sees).
	Index      int
	Name       string
	TotalBytes uint64
	// FreeBytes is set when asked for (ListDevices(true)).
	FreeBytes uint64
}

// DeviceLister is a backend that proves on devices of its own: the daemon
// gives each a prover lane and reports it in GetStatus.
type DeviceLister interface {
	// ListDevices lists them; withFree also asks each for its free
	// memory, which may cost a device context.
	ListDevices(withFree bool) ([]Device, error)
}
