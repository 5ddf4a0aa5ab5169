// Package bytesize writes byte counts for people. It is a leaf so that
// the memory budget, the parameter checks and the command line print
// sizes alike whatever their layer.
package bytesize

import "fmt"

// Format writes n in binary units with up to four significant digits
// ("1.5GiB").
func Format(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%dB", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		f /= unit
		if f < unit && f > -unit {
			return fmt.Sprintf("%.4g%s", f, u)
		}
	}
	return fmt.Sprintf("%.4gEiB", f/unit)
}
