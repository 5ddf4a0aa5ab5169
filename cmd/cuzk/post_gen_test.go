package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/post"
)

// post gen writes, for three made-up 2 KiB sectors (two partitions), the
// files verify-post reads: a proof bound to the public inputs upstream
// derives from public.json is valid, and invalid with the randomness or a
// comm_r changed; bad flags exit 2 naming the flag.
func TestPostGenCLI(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd(t, "post", "gen", "--kind", "window-post", "--sector-size", "2KiB", "--sectors", "3", "--out", dir)
	if code != exitOK || !strings.Contains(stdout, "WITHOUT SEALING") {
		t.Fatalf("post gen: exit %d %q %q", code, stdout, stderr)
	}
	for _, f := range []string{"vanilla-p0.json", "vanilla-p1.json", "vanilla-p0.json" + post.MadeUpMarkerSuffix, "vanilla-p1.json" + post.MadeUpMarkerSuffix, "public-p0.json", "public-p1.json", "public.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	pubPath := filepath.Join(dir, "public.json")
	pf, err := post.ReadPublicFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	if pf.RegisteredProof != 10 || len(pf.Sectors) != 3 || pf.MadeWithoutSealing == "" {
		t.Fatalf("public.json: %+v", pf)
	}
	pub := post.Public{Proof: filecoin.RegisteredPoStProof(pf.RegisteredProof), Randomness: post.DefaultRandomness()}
	for _, s := range pf.Sectors {
		c, err := parseSectors(itoa(s.SectorID) + ":" + s.CommR)
		if err != nil {
			t.Fatal(err)
		}
		pub.Sectors = append(pub.Sectors, c...)
	}
	inputs, err := pub.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	key, raw := testkit.StubProof(t, inputs)
	vk, proof := filepath.Join(dir, "stub.vk"), filepath.Join(dir, "stub.proof")
	if err := groth16.WriteVerifyingKeyFile(vk, key); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(proof, raw, 0o644)
	if code, out, stderr := runCmd(t, "verify-post", "--vk", vk, "--proof", proof, "--public", pubPath); code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Fatalf("verify-post: exit %d %q %q", code, out, stderr)
	}
	badRnd := pub.Randomness
	badRnd[0] ^= 1
	ids := make([]string, len(pf.Sectors))
	for i, s := range pf.Sectors {
		ids[i] = itoa(s.SectorID) + ":" + s.CommR
	}
	good := strings.Join(ids, ",")
	// Sector 3 (partition 1) claims sector 2's comm_r.
	ids[2] = itoa(pf.Sectors[2].SectorID) + ":" + pf.Sectors[1].CommR
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"randomness": {[]string{"--randomness", hexOf(badRnd[:]), "--sectors", good}, "partition 0: invalid\npartition 1: invalid\ninvalid\n"},
		"comm_r":     {[]string{"--randomness", pf.Randomness, "--sectors", strings.Join(ids, ",")}, "partition 1: invalid\ninvalid\n"},
	} {
		args := append([]string{"verify-post", "--vk", vk, "--proof", proof, "--registered-proof", "10"}, c.args...)
		if code, out, _ := runCmd(t, args...); code != exitInvalid || out != c.want {
			t.Errorf("%s changed: exit %d %q", name, code, out)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sector-size", "2KiB", "--out", dir}, "--kind is required"},
		{[]string{"--kind", "porep", "--sector-size", "2KiB", "--out", dir}, `--kind "porep"`},
		{[]string{"--kind", "window", "--out", dir}, "--sector-size and --out are required"},
		{[]string{"--kind", "window", "--sector-size", "4KiB", "--out", dir}, "unsupported sector size"},
		{[]string{"--kind", "window", "--sector-size", "2KiB", "--sectors", "0", "--out", dir}, "--sectors 0"},
		{[]string{"--kind", "window", "--sector-size", "2KiB", "--randomness", strings.Repeat("ff", 32), "--out", dir}, "not a canonical field element"},
		{[]string{"--kind", "winning", "--sector-size", "2KiB", "--registered-proof", "10", "--out", dir}, "is a window proof"},
		{[]string{"--kind", "window", "--sector-size", "32GiB", "--registered-proof", "10", "--out", dir}, "is for 2KiB sectors"},
	} {
		code, _, stderr := runCmd(t, append([]string{"post", "gen"}, c.args...)...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("post gen %v: exit %d %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// Made-up 2 KiB inputs prove through prove-post (the engine, as the
// daemon) and the proofs verify with verify-post from public.json.
func TestPostGenProve(t *testing.T) {
	testenv.E2E(t, "2 KiB WindowPoSt and WinningPoSt proofs of made-up sectors")
	for _, c := range []struct {
		kind    string
		circuit filecoin.CircuitID
	}{{"window-post", filecoin.CircuitWindowPoSt2K}, {"winning-post", filecoin.CircuitWinningPoSt2K}} {
		params := ensureKindParams(t, c.circuit)
		dir := t.TempDir()
		if code, _, stderr := runCmd(t, "post", "gen", "--kind", c.kind, "--sector-size", "2KiB", "--sectors", "2", "--out", dir); code != exitOK {
			t.Fatalf("post gen %s: %s", c.kind, stderr)
		}
		pub, proof := filepath.Join(dir, "public.json"), filepath.Join(dir, "proof.bin")
		if code, _, stderr := runCmd(t, "prove-post", "--vanilla", filepath.Join(dir, "vanilla.json"), "--public", pub, "--params", params, "--out", proof); code != exitOK {
			t.Fatalf("prove-post %s: %s", c.kind, stderr)
		}
		if code, out, stderr := runCmd(t, "verify-post", "--params", params, "--proof", proof, "--public", pub); code != exitOK || strings.TrimSpace(out) != "valid" {
			t.Fatalf("verify-post %s: exit %d %q %q", c.kind, code, out, stderr)
		}
	}
}
