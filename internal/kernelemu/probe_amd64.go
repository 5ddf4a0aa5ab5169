//go:build linux

package kernelemu

// The self-test's kernel (probe_amd64.s): declared here so that the test
// can take its ABI0 address.
//
//lint:ignore U1000 only ever run under the emulator, through probeAddr.
func probe(z, a *[8]uint64) uint64

func probeAddr() uintptr
