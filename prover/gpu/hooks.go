package gpu

import (
	"io"
	"slices"

	"github.com/cuzk-dev/cuzk/prover"
)

// The device interfaces the daemon finds on the backend (prover/device.go);
// checked.Backend forwards them.
var (
	_ prover.Backend             = (*Backend)(nil)
	_ prover.ParamsHolder        = (*Backend)(nil)
	_ prover.ResidencyPreference = (*Backend)(nil)
	_ prover.DeviceLister        = (*Backend)(nil)
	_ io.Closer                  = (*Backend)(nil)
)

// PreferredResidency implements prover.ResidencyPreference: the parameters
// mapped (supraseal reads the file into pinned memory itself; the process's
// own copy is then the page cache, read only by the CPU re-check's fallback
// proof) and c kept (supraseal takes it).
func (*Backend) PreferredResidency() prover.Residency {
	return prover.Residency{MappedParams: true, KeepC: true}
}

// ListDevices implements prover.DeviceLister: the devices the backend
// proves on, with their free memory when withFree.
func (b *Backend) ListDevices(withFree bool) ([]prover.Device, error) {
	used := b.Devices()
	if withFree {
		all, err := Devices(true)
		if err != nil {
			return nil, err
		}
		used = slices.DeleteFunc(all, func(d Device) bool {
			return !slices.ContainsFunc(b.Devices(), func(u Device) bool { return u.Index == d.Index })
		})
	}
	out := make([]prover.Device, len(used))
	for i, d := range used {
		out[i] = prover.Device{Index: d.Index, Name: d.Name, TotalBytes: d.TotalMemory, FreeBytes: d.FreeMemory}
	}
	return out, nil
}
