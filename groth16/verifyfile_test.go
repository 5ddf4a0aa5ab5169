package groth16

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// VerifyFiles accepts rust's proof with its inputs, one or several, and
// rejects a changed input as invalid; what cannot be checked is an error
// naming the file at fault.
func TestVerifyFiles(t *testing.T) {
	vk, proof := filepath.Join(polkaDir, "vk.bin"), filepath.Join(polkaDir, "proof.bin")
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	writeJSON := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return write(name, b)
	}
	inputs := polkaHexInputs(t)
	bad := slices.Clone(inputs)
	bad[2] = strings.Repeat("0", 63) + "1"
	raw, err := os.ReadFile(proof)
	if err != nil {
		t.Fatal(err)
	}
	two := write("two.bin", slices.Concat(raw, raw))
	for _, c := range []struct {
		name          string
		proof, inputs string
		want          bool
	}{
		{"rust's proof", proof, writeJSON("good.json", inputs), true},
		{"an input changed", proof, writeJSON("bad.json", bad), false},
		{"two proofs", two, writeJSON("two.json", [][]string{inputs, inputs}), true},
		{"two proofs, one bad", two, writeJSON("two-bad.json", [][]string{inputs, bad}), false},
	} {
		if ok, err := VerifyFiles(vk, c.proof, c.inputs); err != nil || ok != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, ok, err, c.want)
		}
	}
	good := writeJSON("good.json", inputs)
	for _, c := range []struct {
		name              string
		vk, proof, inputs string
		is                error
		want              string
	}{
		{"missing key", filepath.Join(dir, "none.vk"), proof, good, fs.ErrNotExist, "none.vk"},
		{"key and proof missing: the key is told", filepath.Join(dir, "none.vk"), filepath.Join(dir, "none.bin"), good, fs.ErrNotExist, "none.vk"},
		{"missing proof", vk, filepath.Join(dir, "none"), good, fs.ErrNotExist, "none"},
		{"missing inputs", vk, proof, filepath.Join(dir, "none.json"), fs.ErrNotExist, "none.json"},
		{"truncated proof", vk, write("short.bin", raw[:150]), good, nil, "short.bin: "},
		{"one vector for two proofs", vk, two, good, nil, "good.json: one input vector given for 2 proofs"},
		{"short hex", vk, proof, writeJSON("short.json", append(inputs[:38:38], "abc")), nil, "input 38: \"abc\": want 64 hex"},
		{"not canonical", vk, proof, writeJSON("nc.json", append(inputs[:38:38], strings.Repeat("f", 64))), nil, "canonical"},
		{"input count", vk, proof, writeJSON("ten.json", inputs[:10]), nil, "proof 0 has 10 public inputs, the verifying key takes 39"},
		{"not JSON", vk, proof, proof, nil, "proof.bin: not a JSON array"},
	} {
		_, err := VerifyFiles(c.vk, c.proof, c.inputs)
		if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %v %q", c.name, err, c.is, c.want)
		}
	}
}
