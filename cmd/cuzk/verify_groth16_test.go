package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func polkaInputs(t *testing.T) []string {
	raw, err := os.ReadFile("../../testdata/polka-2kib-porep/public.json")
	if err != nil {
		t.Fatal(err)
	}
	var pub struct {
		Derived struct {
			Inputs []string `json:"public_inputs_fr_le_hex"`
		} `json:"derived"`
	}
	if err := json.Unmarshal(raw, &pub); err != nil {
		t.Fatal(err)
	}
	return pub.Derived.Inputs
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(t.TempDir(), "inputs.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVerifyGroth16CLI(t *testing.T) {
	dir := "../../testdata/polka-2kib-porep"
	vk, proof := filepath.Join(dir, "vk.bin"), filepath.Join(dir, "proof.bin")
	inputs := polkaInputs(t)

	code, out, _ := runCmd(t, "verify-groth16", "--vk", vk, "--proof", proof, "--inputs", writeJSON(t, inputs))
	if code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Fatalf("valid proof: code %d, out %q", code, out)
	}

	bad := append([]string(nil), inputs...)
	bad[2] = strings.Repeat("0", 63) + "1"
	code, out, _ = runCmd(t, "verify-groth16", "--vk", vk, "--proof", proof, "--inputs", writeJSON(t, bad))
	if code != exitInvalid || strings.TrimSpace(out) != "invalid" {
		t.Fatalf("wrong input: code %d, out %q", code, out)
	}

	// Two concatenated proofs with an array of arrays.
	raw, _ := os.ReadFile(proof)
	two := filepath.Join(t.TempDir(), "two.bin")
	os.WriteFile(two, append(append([]byte(nil), raw...), raw...), 0o644)
	code, out, _ = runCmd(t, "verify-groth16", "--vk", vk, "--proof", two, "--inputs", writeJSON(t, [][]string{inputs, inputs}))
	if code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Fatalf("two proofs: code %d, out %q", code, out)
	}
	code, out, _ = runCmd(t, "verify-groth16", "--vk", vk, "--proof", two, "--inputs", writeJSON(t, [][]string{inputs, bad}))
	if code != exitInvalid {
		t.Fatalf("two proofs, one bad: code %d, out %q", code, out)
	}

	truncated := filepath.Join(t.TempDir(), "short.bin")
	os.WriteFile(truncated, raw[:150], 0o644)
	malformed := []struct {
		name string
		args []string
		want string
	}{
		{"truncated proof", []string{"--vk", vk, "--proof", truncated, "--inputs", writeJSON(t, inputs)}, "192-byte"},
		{"short hex", []string{"--vk", vk, "--proof", proof, "--inputs", writeJSON(t, append(inputs[:38:38], "abc"))}, "64 hex"},
		{"non-canonical", []string{"--vk", vk, "--proof", proof, "--inputs", writeJSON(t, append(inputs[:38:38], strings.Repeat("f", 64)))}, "canonical"},
		{"count", []string{"--vk", vk, "--proof", proof, "--inputs", writeJSON(t, inputs[:10])}, "takes 39"},
		{"not json", []string{"--vk", vk, "--proof", proof, "--inputs", proof}, "JSON"},
		{"missing vk", []string{"--vk", "/nonexistent.vk", "--proof", proof, "--inputs", writeJSON(t, inputs)}, "no such file"},
		{"missing flag", []string{"--vk", vk}, "required"},
	}
	for _, m := range malformed {
		code, _, errOut := runCmd(t, append([]string{"verify-groth16"}, m.args...)...)
		if code != exitError || !strings.Contains(errOut, m.want) {
			t.Errorf("%s: code %d, stderr %q (want exit 2 mentioning %q)", m.name, code, errOut, m.want)
		}
	}
}
