package golden

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ReadJSON decodes the JSON file at path into v.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Base64List decodes a JSON array of standard base64 strings, the form of
// Curio's vanilla_proofs and of the rustref vanilla files.
func Base64List(t testing.TB, strs []string) [][]byte {
	t.Helper()
	out := make([][]byte, len(strs))
	for i, s := range strs {
		var err error
		if out[i], err = base64.StdEncoding.DecodeString(s); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
	}
	return out
}

// ReadBase64List reads a file holding a JSON array of base64 strings
// (Base64List).
func ReadBase64List(t testing.TB, path string) [][]byte {
	t.Helper()
	var strs []string
	ReadJSON(t, path, &strs)
	return Base64List(t, strs)
}

// Hex32 decodes 64 hex characters.
func Hex32(t testing.TB, s string) [32]byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("%q is not 32 bytes of hex", s)
	}
	return [32]byte(b)
}

// Fr decodes a field element from its 32-byte little-endian hex, the form
// commitments and public inputs take in the rustref files.
func Fr(t testing.TB, s string) fr.Element {
	t.Helper()
	b := Hex32(t, s)
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatalf("%s is not a canonical field element: %v", s, err)
	}
	return e
}

// FrHex is the 32-byte little-endian hex of e, the inverse of Fr.
func FrHex(e fr.Element) string {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, e)
	return hex.EncodeToString(b[:])
}

// Update is testdata/rustref/update/<size>/update.json: an
// EmptySectorUpdate's public inputs as rust-fil-proofs made them, beside
// the file of its vanilla partition proofs.
type Update struct {
	RegisteredProof int64  `json:"registered_proof"`
	SectorSize      uint64 `json:"sector_size"`
	CommROld        string `json:"comm_r_old"`
	CommRNew        string `json:"comm_r_new"`
	CommDNew        string `json:"comm_d_new"`
	H               int    `json:"h"`
	VProofsFile     string `json:"vproofs_file"`
}

// ReadUpdate reads the update.json at path and the vanilla partition
// proofs it names (vproofs.json when it names none) from beside it, as the
// raw entries of their base64 list.
func ReadUpdate(t testing.TB, path string) (*Update, [][]byte) {
	t.Helper()
	var u Update
	ReadJSON(t, path, &u)
	name := u.VProofsFile
	if name == "" {
		name = "vproofs.json"
	}
	return &u, ReadBase64List(t, filepath.Join(filepath.Dir(path), name))
}

// PoStVanilla is testdata/rustref/post/2KiB/{window,winning}.json: the
// vanilla proofs rust-fil-proofs made for one PoSt partition of the 2 KiB
// sectors it sealed, and the randomness they answer.
type PoStVanilla struct {
	RegisteredProof int64  `json:"registered_proof"`
	SectorSize      uint64 `json:"sector_size"`
	Randomness      string `json:"randomness"`
	Sectors         []struct {
		SectorID uint64 `json:"sector_id"`
		CommR    string `json:"comm_r"`
	} `json:"sectors"`
	VanillaProofs []string `json:"vanilla_proofs"`
}

// ReadPoStVanilla reads the PoStVanilla file at path and decodes its
// randomness and its vanilla proofs (to the raw entries
// post.DecodeVanillaProofs takes).
func ReadPoStVanilla(t testing.TB, path string) (v *PoStVanilla, randomness [32]byte, proofs [][]byte) {
	t.Helper()
	v = new(PoStVanilla)
	ReadJSON(t, path, v)
	return v, Hex32(t, v.Randomness), Base64List(t, v.VanillaProofs)
}
