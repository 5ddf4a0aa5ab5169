package daemon

import (
	"errors"
	"fmt"
	"io"

	"github.com/cuzk-dev/cuzk/prover/gpu"
)

// WriteGPUInfo lists the CUDA devices the runtime sees on w, one a line,
// and returns how many of them can prove. No device (none present, no
// driver, a build without -tags cuda) is a line on w and usable 0, not an
// error: `cuzk gpu-info` reports it as an answer; err is for a query that
// failed. queryFree creates a context on every device to read its free
// memory.
func WriteGPUInfo(w io.Writer, queryFree bool) (usable int, err error) {
	devs, err := gpu.Devices(queryFree)
	switch {
	case errors.Is(err, gpu.ErrNoCUDA):
		fmt.Fprintln(w, "no CUDA devices: this cuzk was built without -tags cuda (scripts/build-gpu.sh builds one with it)")
		return 0, nil
	case errors.Is(err, gpu.ErrNoDevice):
		fmt.Fprintf(w, "no CUDA devices (%v)\n", err)
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("listing CUDA devices: %w", err)
	}
	for _, d := range devs {
		free := "?"
		if queryFree {
			free = fmt.Sprintf("%.1f GiB", float64(d.FreeMemory)/(1<<30))
		}
		note := ""
		if !d.Usable {
			note = "  (not usable: needs compute capability 7.0+ with cooperative launch)"
		} else {
			usable++
		}
		fmt.Fprintf(w, "%d: %s, compute capability %s, %d SMs, memory %.1f GiB total, %s free%s\n",
			d.Index, d.Name, d.ComputeCapability(), d.Multiprocessors, float64(d.TotalMemory)/(1<<30), free, note)
	}
	return usable, nil
}
