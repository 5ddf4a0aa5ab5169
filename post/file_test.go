package post

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// sectorDirs seals CC sectors ids of miner and writes each to its own
// directory.
func sectorDirs(t *testing.T, miner uint64, ids ...uint64) []string {
	t.Helper()
	var dirs []string
	for _, id := range ids {
		r, err := seal.PreCommit(context.Background(), seal.CCInput(filecoin.StackedDrg2KiBV1_1, miner, id), 1)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "s")
		if err := sectordir.Write(dir, r.Sector(miner)); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// One PoSt covers distinct sectors of one prover.
func TestLoadSectors(t *testing.T) {
	dirs := sectorDirs(t, 1000, 1, 2)
	other := sectorDirs(t, 1001, 3)
	if s, err := LoadSectors(dirs); err != nil || len(s) != 2 || s[0].ID != 1 || s[1].ID != 2 {
		t.Fatalf("%v", err)
	}
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{dirs[0], dirs[0]}, "both hold sector 1"},
		{[]string{dirs[0], other[0]}, "has prover id"},
		{[]string{filepath.Join(t.TempDir(), "none")}, ""},
	} {
		if _, err := LoadSectors(tc.dirs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.dirs, err, tc.want)
		}
	}
}

// WriteVanilla's public file reads back with the proven sectors' comm_r,
// one vanilla proof a sector; a WinningPoSt proves one sector drawn from
// the set it records.
func TestWriteVanilla(t *testing.T) {
	ctx := context.Background()
	sectors, err := LoadSectors(sectorDirs(t, 1000, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	var rnd [32]byte
	rnd[0] = 7
	for _, p := range []filecoin.RegisteredPoStProof{filecoin.StackedDrgWindow2KiBV1_2, filecoin.StackedDrgWinning2KiBV1} {
		dir := t.TempDir()
		out, pubPath := filepath.Join(dir, "v.json"), filepath.Join(dir, "v.public.json")
		pub, err := WriteVanilla(ctx, p, rnd, sectors, 0, 1, out, pubPath)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		got, err := ReadPublicFile(pubPath)
		if err != nil {
			t.Fatal(err)
		}
		if got.RegisteredProof != int64(p) || got.Randomness != hex.EncodeToString(rnd[:]) || len(got.Sectors) != len(pub.Sectors) || got.VanillaProofs != out {
			t.Fatalf("%v: %+v", p, got)
		}
		want := 2
		if p.Type() == filecoin.WinningPoSt {
			want = 1
			if got.WinningSectorIndex == nil || len(got.SectorSet) != 2 {
				t.Fatalf("%v: no draw recorded: %+v", p, got)
			}
		}
		if len(got.Sectors) != want {
			t.Fatalf("%v: %d sectors proven, want %d", p, len(got.Sectors), want)
		}
		for _, s := range got.Sectors {
			var proven *sectordir.Sector
			for _, c := range sectors {
				if c.ID == s.SectorID {
					proven = c
				}
			}
			if proven == nil {
				t.Fatalf("%v: sector %d was not given", p, s.SectorID)
			}
			b, _ := hex.DecodeString(s.CommR)
			if cr, err := fr32.ToElement([32]byte(b)); err != nil || cr != proven.CommR {
				t.Fatalf("%v: sector %d comm_r %s", p, s.SectorID, s.CommR)
			}
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var vanilla []string
		if err := json.Unmarshal(raw, &vanilla); err != nil || len(vanilla) != want {
			t.Fatalf("%v: %d vanilla proofs, %v", p, len(vanilla), err)
		}
	}
	if _, err := ParsePublicFile([]byte(`{"registered_proof":10,"randomness":"00"}`)); err == nil {
		t.Fatal("a public file without sectors parsed")
	}
}
