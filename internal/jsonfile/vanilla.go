package jsonfile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// ParseVanilla reads a file of vanilla proofs as Curio sends them and the
// Rust cuzk-bench reads them (--vanilla): a JSON array of base64 strings
// (Go's json.Marshal of [][]byte), one per sector for PoSt, per partition
// for SnapDeals, or else the whole file as one raw proof.
func ParseVanilla(data []byte) ([][]byte, error) {
	var strs []string
	// json.Unmarshal takes null for an empty array; serde (the Rust
	// bench) does not, so null is a raw proof too, not zero proofs.
	if json.Unmarshal(bytes.TrimSpace(data), &strs) != nil || strs == nil {
		return [][]byte{data}, nil
	}
	out := make([][]byte, len(strs))
	for i, s := range strs {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("vanilla proof %d: %w", i, err)
		}
		out[i] = b
	}
	return out, nil
}

// ReadVanilla is ParseVanilla of the file at path, naming it in errors.
func ReadVanilla(path string) ([][]byte, error) {
	v, err := Read(path, func(b []byte) (*[][]byte, error) {
		v, err := ParseVanilla(b)
		return &v, err
	})
	if err != nil {
		return nil, err
	}
	return *v, nil
}
