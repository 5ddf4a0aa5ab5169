package golden

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
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
