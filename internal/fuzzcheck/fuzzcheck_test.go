package fuzzcheck

import (
	"fmt"
	"testing"
	"time"
)

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

var sink []byte

// Check passes a decoder within its bounds and fails one that is slow on
// every run or allocates for a length its input does not have.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int
		decode func()
		fails  bool
	}{
		{"fast", 1000, func() { sink = make([]byte, 1000) }, false},
		{"slow", 10, func() { time.Sleep(MaxDuration + 50*time.Millisecond) }, true},
		{"allocates", 10, func() { sink = make([]byte, 4<<20) }, true},
		{"size-proportional", 1 << 20, func() { sink = make([]byte, 8<<20) }, false},
	} {
		r := &recorder{TB: t}
		Check(r, c.n, c.decode)
		if got := r.failed != ""; got != c.fails {
			t.Errorf("%s: failed %v (%q), want %v", c.name, got, r.failed, c.fails)
		}
	}
}
