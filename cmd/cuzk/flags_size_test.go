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

// Each command's size error lists what that command supports: seal only
// what it seals in memory, params gen the published sizes, verify-seal
// (and params check, whose --manifest may list any) every size
// rust-fil-proofs accepts.
func TestSectorSizeErrorsPerCommand(t *testing.T) {
	for _, c := range []struct {
		args        []string
		want, never []string
	}{
		{[]string{"seal", "--out", t.TempDir(), "--sector-size", "32G"}, []string{"one of 2KiB, 8MiB, 512MiB, or bytes"}, []string{"32GiB,", "4KiB"}},
		{[]string{"demo", "--sector-size", "64GiB"}, []string{"one of 2KiB, 8MiB, 512MiB, or bytes"}, []string{"64GiB,"}},
		{[]string{"params", "gen", "--sector-size", "4KiB"}, []string{"one of 2KiB, 8MiB, 512MiB, 32GiB, 64GiB, or bytes"}, []string{"4KiB,"}},
		{[]string{"bench", "synth", "--synthetic", "--sector-size", "1G"}, []string{"one of 2KiB, 8MiB, 512MiB, 32GiB, 64GiB, or bytes"}, nil},
		{[]string{"params", "check", "--sector-size", "3KiB"}, []string{"4KiB", "1GiB", "64GiB"}, nil},
		{[]string{"verify-seal", "--sector-size", "3KiB"}, []string{"4KiB", "1GiB", "64GiB"}, nil},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitError || !strings.Contains(stderr, "unsupported sector size") {
			t.Errorf("%v: exit %d %q", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q lacks %q", c.args, stderr, w)
			}
		}
		for _, w := range c.never {
			if strings.Contains(stderr, w) {
				t.Errorf("%v: %q lists %q", c.args, stderr, w)
			}
		}
	}
	// A size the command supports is taken in any spelling.
	f := sectorSizeFlag{allowed: sealableSizes()}
	if err := f.Set("512M"); err != nil || f.v != filecoin.SectorSize512MiB {
		t.Errorf("seal 512M: %v %v", f.v, err)
	}
}
