package sectordir

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/fuzzcheck"
)

// seedDir is a 2 KiB sector written by Write (the default sealing input
// of porep/seal); seedUpdated is the manifest of the same sector after
// an update.
const (
	seedDir     = "testdata/sector-2KiB"
	seedUpdated = "testdata/sector-2KiB-updated.json"
)

func readSeed(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(seedDir + "/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// decodeManifest is what Load makes of sector.json before it opens the
// other files.
func decodeManifest(raw []byte) (*manifest, *Sector, error) {
	m, err := parseManifest(raw)
	if err != nil {
		return nil, nil, err
	}
	s, err := m.sector()
	return m, s, err
}

// TestSeedSectorLoads keeps the fuzz seeds a valid sector: Load accepts
// testdata/sector-2KiB, so FuzzAssemble's seeds reach its success path.
func TestSeedSectorLoads(t *testing.T) {
	s, err := Load(seedDir)
	if err != nil {
		t.Fatal(err)
	}
	if s.SectorSize() != 2048 || s.TreeRLast.NumLeaves() != 64 {
		t.Fatalf("seed sector %v with %d leaves", s.SectorSize(), s.TreeRLast.NumLeaves())
	}
}

// FuzzManifest: no sector.json makes the manifest decoder (parseManifest,
// then the field checks) panic, take long or allocate more than its size
// allows (fuzzcheck); a rejection wraps ErrFormat, ErrVersion or
// ErrTooLarge; an accepted manifest's values are those Write would write
// (hex in lower case, whatever case the file used), and the manifest
// written back as JSON decodes to the same sector. Seeds: the seed
// sector's manifest, the updated one, testdata/fuzz/FuzzManifest and
// hostile variants below.
func FuzzManifest(f *testing.F) {
	raw := readSeed(f, ManifestName)
	upd, err := os.ReadFile(seedUpdated)
	if err != nil {
		f.Fatal(err)
	}
	s := string(raw)
	for _, v := range []string{
		s, string(upd), s[:len(s)/2], strings.ToUpper(s),
		strings.Replace(s, `"version": 1`, `"version": 2`, 1),
		strings.Replace(s, `"version": 1`, `"version": "1"`, 1),
		strings.Replace(s, `"sector_id": 1`, `"sector_id": 18446744073709551616`, 1),
		strings.Replace(s, `"registered_seal_proof": 5`, `"registered_seal_proof": 8`, 1),
		strings.Replace(s, `"registered_seal_proof": 5`, `"registered_seal_proof": -5`, 1),
		strings.Replace(s, `"miner_id": 1000`, `"miner_id": 1001`, 1),
		strings.Replace(s, `"files": [`, `"extra": 1, "files": [`, 1),
		strings.Replace(s, `"size": 2048`, `"size": 9223372036854775807`, 1),
		strings.Replace(s, `"comm_r": "6d`, `"comm_r": "ff`, 1),
		strings.Replace(string(upd), `"registered_update_proof": 0`, `"registered_update_proof": 3`, 1),
		`{"format": "cuzk-sector", "version": 1, "files": ` + strings.Repeat("[", 5000),
		`{"format": "cuzk-sector", "version": 1, "update": {"update": {"update": {}}}}`,
	} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzcheck.Check(t, len(data), func() { _, _, _ = decodeManifest(data) })
		m, sec, err := decodeManifest(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("rejection wraps no sentinel: %v", err)
			}
			return
		}
		for _, c := range []struct{ got, in string }{
			{hexOf(sec.ProverID), m.ProverID}, {hexOf(sec.Ticket), m.Ticket},
			{hexOf(sec.CommD), m.CommD}, {frHex(&sec.CommR), m.CommR},
		} {
			if c.got != strings.ToLower(c.in) {
				t.Fatalf("%s decodes to %s", c.in, c.got)
			}
		}
		if sec.SealProof.String() != m.RegisteredSealProofAPI || uint64(sec.SectorSize()) != m.SectorSize {
			t.Fatalf("accepted %v for registered_seal_proof_api %q, sector_size %d", sec.SealProof, m.RegisteredSealProofAPI, m.SectorSize)
		}
		enc, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		_, again, err := decodeManifest(enc)
		if err != nil {
			t.Fatalf("manifest written back does not decode: %v\n%s", err, enc)
		}
		if !reflect.DeepEqual(again, sec) {
			t.Fatalf("manifest written back decodes to %+v, want %+v", again, sec)
		}
	})
}

// FuzzAssemble: no contents of sealed, cache/p_aux and
// cache/tree-r-last.dat (under the seed sector's manifest) make assemble
// panic, take long or allocate more than their size allows (fuzzcheck);
// a rejection wraps ErrCorrupt and starts with the file it is about; an
// accepted set of files is what the tree it builds writes back: its
// leaves are sealed, comm_c and its root are p_aux, its levels above the
// leaves are tree-r-last.dat. Seeds: the seed sector's files, and
// truncated, non-canonical and inconsistent variants below.
func FuzzAssemble(f *testing.F) {
	_, base, err := decodeManifest(readSeed(f, ManifestName))
	if err != nil {
		f.Fatal(err)
	}
	sealed, paux, tree := readSeed(f, SealedName), readSeed(f, PAuxName), readSeed(f, TreeRLastName)
	f.Add(sealed, paux, tree)
	f.Add(sealed[:len(sealed)-1], paux, tree)
	f.Add(sealed, paux[:32], tree)
	f.Add(sealed, paux, append(tree, tree...))
	f.Add(sealed, append(paux[32:64:64], paux[:32]...), tree)
	f.Add(append(bytes.Repeat([]byte{0xff}, 32), sealed[32:]...), paux, tree)
	f.Add(sealed, paux, append(tree[:len(tree)-32:len(tree)-32], bytes.Repeat([]byte{0xff}, 32)...))
	f.Add(sealed, paux, append(bytes.Repeat([]byte{0}, 32), tree[32:]...))
	f.Add([]byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, sealed, paux, tree []byte) {
		n := len(sealed) + len(paux) + len(tree)
		fuzzcheck.Check(t, n, func() {
			s := *base
			_ = assemble(&s, sealed, paux, tree)
		})
		s := *base
		if err := assemble(&s, sealed, paux, tree); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("rejection does not wrap ErrCorrupt: %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, SealedName+":") && !strings.HasPrefix(msg, PAuxName+":") && !strings.HasPrefix(msg, TreeRLastName+":") {
				t.Fatalf("rejection names no file: %v", err)
			}
			return
		}
		tr := s.TreeRLast
		var gotSealed, gotTree []byte
		for l := 0; l <= len(tr.Arities()); l++ {
			lvl := tr.Level(l)
			for i := range lvl {
				b := fr32.FromElement(&lvl[i])
				if l == 0 {
					gotSealed = append(gotSealed, b[:]...)
				} else {
					gotTree = append(gotTree, b[:]...)
				}
			}
		}
		commC, root := fr32.FromElement(&s.CommC), tr.Root()
		commRLast := fr32.FromElement(&root)
		if !bytes.Equal(gotSealed, sealed) || !bytes.Equal(gotTree, tree) || !bytes.Equal(append(commC[:], commRLast[:]...), paux) {
			t.Fatal("accepted files differ from the tree built from them")
		}
		if CommR(s.CommC, root) != s.CommR {
			t.Fatal("accepted a tree whose comm_r is not the manifest's")
		}
	})
}
