package config

import (
	"math"
	"strings"
	"testing"
	"testing/quick"
	"time"
)

func TestParseSize(t *testing.T) {
	good := []struct {
		in   string
		want ByteSize
	}{
		{"0", 0},
		{"4096", 4096},
		{"4096B", 4096},
		{"1KiB", 1024},
		{"1kB", 1000},
		{"1KB", 1000},
		{"512MiB", 512 << 20},
		{"626MiB", 626 * 1024 * 1024}, // Rust config test
		{"1.5GiB", 1610612736},
		{"0.5MiB", 524288},
		{"5GiB", 5 << 30},
		{"50GiB", 50 * 1024 * 1024 * 1024}, // Rust config test
		{"140GiB", 140 << 30},
		{"100GB", 100_000_000_000},
		{"100MB", 100_000_000},
		{"0.3GB", 300_000_000},
		{"1TiB", 1 << 40},
		{"2TB", 2_000_000_000_000},
		{"1PiB", 1 << 50},
		{"5 GiB", 5 << 30},
		{" 5GiB ", 5 << 30},
		{"5gib", 5 << 30},
		{"007MiB", 7 << 20},
		{"18446744073709551615", math.MaxUint64},
	}
	for _, tc := range good {
		got, err := ParseSize(tc.in)
		if err != nil {
			t.Errorf("ParseSize(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseSize(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}

	bad := []struct{ in, why string }{
		{"", "empty"},
		{"   ", "empty"},
		{"GiB", "non-negative number"},
		{"-1GiB", "non-negative number"},
		{"+1GiB", "non-negative number"},
		{"1.5", "whole number"},
		{"0.1KiB", "whole number"},
		{"1XB", `unknown unit "XB"`},
		{"1G", `unknown unit "G"`},
		{"1K", `unknown unit "K"`},
		{"1e9", `unknown unit "e9"`},
		{"1,000", `unknown unit ",000"`},
		{"15EiB", `unknown unit "EiB"`},
		{"1.2.3GiB", "non-negative number"},
		{".5GiB", "non-negative number"},
		{"5.GiB", "non-negative number"},
		{"auto", "non-negative number"},
		{"18446744073709551616", "larger than"},
		{"16777216TiB", "larger than"},
	}
	for _, tc := range bad {
		got, err := ParseSize(tc.in)
		if err == nil {
			t.Errorf("ParseSize(%q) = %d, want error", tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), `"`+tc.in+`"`) {
			t.Errorf("ParseSize(%q) error %q, want it to quote the input and say %q", tc.in, err, tc.why)
		}
	}
}

func TestByteSizeString(t *testing.T) {
	for _, tc := range []struct {
		in   ByteSize
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1023, "1023B"},
		{1024, "1KiB"},
		{1000, "1kB"},
		{5 * GiB, "5GiB"},
		{100 * GB, "100GB"},
		{1536 * MiB, "1536MiB"},
		{TiB, "1TiB"},
		{2048000, "2000KiB"}, // = 2048kB too; binary wins the smaller number
		{math.MaxUint64, "18446744073709551615B"},
	} {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("ByteSize(%d).String() = %q, want %q", uint64(tc.in), got, tc.want)
		}
	}
}

func TestByteSizeRoundTrip(t *testing.T) {
	roundTrip := func(n uint64) bool {
		b := ByteSize(n)
		got, err := ParseSize(b.String())
		return err == nil && got == b
	}
	if err := quick.Check(roundTrip, nil); err != nil {
		t.Error(err)
	}
	// Values with many trailing zero bits, which random numbers rarely hit.
	for shift := range 64 {
		for _, m := range []uint64{1, 3, 5, 1000, 1 << 10} {
			if n := m << shift; n>>shift == m && !roundTrip(n) {
				t.Errorf("round trip of %d failed", n)
			}
		}
	}
}

func TestParseBudget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Budget
	}{
		{"auto", AutoBudget},
		{"AUTO", AutoBudget},
		{" auto ", AutoBudget},
		{"256GiB", FixedBudget(256 * GiB)},
		{"512GiB", FixedBudget(512 * GiB)},
		{"274877906944", FixedBudget(256 * GiB)},
	} {
		got, err := ParseBudget(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBudget(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, err := ParseBudget(got.String()); err != nil || back != got {
			t.Errorf("ParseBudget(%q) does not round trip: %v, %v", got.String(), back, err)
		}
	}
	for _, in := range []string{"automatic", "", "-1GiB", "lots"} {
		if got, err := ParseBudget(in); err == nil {
			t.Errorf("ParseBudget(%q) = %v, want error", in, got)
		} else if !strings.Contains(err.Error(), `"auto"`) {
			t.Errorf("ParseBudget(%q) error %q should mention \"auto\"", in, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := []struct {
		in   string
		want time.Duration
	}{
		{"5m", 5 * time.Minute},
		{"300s", 300 * time.Second},
		{"10m", 10 * time.Minute},
		{"60", 60 * time.Second}, // Rust: a bare number is seconds
		{"0", 0},
		{"1h", time.Hour},
		{"1h30m", 90 * time.Minute},
		{"250ms", 250 * time.Millisecond},
		{"1.5h", 90 * time.Minute},
		{" 30s ", 30 * time.Second},
	}
	for _, tc := range good {
		got, err := ParseDuration(tc.in)
		if err != nil || got.Duration != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		if back, err := ParseDuration(got.String()); err != nil || back != got {
			t.Errorf("ParseDuration(%q) does not round trip: %v, %v", got.String(), back, err)
		}
	}
	bad := []struct{ in, why string }{
		{"", "empty"},
		{"-5m", "negative"},
		{"-1", "want a whole number of seconds"},
		{"5x", "want a whole number of seconds"},
		{"1.5", "want a whole number of seconds"},
		{"5 m", "want a whole number of seconds"},
		{"1d", "want a whole number of seconds"},
		{"five minutes", "want a whole number of seconds"},
		{"99999999999999999999", "too long"},
		{"9223372037", "too long"},
	}
	for _, tc := range bad {
		got, err := ParseDuration(tc.in)
		if err == nil {
			t.Errorf("ParseDuration(%q) = %v, want error", tc.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), `"`+tc.in+`"`) {
			t.Errorf("ParseDuration(%q) error %q, want it to quote the input and say %q", tc.in, err, tc.why)
		}
	}
}
