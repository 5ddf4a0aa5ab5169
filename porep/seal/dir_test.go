package seal

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// WriteDir leaves the C1 plain and wrapped, commdr.json with the seal's
// public values, and a sector that loads back with the seal's comm_r.
func TestWriteDir(t *testing.T) {
	in := CCInput(filecoin.StackedDrg2KiBV1_1, 1234, 7)
	seed := DefaultSeed
	o, r, err := Seal(context.Background(), in, seed, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := WriteDir(dir, in, seed, o, r, 1234); err != nil {
		t.Fatal(err)
	}
	plain, err := os.ReadFile(filepath.Join(dir, C1Name))
	if err != nil {
		t.Fatal(err)
	}
	wrapped, err := os.ReadFile(filepath.Join(dir, C1WrappedName))
	if err != nil {
		t.Fatal(err)
	}
	if po, w, err := c1.ParseAny(plain); err != nil || w != nil || po.CommR != o.CommR {
		t.Fatalf("c1.json: %v, envelope %v", err, w)
	}
	if _, w, err := c1.ParseAny(wrapped); err != nil || w == nil || w.SectorNum != 7 {
		t.Fatalf("c1-wrapped.json: %v, envelope %+v", err, w)
	}
	cd, err := ReadCommDR(filepath.Join(dir, CommDRName))
	if err != nil {
		t.Fatal(err)
	}
	commR, commD := r.CommR(), r.CommD()
	if cd.CommR != hex.EncodeToString(commR[:]) || cd.CommD != hex.EncodeToString(commD[:]) || cd.Sector != 7 ||
		cd.RegisteredProof != uint64(filecoin.StackedDrg2KiBV1_1) || cd.SectorSize != 2048 || cd.Seed != hex.EncodeToString(seed[:]) {
		t.Fatalf("commdr.json: %+v", cd)
	}
	s, err := sectordir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != 7 || s.MinerID == nil || *s.MinerID != 1234 || s.CommR != r.Sector(1234).CommR {
		t.Fatalf("sector %d of miner %v", s.ID, s.MinerID)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte("["), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCommDR(filepath.Join(dir, "bad.json")); err == nil {
		t.Fatal("ReadCommDR took a truncated file")
	}
	if err := WriteDir(filepath.Join(dir, C1Name, "x"), in, seed, o, r, 1234); err == nil {
		t.Fatal("WriteDir under a file succeeded")
	}
}
