package daemon

import (
	"log/slog"

	"github.com/cuzk-dev/cuzk/internal/ifma"
)

// logArithmetic decides the CPU prover's field arithmetic before the first
// proof (ifma.Current runs the vector kernels' known-answer check) and
// says which it is; a kernel that fails the check is a warning: the
// prover then runs gnark-crypto's scalar code.
func logArithmetic(log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := ifma.Current()
	if st.Failed {
		log.Warn("AVX-512 IFMA kernels failed their known-answer check; proving with scalar arithmetic", "reason", st.Reason)
		return
	}
	log.Info("CPU field arithmetic", "arithmetic", st.Arithmetic, "reason", st.Reason)
}
