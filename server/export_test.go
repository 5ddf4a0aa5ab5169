package server

import "time"

// SetStatusTimeouts shortens the status listener's idle and header
// timeouts for a test (servers started after the call use them) and
// returns a function that restores them.
func SetStatusTimeouts(readHeader, idle time.Duration) (restore func()) {
	statusLimitsMu.Lock()
	defer statusLimitsMu.Unlock()
	old := statusLimits
	statusLimits.ReadHeaderTimeout, statusLimits.IdleTimeout = readHeader, idle
	return func() {
		statusLimitsMu.Lock()
		statusLimits = old
		statusLimitsMu.Unlock()
	}
}
