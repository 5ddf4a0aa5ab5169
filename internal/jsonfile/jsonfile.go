// Package jsonfile reads the small JSON files the commands hand each other
// (commdr.json, update.json, a PoSt public-values file, the vanilla proofs
// of PoSt and SnapDeals): the file's name on every decoding error, and a
// way to tell a missing number from a zero, which encoding/json cannot
// (registered proof 0 is a real proof).
package jsonfile

import (
	"encoding/json"
	"fmt"
	"os"
)

// Read reads path and decodes it with parse. A read error names the file
// already (os.PathError); a decoding error is wrapped with it.
func Read[T any](path string, parse func([]byte) (*T, error)) (*T, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Has reports whether the JSON object raw has a top-level field named
// field with a value other than null.
func Has(raw []byte, field string) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return false
	}
	v, ok := fields[field]
	return ok && string(v) != "null"
}
