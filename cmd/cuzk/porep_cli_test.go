package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/prover/gpu"
	"github.com/cuzk-dev/cuzk/testparams"
)

func TestSealMatchesRust(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := runCmd(t, "seal", "--sector-size", "2KiB", "--out", out)
	if code != exitOK {
		t.Fatalf("seal: %d %s", code, stderr)
	}
	if !strings.Contains(stdout, "comm_r") {
		t.Errorf("seal output %q", stdout)
	}
	got, _ := os.ReadFile(filepath.Join(out, "c1.json"))
	want, err := os.ReadFile("../../testdata/rustref/seal/2KiB/c1.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("c1.json differs from rust-fil-proofs' output for the same inputs")
	}
	wrapped, _ := os.ReadFile(filepath.Join(out, "c1-wrapped.json"))
	o, w, err := c1.ParseWrapped(wrapped)
	if err != nil || w.SectorNum != 1 || w.SectorSize != 2048 {
		t.Fatalf("wrapper: %v %+v", err, w)
	}
	if back, _ := o.MarshalJSON(); !bytes.Equal(back, want) {
		t.Error("wrapped C1 does not carry the same C1")
	}
	var cdr map[string]any
	raw, _ := os.ReadFile(filepath.Join(out, "commdr.json"))
	if err := json.Unmarshal(raw, &cdr); err != nil {
		t.Fatal(err)
	}
	var rust map[string]any
	rraw, _ := os.ReadFile("../../testdata/rustref/seal/2KiB/commdr.json")
	json.Unmarshal(rraw, &rust)
	for _, k := range []string{"comm_d", "comm_r", "prover_id", "ticket", "seed", "porep_id", "sector", "registered_proof", "sector_size"} {
		if cdr[k] == nil {
			t.Errorf("commdr.json lacks %s", k)
		} else if cdr[k] != rust[k] {
			t.Errorf("commdr %s = %v, rust %v", k, cdr[k], rust[k])
		}
	}

	for _, bad := range [][]string{
		{"seal", "--sector-size", "3KiB", "--out", out},
		{"seal", "--sector-size", "32GiB", "--out", out},
		{"seal", "--sector-size", "2KiB"},
		{"seal", "--sector-size", "2KiB", "--registered-proof", "6", "--out", out},
		{"seal", "--sector-size", "2KiB", "--ticket", "zz", "--out", out},
	} {
		if code, _, stderr := runCmd(t, bad...); code != exitError || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

var polkaArgs = []string{
	"--vk", "../../testdata/polka-2kib-porep/vk.bin", "--proof", "../../testdata/polka-2kib-porep/proof.bin",
	"--sector-size", "2KiB",
	"--comm-r", "70e82695a03f9dbd96e568fef583283266a2048766e2c7abe78dcd9896996d68",
	"--comm-d", "129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421",
	"--prover-id", "0000000000000000000000000000000000000000000000000000000000000000",
	"--sector", "77",
	"--ticket", "0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c",
	"--seed", "0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d",
	"--porep-id", "0000000000000000000000000000000000000000000000000000000000000000",
	"--api-version", "1.2.0",
}

// The real rust-fil-proofs proof verifies from its public values alone,
// and any changed value makes it invalid.
func TestVerifySealPolka(t *testing.T) {
	code, out, stderr := runCmd(t, append([]string{"verify-seal"}, polkaArgs...)...)
	if code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, stderr)
	}
	change := func(flag, value string) []string {
		args := append([]string{"verify-seal"}, polkaArgs...)
		for i := range args {
			if args[i] == flag {
				args[i+1] = value
			}
		}
		return args
	}
	for _, c := range []struct{ flag, value string }{
		{"--comm-r", "71e82695a03f9dbd96e568fef583283266a2048766e2c7abe78dcd9896996d68"},
		{"--comm-d", "139c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421"},
		{"--prover-id", "0100000000000000000000000000000000000000000000000000000000000000"},
		{"--sector", "78"},
		{"--ticket", "0d0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c"},
		{"--seed", "0c0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d"},
		{"--api-version", "1.0.0"},
		{"--porep-id", "0100000000000000000000000000000000000000000000000000000000000000"},
		{"--sector-size", "4KiB"}, // a supported (unpublished) size with the same input count
	} {
		if code, out, _ := runCmd(t, change(c.flag, c.value)...); code != exitInvalid || strings.TrimSpace(out) != "invalid" {
			t.Errorf("%s changed: exit %d, out %q", c.flag, code, out)
		}
	}
	for _, c := range []struct{ flag, value, want string }{
		{"--comm-r", "abc", "64 hex"},
		{"--sector-size", "3KiB", "unsupported sector size"},
		{"--sector-size", "32GiB", "partition"}, // needs 10 proofs
		{"--proof", "../../testdata/polka-2kib-porep/vk.bin", "proof"},
	} {
		code, _, stderr := runCmd(t, change(c.flag, c.value)...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%s=%s: exit %d, stderr %q", c.flag, c.value, code, stderr)
		}
	}
}

func TestParamsGenRefusesOfficial(t *testing.T) {
	dir := t.TempDir()
	f, err := testparams.PathsFor(filecoin.StackedDrg2KiBV1_1, dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(f.Params, []byte("official"), 0o644)
	code, _, stderr := runCmd(t, "params", "gen", "--sector-size", "2KiB", "--dir", dir)
	if code != exitError || !strings.Contains(stderr, "refusing") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(f.Params); string(b) != "official" {
		t.Fatal("official file overwritten")
	}
}

// params gen → prove-c2 → verify-seal through the commands, at 2 KiB, on
// the C1 rust-fil-proofs sealed (cuzk seal's output equals it byte for
// byte: TestSealMatchesRust). At bellperson's fixed r, s the proof is
// byte-identical to bellperson's; engine/porepkind's TestProofMatchesBellperson
// pins the daemon's engine to the same bytes, so the CLI and the daemon make
// identical proofs through their one path.
func TestProveC2CLI(t *testing.T) {
	testenv.E2E(t, "proves a 2 KiB sector")
	var golden struct {
		R, S     string
		ProofHex string `json:"proof_hex"`
	}
	raw, err := os.ReadFile("../../testdata/rustref/proof/2KiB.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	params := testparams.DefaultDir(os.LookupEnv)
	if code, _, stderr := runCmd(t, "params", "gen", "--sector-size", "2KiB", "--dir", params); code != exitOK {
		t.Fatal(stderr)
	}
	proof := filepath.Join(dir, "proof.bin")
	code, out, stderr := runCmd(t, "prove-c2", "--c1", "../../testdata/rustref/seal/2KiB/c1.json", "--params", params, "--out", proof,
		"--r", golden.R, "--s", golden.S)
	if code != exitOK {
		t.Fatalf("prove-c2: %s", stderr)
	}
	t.Log(out)
	// Progress on stderr: the job's stage on every change and at least
	// every 5 s (a poll a second, so 6 s apart on a quiet machine): never
	// more than 10 s of silence, the limit operators were promised.
	if !strings.Contains(stderr, "prove-c2: running: partitions 1 proving") {
		t.Errorf("prove-c2's stderr shows no proving stage:\n%s", stderr)
	}
	last := 0.0
	for _, m := range regexp.MustCompile(`(?m)^\[\s*([\d.]+)s\] prove-c2: `).FindAllStringSubmatch(stderr, -1) {
		at, _ := strconv.ParseFloat(m[1], 64)
		if at-last > 10 {
			t.Errorf("no progress line between %.1f s and %.1f s:\n%s", last, at, stderr)
		}
		last = at
	}
	if got, _ := os.ReadFile(proof); hex.EncodeToString(got) != golden.ProofHex {
		t.Fatalf("prove-c2 at bellperson's r, s:\n cuzk       %x\n bellperson %s", got, golden.ProofHex)
	}
	commdr := "../../testdata/rustref/seal/2KiB/commdr.json"
	f, _ := testparams.PathsFor(filecoin.StackedDrg2KiBV1_1, params)
	code, out, stderr = runCmd(t, "verify-seal", "--vk", f.VK, "--proof", proof, "--commdr", commdr)
	if code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Fatalf("verify-seal: exit %d %q %q", code, out, stderr)
	}
	// A flag that contradicts commdr.json is an error, not an override.
	code, _, stderr = runCmd(t, "verify-seal", "--vk", f.VK, "--proof", proof, "--commdr", commdr, "--sector", "2")
	if code != exitError || !strings.Contains(stderr, "disagrees") {
		t.Fatalf("contradicting flag: exit %d %q", code, stderr)
	}
	// Another sector's public values make the proof invalid.
	raw, _ = os.ReadFile(commdr)
	other := filepath.Join(dir, "other.json")
	if !strings.Contains(string(raw), `"sector": 1,`) {
		t.Fatalf("%s does not name sector 1", commdr)
	}
	os.WriteFile(other, []byte(strings.Replace(string(raw), `"sector": 1,`, `"sector": 2,`, 1)), 0o644)
	code, out, _ = runCmd(t, "verify-seal", "--vk", f.VK, "--proof", proof, "--commdr", other)
	if code != exitInvalid || strings.TrimSpace(out) != "invalid" {
		t.Fatalf("wrong sector: exit %d %q", code, out)
	}
}

// prove-c2 --partition K proves partition K alone through the same engine
// path: a partition the C1 lacks is refused naming the partition count
// (before any parameter is read), and at 2 KiB, one partition, the proof of
// partition 0 at bellperson's r, s is the whole proof's bytes, which
// verify-seal --partition 0 accepts. --gpu in a build without CUDA is an
// error, never a CPU proof.
func TestProveC2Partition(t *testing.T) {
	c1File := "../../testdata/rustref/seal/2KiB/c1.json"
	dir := t.TempDir()
	proof := filepath.Join(dir, "proof.bin")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--partition", "1"}, "--partition: porep: partition out of range: partition 1, but the StackedDrg2KiBV1_1 C1 has 1 partition(s), 0 to 0"},
		{[]string{"--partition", "-2"}, "want a partition index"},
		{[]string{"--gpu"}, "built without CUDA"},
	} {
		if c.args[0] == "--gpu" && gpu.Built {
			continue
		}
		args := append([]string{"prove-c2", "--c1", c1File, "--params", filepath.Join(dir, "none"), "--out", proof}, c.args...)
		code, out, stderr := runCmd(t, args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, out, stderr, c.want)
		}
	}
	if _, err := os.Stat(proof); err == nil {
		t.Fatal("a refused prove-c2 wrote a proof")
	}

	testenv.E2E(t, "proves a 2 KiB partition")
	var golden struct {
		R, S     string
		ProofHex string `json:"proof_hex"`
	}
	raw, err := os.ReadFile("../../testdata/rustref/proof/2KiB.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	params := testparams.DefaultDir(os.LookupEnv)
	if code, _, stderr := runCmd(t, "params", "gen", "--sector-size", "2KiB", "--dir", params); code != exitOK {
		t.Fatal(stderr)
	}
	code, out, stderr := runCmd(t, "prove-c2", "--c1", c1File, "--params", params, "--out", proof,
		"--r", golden.R, "--s", golden.S, "--partition", "0")
	if code != exitOK || !strings.Contains(out, "partition 0 alone, proof 192 bytes") {
		t.Fatalf("prove-c2 --partition 0: exit %d\n%s\n%s", code, out, stderr)
	}
	if got, _ := os.ReadFile(proof); hex.EncodeToString(got) != golden.ProofHex {
		t.Fatalf("partition 0 at bellperson's r, s:\n cuzk       %x\n bellperson %s", got, golden.ProofHex)
	}
	f, _ := testparams.PathsFor(filecoin.StackedDrg2KiBV1_1, params)
	commdr := "../../testdata/rustref/seal/2KiB/commdr.json"
	code, out, stderr = runCmd(t, "verify-seal", "--vk", f.VK, "--proof", proof, "--commdr", commdr, "--partition", "0")
	if code != exitOK || strings.TrimSpace(out) != "valid" {
		t.Fatalf("verify-seal --partition 0: exit %d %q %q", code, out, stderr)
	}
}

// commdr.json's sector_size is checked like its other fields: a file that
// claims another size than its registered proof, or than --sector-size, is
// an error, never silently ignored.
func TestVerifySealCommDRSectorSize(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/rustref/seal/2KiB/commdr.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"sector_size": 2048`) {
		t.Fatal("commdr.json does not name 2048 bytes")
	}
	bad := filepath.Join(t.TempDir(), "commdr.json")
	os.WriteFile(bad, []byte(strings.Replace(string(raw), `"sector_size": 2048`, `"sector_size": 8388608`, 1)), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--commdr", bad}, "not 8MiB"},
		{[]string{"--commdr", "../../testdata/rustref/seal/2KiB/commdr.json", "--sector-size", "8MiB"}, "disagrees"},
	} {
		args := append([]string{"verify-seal", "--vk", "nope.vk", "--proof", "nope.bin"}, c.args...)
		code, out, stderr := runCmd(t, args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, stderr)
		}
	}
}

// Jobs this machine cannot hold are refused up front with the memory they
// need, and INSECURE test parameters never go into the official cache.
func TestParamsGenRefusesUpFront(t *testing.T) {
	official := t.TempDir()
	t.Setenv("FIL_PROOFS_PARAMETER_CACHE", official)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"params", "gen", "--sector-size", "2KiB", "--dir", official}, "official parameter cache"},
		{[]string{"params", "gen", "--sector-size", "2KiB", "--dir", official + "/."}, "official parameter cache"},
		{[]string{"demo", "--sector-size", "32GiB"}, `unsupported sector size "32GiB" (one of 2KiB, 8MiB, 512MiB,`},
		{[]string{"demo", "--sector-size", "2KiB", "--params", official}, "official parameter cache"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	entries, _ := os.ReadDir(official)
	if len(entries) != 0 {
		t.Errorf("the official cache got %d files", len(entries))
	}
}

// TestProveC2StopsOnCancel: prove-c2 cancelled (SIGINT/SIGTERM in main)
// while its partition is in the prover returns within seconds with an
// error and writes no proof file.
func TestProveC2StopsOnCancel(t *testing.T) {
	testenv.E2E(t, "starts a 2 KiB proof")
	params := testparams.DefaultDir(os.LookupEnv)
	if code, _, stderr := runCmd(t, "params", "gen", "--sector-size", "2KiB", "--dir", params); code != exitOK {
		t.Fatal(stderr)
	}
	proof := filepath.Join(t.TempDir(), "proof.bin")
	code, stderr, took := runUntil(t, "prove-c2: running: partitions 1 proving", 5*time.Minute,
		"prove-c2", "--c1", "../../testdata/rustref/seal/2KiB/c1.json", "--params", params, "--out", proof)
	if code != exitError || !strings.Contains(stderr, "context canceled") {
		t.Fatalf("prove-c2 after cancellation: exit %d\n%s", code, stderr)
	}
	t.Logf("prove-c2 stopped %v after cancellation", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("prove-c2 took %v to stop", took)
	}
	if _, err := os.Stat(proof); err == nil {
		t.Fatal("a proof file was written")
	}
}

// cuzk c1 gen writes a C1 the vanilla check accepts, its public values
// marked as made without sealing, and the marker file; --wrapped writes
// Curio's envelope around the same C1; NI-PoRep is refused.
func TestC1Gen(t *testing.T) {
	dir := t.TempDir()
	plain, wrapped := filepath.Join(dir, "c1.json"), filepath.Join(dir, "w", "c1.json")
	code, out, stderr := runCmd(t, "c1", "gen", "--sector-size", "2KiB", "--sector", "9", "--out", plain)
	if code != exitOK || !strings.Contains(out, "WITHOUT SEALING") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	o, err := c1.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := porep.VerifyVanilla(context.Background(), o, 1); err != nil {
		t.Fatalf("vanilla check: %v", err)
	}
	cdr, err := seal.ReadCommDR(filepath.Join(dir, "commdr.json"))
	if err != nil || cdr.Sector != 9 || cdr.MadeWithoutSealing == "" || cdr.CommR != hex.EncodeToString(o.CommR[:]) {
		t.Fatalf("commdr.json: %+v %v", cdr, err)
	}
	if _, err := os.Stat(plain + ".MADE-WITHOUT-SEALING"); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr = runCmd(t, "c1", "gen", "--sector-size", "2KiB", "--sector", "9", "--wrapped", "--out", wrapped); code != exitOK {
		t.Fatalf("--wrapped: exit %d %s", code, stderr)
	}
	wraw, err := os.ReadFile(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	wo, w, err := c1.ParseWrapped(wraw)
	if err != nil || w.SectorNum != 9 || !bytes.Equal(wo.AppendJSON(nil), raw) {
		t.Fatalf("--wrapped: %v", err)
	}
	if code, _, stderr = runCmd(t, "c1", "gen", "--registered-proof", "15", "--out", filepath.Join(dir, "ni.json")); code != exitError || !strings.Contains(stderr, "only interactive PoRep") {
		t.Fatalf("NI-PoRep: exit %d %q", code, stderr)
	}
}
