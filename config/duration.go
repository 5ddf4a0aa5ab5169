package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a length of time. In TOML it is written as a Go duration
// string ("30s", "5m", "1h30m") or as a whole number of seconds, either bare
// (300) or quoted ("300"), which is how the Rust cuzk reads
// memory.eviction_min_idle. Negative durations are rejected.
type Duration struct {
	time.Duration
}

// Seconds returns a Duration of n seconds.
func Seconds(n int64) Duration { return Duration{time.Duration(n) * time.Second} }

// ParseDuration parses "30s", "5m", "1h", "1h30m", "250ms" or a whole number
// of seconds ("300"). Fractions of a bare number, negative values and
// unknown units are errors.
func ParseDuration(s string) (Duration, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Duration{}, fmt.Errorf("invalid duration %q: empty", s)
	}
	if strings.Trim(in, "0123456789") == "" {
		n, err := strconv.ParseUint(in, 10, 64)
		if err != nil || n > uint64(maxSeconds) {
			return Duration{}, fmt.Errorf("invalid duration %q: too long", s)
		}
		return Seconds(int64(n)), nil
	}
	d, err := time.ParseDuration(in)
	if err != nil {
		return Duration{}, fmt.Errorf("invalid duration %q: want a whole number of seconds or a duration such as 30s, 5m, 1h", s)
	}
	if d < 0 {
		return Duration{}, fmt.Errorf("invalid duration %q: negative", s)
	}
	return Duration{d}, nil
}

const maxSeconds = int64(1<<63-1) / int64(time.Second)

// MarshalText implements encoding.TextMarshaler; the text is
// time.Duration's String form ("5m0s"), which ParseDuration reads back.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. The TOML decoder also
// passes integers through it, which makes a bare integer a count of seconds.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = v
	return nil
}
