package bytesize

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 1023: "1023B", -1023: "-1023B", 1024: "1KiB", 1536 << 20: "1.5GiB", 44 << 30: "44GiB",
		-3 << 20: "-3MiB", 47 << 40: "47TiB", 1 << 60: "1EiB", math.MaxInt64: "8EiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
