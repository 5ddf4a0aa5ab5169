package main

import (
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// TestSectorSizeSpellings: Curio's and lotus' spellings (binary units, as
// go-units' RAMInBytes reads them) name the same sector sizes as ours.
func TestSectorSizeSpellings(t *testing.T) {
	for _, c := range []struct {
		in   string
		want filecoin.SectorSize
	}{
		{"2KiB", 2 << 10}, {"2kib", 2 << 10}, {"2K", 2 << 10}, {"2KB", 2 << 10}, {"2048", 2 << 10},
		{"8MiB", 8 << 20}, {"8M", 8 << 20}, {"8mb", 8 << 20},
		{"512MiB", 512 << 20}, {"512M", 512 << 20},
		{"32GiB", 32 << 30}, {"32G", 32 << 30}, {"32GB", 32 << 30}, {"32 GiB", 32 << 30}, {"34359738368", 32 << 30},
		{"64G", 64 << 30}, {"64gb", 64 << 30},
	} {
		var f sectorSizeFlag
		if err := f.Set(c.in); err != nil || f.v != c.want || !f.set {
			t.Errorf("%q: %v, %v", c.in, f.v, err)
		}
	}
	for _, in := range []string{"", "G", "32", "33G", "32X", "32GiBs", "-2K", "1.5G", "99999999999999999999", "17179869184T"} {
		var f sectorSizeFlag
		err := f.Set(in)
		if err == nil {
			t.Errorf("%q accepted as %v", in, f.v)
			continue
		}
		if !strings.Contains(err.Error(), "32GiB") || !strings.Contains(err.Error(), "unsupported sector size") {
			t.Errorf("%q: error does not list the sizes: %v", in, err)
		}
	}
}
