package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

func officialVK(t *testing.T, c filecoin.CircuitID) string {
	t.Helper()
	ps, err := c.ParameterSetID()
	if err != nil {
		t.Fatal(err)
	}
	return ps.VerifyingKeyFileName()
}

// verify-seal finds the key by its official name in --params, else in
// $FIL_PROOFS_PARAMETER_CACHE; --vk still names a file.
func TestVerifySealFindsKey(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../../testdata/polka-2kib-porep/vk.bin")
	if err != nil {
		t.Fatal(err)
	}
	vk := filepath.Join(dir, officialVK(t, filecoin.CircuitPoRep2K))
	if err := os.WriteFile(vk, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	noVK := polkaArgs[2:]
	if polkaArgs[0] != "--vk" {
		t.Fatal("polkaArgs no longer start with --vk")
	}
	if code, out, stderr := runCmd(t, append([]string{"verify-seal", "--params", dir}, noVK...)...); code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Errorf("--params: exit %d %q %q", code, out, stderr)
	}
	t.Setenv(filecoin.ParameterCacheEnv, dir)
	if code, out, stderr := runCmd(t, append([]string{"verify-seal"}, noVK...)...); code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Errorf("$%s: exit %d %q %q", filecoin.ParameterCacheEnv, code, out, stderr)
	}
	// --vk wins over the directory.
	empty := t.TempDir()
	if code, out, stderr := runCmd(t, append([]string{"verify-seal", "--params", empty}, polkaArgs...)...); code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Errorf("--vk with --params: exit %d %q %q", code, out, stderr)
	}
	// A directory without the key: the error names the file looked for.
	want := filepath.Join(empty, officialVK(t, filecoin.CircuitPoRep2K))
	if code, _, stderr := runCmd(t, append([]string{"verify-seal", "--params", empty}, noVK...)...); code != exitError || !strings.Contains(stderr, want) {
		t.Errorf("missing key: exit %d %q, want it to name %s", code, stderr, want)
	}
}

// verify-post and verify-update derive the key's file name from
// --registered-proof: the Window and Winning keys differ only by a hash.
func TestVerifyPoStUpdateKeyName(t *testing.T) {
	dir := t.TempDir()
	zeros := strings.Repeat("00", 32)
	post := []string{"verify-post", "--params", dir, "--proof", filepath.Join(dir, "proof"), "--randomness", zeros, "--sectors", "1:" + zeros}
	for _, c := range []struct {
		args    []string
		circuit filecoin.CircuitID
	}{
		{append(post, "--registered-proof", "0"), filecoin.CircuitWinningPoSt2K},
		{append(post, "--registered-proof", "5"), filecoin.CircuitWindowPoSt2K},
		{[]string{"verify-update", "--params", dir, "--proof", filepath.Join(dir, "proof"), "--registered-proof", "0",
			"--comm-r-old", zeros, "--comm-r-new", zeros, "--comm-d-new", zeros}, filecoin.CircuitUpdate2K},
	} {
		want := filepath.Join(dir, officialVK(t, c.circuit))
		if code, _, stderr := runCmd(t, c.args...); code != exitError || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d %q, want it to name %s", c.args, code, stderr, want)
		}
	}
}
