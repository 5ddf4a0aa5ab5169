package sectordir_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/sectordir"
)

var (
	sealOnce sync.Once
	sealed   *seal.Replica
	sealErr  error
)

// sealed2KiB is the default 2 KiB test sector, sealed once per test binary.
func sealed2KiB(t *testing.T) *seal.Replica {
	t.Helper()
	sealOnce.Do(func() {
		sealed, sealErr = seal.PreCommit(context.Background(), seal.DefaultInput(filecoin.StackedDrg2KiBV1_1), 2)
	})
	if sealErr != nil {
		t.Fatal(sealErr)
	}
	return sealed
}

func sectorOf(t *testing.T, r *seal.Replica) *sectordir.Sector {
	t.Helper()
	s := r.Sector(seal.DefaultMinerID)
	if s.MinerID == nil || *s.MinerID != seal.DefaultMinerID || s.ID != seal.DefaultSector || s.Ticket != seal.DefaultTicket {
		t.Fatalf("the replica's sector: %+v", s)
	}
	if r.Sector(seal.DefaultMinerID+1).MinerID != nil {
		t.Fatal("a miner id not the prover id's is recorded")
	}
	return s
}

func writeSector(t *testing.T) (string, *sectordir.Sector) {
	t.Helper()
	s := sectorOf(t, sealed2KiB(t))
	dir := t.TempDir()
	if err := sectordir.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	return dir, s
}

func TestRoundTrip(t *testing.T) {
	dir, s := writeSector(t)
	got, err := sectordir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.SealProof != s.SealProof || got.ID != s.ID || *got.MinerID != *s.MinerID || got.ProverID != s.ProverID ||
		got.Ticket != s.Ticket || got.CommD != s.CommD || got.CommR != s.CommR || got.CommC != s.CommC || got.Update != nil {
		t.Fatalf("loaded %+v, wrote %+v", got, s)
	}
	if got.CommRLast() != s.CommRLast() || got.TreeRLast.Shape() != s.TreeRLast.Shape() {
		t.Fatal("tree differs")
	}
	for l := 0; l <= len(s.TreeRLast.Arities()); l++ {
		a, b := got.TreeRLast.Level(l), s.TreeRLast.Level(l)
		if len(a) != len(b) {
			t.Fatalf("level %d: %d nodes, want %d", l, len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("level %d node %d differs", l, i)
			}
		}
	}
	if got.CC() {
		t.Error("a sector of pseudo-random data reports CC")
	}
	// The replica and p_aux are upstream's bytes: the sealed file is the
	// leaves, p_aux is comm_c ‖ comm_r_last.
	paux, _ := os.ReadFile(filepath.Join(dir, "cache", "p_aux"))
	commC, commRLast := sealed2KiB(t).CommC(), sealed2KiB(t).CommRLast()
	if string(paux) != string(commC[:])+string(commRLast[:]) {
		t.Error("p_aux is not comm_c ‖ comm_r_last")
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "sealed"))
	leaf := fr32.FromElement(&s.TreeRLast.Level(0)[5])
	if string(raw[5*32:6*32]) != string(leaf[:]) {
		t.Error("sealed node 5 is not tree_r_last's leaf 5")
	}
}

func TestUpdateRoundTrip(t *testing.T) {
	s := sectorOf(t, sealed2KiB(t))
	s.Update = &sectordir.Update{Proof: filecoin.StackedDrg2KiBUpdateV1, CommROld: s.CommR, CommDOld: [32]byte{7}}
	dir := t.TempDir()
	if err := sectordir.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := sectordir.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Update == nil || *got.Update != *s.Update {
		t.Fatalf("update %+v, want %+v", got.Update, s.Update)
	}
	if got.CC() {
		t.Error("an updated sector reports CC")
	}
}

func TestCC(t *testing.T) {
	in := seal.DefaultInput(filecoin.StackedDrg2KiBV1_1)
	in.Data = make([]byte, len(in.Data))
	r, err := seal.PreCommit(context.Background(), in, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !sectorOf(t, r).CC() {
		t.Error("an all-zero sector is not CC")
	}
}

func TestWriteRefusesInconsistent(t *testing.T) {
	s := sectorOf(t, sealed2KiB(t))
	bad := *s
	bad.CommR.SetOne()
	if err := sectordir.Write(t.TempDir(), &bad); !errors.Is(err, sectordir.ErrInconsistent) {
		t.Errorf("wrong comm_r: %v", err)
	}
	bad = *s
	bad.SealProof = filecoin.StackedDrg8MiBV1_1
	if err := sectordir.Write(t.TempDir(), &bad); !errors.Is(err, sectordir.ErrInconsistent) {
		t.Errorf("wrong size: %v", err)
	}
	bad = *s
	other := uint64(1001)
	bad.MinerID = &other
	if err := sectordir.Write(t.TempDir(), &bad); !errors.Is(err, sectordir.ErrInconsistent) {
		t.Errorf("wrong miner: %v", err)
	}
}

// editManifest rewrites sector.json through f.
func editManifest(t *testing.T, dir string, f func(m map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, sectordir.ManifestName)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	raw, _ = json.Marshal(m)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes data as file name and records its digest in the
// manifest, so that the checks behind the digest are reached.
func replaceFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	editManifest(t, dir, func(m map[string]any) {
		for _, f := range m["files"].([]any) {
			if f := f.(map[string]any); f["name"] == name {
				f["sha256"] = hex.EncodeToString(sum[:])
				f["size"] = len(data)
			}
		}
	})
}

func TestLoadRejects(t *testing.T) {
	notCanonical := make([]byte, 32)
	for i := range notCanonical {
		notCanonical[i] = 0xff
	}
	cases := []struct {
		name   string
		break_ func(t *testing.T, dir string)
		want   error
		msg    string
	}{
		{"no manifest", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, sectordir.ManifestName)) }, sectordir.ErrNotSector, "no sector.json"},
		{"no dir", func(t *testing.T, dir string) { os.RemoveAll(dir) }, sectordir.ErrNotSector, "no such file"},
		{"not json", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, sectordir.ManifestName), []byte("{"), 0o644)
		}, sectordir.ErrFormat, "sector.json"},
		{"other format", func(t *testing.T, dir string) { editManifest(t, dir, func(m map[string]any) { m["format"] = "lotus" }) }, sectordir.ErrFormat, `format "lotus"`},
		{"version 2", func(t *testing.T, dir string) { editManifest(t, dir, func(m map[string]any) { m["version"] = 2 }) }, sectordir.ErrVersion, "version 2"},
		{"unknown field", func(t *testing.T, dir string) { editManifest(t, dir, func(m map[string]any) { m["extra"] = 1 }) }, sectordir.ErrFormat, `unknown field "extra"`},
		{"bad comm_r hex", func(t *testing.T, dir string) { editManifest(t, dir, func(m map[string]any) { m["comm_r"] = "00" }) }, sectordir.ErrFormat, "comm_r"},
		{"proof api disagrees", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { m["registered_seal_proof_api"] = "StackedDrg8MiBV1_1" })
		}, sectordir.ErrFormat, "registered_seal_proof_api"},
		{"another sector size", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) {
				m["registered_seal_proof"] = int(filecoin.StackedDrg8MiBV1_1)
				m["registered_seal_proof_api"] = filecoin.StackedDrg8MiBV1_1.String()
				m["sector_size"] = 8 << 20
			})
		}, sectordir.ErrCorrupt, "sealed of 2048 bytes, a 8MiB sector's is 8388608"},
		{"32 GiB", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) {
				m["registered_seal_proof"] = int(filecoin.StackedDrg32GiBV1_1)
				m["registered_seal_proof_api"] = filecoin.StackedDrg32GiBV1_1.String()
				m["sector_size"] = 32 << 30
				m["tree_r_last_shape"] = "8-8-0"
			})
		}, sectordir.ErrTooLarge, "32GiB sector"},
		{"miner disagrees", func(t *testing.T, dir string) { editManifest(t, dir, func(m map[string]any) { m["miner_id"] = 1001 }) }, sectordir.ErrFormat, "miner_id 1001"},
		{"missing file entry", func(t *testing.T, dir string) {
			editManifest(t, dir, func(m map[string]any) { m["files"] = m["files"].([]any)[:2] })
		}, sectordir.ErrFormat, "files: 2 entries"},
		{"sealed changed", func(t *testing.T, dir string) {
			path := filepath.Join(dir, sectordir.SealedName)
			b, _ := os.ReadFile(path)
			b[100] ^= 1
			os.WriteFile(path, b, 0o644)
		}, sectordir.ErrCorrupt, "sealed: sha256"},
		{"sealed truncated", func(t *testing.T, dir string) { os.Truncate(filepath.Join(dir, sectordir.SealedName), 2016) }, sectordir.ErrCorrupt, "sealed: 2016 bytes, a 2KiB sector's is 2048"},
		{"tree missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "cache", "tree-r-last.dat")) }, sectordir.ErrCorrupt, "cache/tree-r-last.dat"},
		{"sealed node not canonical", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, sectordir.SealedName))
			copy(b[64:], notCanonical)
			replaceFile(t, dir, sectordir.SealedName, b)
		}, sectordir.ErrCorrupt, "sealed: node 2 (offset 64) is not a canonical field element"},
		{"tree root not comm_r_last", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "cache", "tree-r-last.dat"))
			b[len(b)-32] ^= 1
			replaceFile(t, dir, sectordir.TreeRLastName, b)
		}, sectordir.ErrCorrupt, "root"},
		{"p_aux comm_c changed", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "cache", "p_aux"))
			b[0] ^= 1
			replaceFile(t, dir, sectordir.PAuxName, b)
		}, sectordir.ErrCorrupt, "Poseidon2(comm_c, comm_r_last) is not"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, _ := writeSector(t)
			c.break_(t, dir)
			_, err := sectordir.Load(dir)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), dir) {
				t.Fatalf("error %q does not name %q and the directory", err, c.msg)
			}
		})
	}
}

// The manifest's public values are the sector's: comm_r and comm_d in hex of
// their stored bytes.
func TestManifestValues(t *testing.T) {
	dir, s := writeSector(t)
	raw, _ := os.ReadFile(filepath.Join(dir, sectordir.ManifestName))
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	commR := fr32.FromElement(&s.CommR)
	for k, want := range map[string]any{
		"format": "cuzk-sector", "version": 1.0, "registered_seal_proof": 5.0, "sector_size": 2048.0, "sector_id": 1.0,
		"miner_id": 1000.0, "comm_r": hex.EncodeToString(commR[:]), "comm_d": hex.EncodeToString(s.CommD[:]),
		"tree_r_last_shape": "8-0-0",
	} {
		if m[k] != want {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	var zero fr.Element
	if s.CommC == zero {
		t.Error("comm_c is zero")
	}
}
