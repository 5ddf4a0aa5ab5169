package server

import (
	"math"
	"testing"
	"time"
)

// A timeout_ms beyond what a time.Duration holds means "no limit", not an
// overflow into an immediate TIMEOUT.
func TestAwaitTimeoutOverflow(t *testing.T) {
	for _, c := range []struct {
		ms   uint64
		want time.Duration
	}{
		{0, 0},
		{1500, 1500 * time.Millisecond},
		{uint64(math.MaxInt64 / int64(time.Millisecond)), time.Duration(math.MaxInt64/int64(time.Millisecond)) * time.Millisecond},
		{18446744073710, 0},
		{math.MaxUint64, 0},
	} {
		if got := awaitTimeout(c.ms); got != c.want || got < 0 {
			t.Errorf("awaitTimeout(%d) = %v, want %v", c.ms, got, c.want)
		}
	}
}
