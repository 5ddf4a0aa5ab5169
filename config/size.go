package config

import (
	"fmt"
	"math"
	"math/big"
	"strings"
)

// ByteSize is a number of bytes. In TOML it is written as a string with a
// unit ("512MiB", "1.5GiB", "100GB", "1TiB") or as a plain integer of bytes.
type ByteSize uint64

// Size units. Binary units are powers of 1024, decimal ones powers of 1000.
const (
	KiB ByteSize = 1 << 10
	MiB ByteSize = 1 << 20
	GiB ByteSize = 1 << 30
	TiB ByteSize = 1 << 40
	PiB ByteSize = 1 << 50

	KB ByteSize = 1e3
	MB ByteSize = 1e6
	GB ByteSize = 1e9
	TB ByteSize = 1e12
	PB ByteSize = 1e15
)

// sizeUnits lists the units ParseSize accepts, matched case-insensitively,
// and the order String tries them in: largest first, binary before decimal.
var sizeUnits = []struct {
	name string
	mult ByteSize
}{
	{"PiB", PiB}, {"PB", PB},
	{"TiB", TiB}, {"TB", TB},
	{"GiB", GiB}, {"GB", GB},
	{"MiB", MiB}, {"MB", MB},
	{"KiB", KiB}, {"kB", KB},
	{"B", 1},
}

// ParseSize parses a size such as "512MiB", "1.5GiB", "100GB", "1TiB",
// "4096B" or "4096" (bytes). Units are case-insensitive, a space may separate
// number and unit. Single-letter units ("K", "G") are rejected because tools
// disagree on whether they mean 1000 or 1024. A fraction is allowed as long
// as the result is a whole number of bytes. Negative values, overflow
// and unknown units are errors; nothing is rounded or defaulted.
func ParseSize(s string) (ByteSize, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return 0, fmt.Errorf("invalid size %q: empty", s)
	}
	i := 0
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	num, unit := in[:i], strings.TrimSpace(in[i:])
	if num == "" || num == "." || strings.Count(num, ".") > 1 ||
		strings.HasPrefix(num, ".") || strings.HasSuffix(num, ".") {
		return 0, fmt.Errorf("invalid size %q: want a non-negative number followed by an optional unit such as GiB", s)
	}

	mult := ByteSize(0)
	if unit == "" {
		mult = 1
	}
	for _, u := range sizeUnits {
		if strings.EqualFold(unit, u.name) {
			mult = u.mult
			break
		}
	}
	if mult == 0 {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use B, KiB, MiB, GiB, TiB, PiB, kB, MB, GB, TB or PB)", s, unit)
	}

	// Exact rational arithmetic: "1.5GiB" is exactly 1610612736 bytes, and
	// "0.1KiB" (102.4 bytes) is rejected instead of silently truncated.
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("invalid size %q: bad number %q", s, num)
	}
	r.Mul(r, new(big.Rat).SetUint64(uint64(mult)))
	if !r.IsInt() {
		return 0, fmt.Errorf("invalid size %q: not a whole number of bytes", s)
	}
	n := r.Num()
	if !n.IsUint64() {
		return 0, fmt.Errorf("invalid size %q: larger than %d bytes", s, uint64(math.MaxUint64))
	}
	return ByteSize(n.Uint64()), nil
}

// String writes the size with the unit that gives the smallest whole number
// (binary units win a tie), for example "5GiB", "100GB", "1536MiB" or "1023B".
// ParseSize(b.String()) == b for every b.
func (b ByteSize) String() string {
	if b == 0 {
		return "0B"
	}
	best, bestUnit := uint64(b), "B"
	for _, u := range sizeUnits {
		if b%u.mult == 0 && uint64(b/u.mult) < best {
			best, bestUnit = uint64(b/u.mult), u.name
		}
	}
	return fmt.Sprintf("%d%s", best, bestUnit)
}

// MarshalText implements encoding.TextMarshaler.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler. The TOML decoder also
// passes integers through it, which makes a bare integer a byte count.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// Budget is the value of memory.total_budget: either "auto" (MemTotal minus
// memory.safety_margin, worked out when the daemon starts) or a fixed size.
type Budget struct {
	Auto bool
	Size ByteSize // meaningful only when Auto is false
}

// AutoBudget is the "auto" budget, the default.
var AutoBudget = Budget{Auto: true}

// FixedBudget returns a budget of exactly size bytes.
func FixedBudget(size ByteSize) Budget { return Budget{Size: size} }

// ParseBudget parses "auto" (any case) or a size accepted by ParseSize.
func ParseBudget(s string) (Budget, error) {
	if strings.EqualFold(strings.TrimSpace(s), "auto") {
		return AutoBudget, nil
	}
	size, err := ParseSize(s)
	if err != nil {
		return Budget{}, fmt.Errorf("%w; or \"auto\"", err)
	}
	return FixedBudget(size), nil
}

// String returns "auto" or the size.
func (b Budget) String() string {
	if b.Auto {
		return "auto"
	}
	return b.Size.String()
}

// MarshalText implements encoding.TextMarshaler.
func (b Budget) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *Budget) UnmarshalText(text []byte) error {
	v, err := ParseBudget(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}
