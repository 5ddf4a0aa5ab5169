package snap

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// EncodeDir leaves update.json with the update's public values, the
// vanilla proofs as Curio sends them, and the updated sector; LoadKey
// refuses that sector and a sector with data as keys.
func TestEncodeDir(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(name string, in seal.Input) string {
		r, err := seal.PreCommit(ctx, in, 1)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, name)
		if err := sectordir.Write(dir, r.Sector(1000)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	cc := write("cc", seal.CCInput(filecoin.StackedDrg2KiBV1_1, 1000, 5))
	data := write("data", seal.DefaultInput(filecoin.StackedDrg2KiBV1_1))
	key, err := LoadKey(cc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(data); !errors.Is(err, ErrSectorKey) {
		t.Fatalf("a sector with data as the key: %v", err)
	}
	padded, err := seal.PadData(DefaultData(key.SectorSize()), key.SectorSize())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "updated")
	uf, err := EncodeDir(ctx, key, padded, "test data", out, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadUpdateFile(filepath.Join(out, UpdateFileName))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, uf) || got.MinerID == nil || *got.MinerID != 1000 {
		t.Fatalf("update.json %+v, EncodeDir said %+v", got, uf)
	}
	p := filecoin.StackedDrg2KiBUpdateV1
	if uf.RegisteredProof != int64(p) || uf.SectorNumber != 5 || uf.NewData != "test data" || uf.Partitions != p.Partitions() || uf.VProofsFile != ProofsFileName {
		t.Fatalf("%+v", uf)
	}
	updated, err := sectordir.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if uf.CommRNew != frHex(&updated.CommR) || uf.CommDNew != hex.EncodeToString(updated.CommD[:]) || uf.CommROld != frHex(&key.CommR) {
		t.Fatalf("update.json's commitments are not the updated sector's: %+v", uf)
	}
	raw, err := os.ReadFile(filepath.Join(out, ProofsFileName))
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil || len(list) != p.Partitions() {
		t.Fatalf("%s: %d entries, %v", ProofsFileName, len(list), err)
	}
	if _, err := base64.StdEncoding.DecodeString(list[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(out); !errors.Is(err, ErrSectorKey) {
		t.Fatalf("an updated sector as the key: %v", err)
	}
	if _, err := ParseUpdateFile([]byte(`{"comm_r_old":"00"}`)); err == nil {
		t.Fatal("update.json without registered_proof parsed")
	}
}
