package server

import (
	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// cpuArithmetic is GetStatus's report of the process's field arithmetic
// (decided once, at the daemon's start-up check).
func cpuArithmetic() *cuzkv1.CPUArithmetic {
	st := ifma.Current()
	return &cuzkv1.CPUArithmetic{Kind: st.Arithmetic, Reason: st.Reason, CheckFailed: st.Failed}
}

// statusArithmetic is the same for GET /status.
func statusArithmetic() statusdoc.Arithmetic {
	st := ifma.Current()
	return statusdoc.Arithmetic{Kind: st.Arithmetic, Reason: st.Reason, CheckFailed: st.Failed}
}
