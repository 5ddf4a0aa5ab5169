package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/snapgen"
	"github.com/cuzk-dev/cuzk/testparams"
)

// readGenerated reads what snap gen wrote to dir: update.json, marked as
// made without a sector, and the vanilla proofs, which pass the native
// check of every partition against update.json's values.
func readGenerated(t *testing.T, dir string, p filecoin.RegisteredUpdateProof) (*snap.UpdateFile, snap.Public) {
	t.Helper()
	u, err := snap.ReadUpdateFile(filepath.Join(dir, snap.UpdateFileName))
	if err != nil {
		t.Fatal(err)
	}
	if u.RegisteredProof != int64(p) || u.MadeWithoutSealing == "" || u.Partitions != p.Partitions() {
		t.Fatalf("update.json: %+v", u)
	}
	if _, err := os.Stat(filepath.Join(dir, snap.ProofsFileName+".MADE-WITHOUT-SEALING")); err != nil {
		t.Fatal(err)
	}
	pub := snap.Public{Proof: p, CommROld: golden.Fr(t, u.CommROld), CommRNew: golden.Fr(t, u.CommRNew)}
	d, _ := hex.DecodeString(u.CommDNew)
	copy(pub.CommDNew[:], d)
	pps, err := snap.DecodePartitionProofs(golden.ReadBase64List(t, filepath.Join(dir, snap.ProofsFileName)), p)
	if err != nil {
		t.Fatal(err)
	}
	if err := snap.VerifyAll(context.Background(), pub, pps); err != nil {
		t.Fatalf("native check: %v", err)
	}
	return u, pub
}

// cuzk snap gen writes an update the native check accepts, at 2 KiB and
// 8 MiB (by size or by registered proof), marked as made without a
// sector; bad flags exit 2 naming the flag.
func TestSnapGen(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCmd(t, "snap", "gen", "--sector-size", "2KiB", "--out", filepath.Join(dir, "2k"))
	if code != exitOK || !strings.Contains(out, "WITHOUT A SECTOR") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	readGenerated(t, filepath.Join(dir, "2k"), filecoin.StackedDrg2KiBUpdateV1)
	if code, _, stderr = runCmd(t, "snap", "gen", "--registered-proof", "1", "--sector", "7", "--miner", "9", "--out", filepath.Join(dir, "8m")); code != exitOK {
		t.Fatalf("8 MiB: exit %d %s", code, stderr)
	}
	u, _ := readGenerated(t, filepath.Join(dir, "8m"), filecoin.StackedDrg8MiBUpdateV1)
	if u.SectorNumber != 7 || u.MinerID == nil || *u.MinerID != 9 {
		t.Fatalf("sector %d, miner %v", u.SectorNumber, u.MinerID)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sector-size", "2KiB"}, "--out is required"},
		{[]string{"--out", dir}, "give --sector-size or --registered-proof"},
		{[]string{"--sector-size", "2KiB", "--registered-proof", "1", "--out", dir}, "updates 8MiB sectors, not 2KiB"},
		{[]string{"--registered-proof", "7", "--out", dir}, "--registered-proof"},
		{[]string{"--sector-size", "2KiB", "--period", "64", "--out", dir}, "period 64"},
	} {
		code, _, stderr := runCmd(t, append([]string{"snap", "gen"}, c.args...)...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// verify-update --partition K checks partition K alone, from its 192
// bytes or from the whole proof, against the public inputs of K derived
// from a generated 8 MiB update.json (a proof bound to exactly those
// inputs: testkit.StubProof); another partition's bytes are invalid and
// a partition the update lacks exits 2.
func TestVerifyUpdatePartition(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := runCmd(t, "snap", "gen", "--sector-size", "8MiB", "--out", dir); code != exitOK {
		t.Fatal(stderr)
	}
	p := filecoin.StackedDrg8MiBUpdateV1
	_, pub := readGenerated(t, dir, p)
	inputs, err := pub.Inputs()
	if err != nil {
		t.Fatal(err)
	}
	vk, proof := stubUpdateProof(t, inputs)
	upd := filepath.Join(dir, snap.UpdateFileName)
	raw, _ := os.ReadFile(proof)
	alone := filepath.Join(t.TempDir(), "p2")
	os.WriteFile(alone, raw[2*192:3*192], 0o644)
	for _, c := range []struct {
		proof, k string
		code     int
	}{
		{proof, "2", exitOK}, {alone, "2", exitOK}, {proof, "0", exitOK}, {alone, "1", exitInvalid}, {alone, "3", exitInvalid},
	} {
		code, stdout, stderr := runCmd(t, "verify-update", "--vk", vk, "--proof", c.proof, "--update", upd, "--partition", c.k)
		if code != c.code {
			t.Errorf("%s --partition %s: exit %d %q %s, want %d", filepath.Base(c.proof), c.k, code, stdout, stderr, c.code)
		}
	}
	for _, c := range []struct{ k, want string }{{"4", "4, StackedDrg8MiBV1 has 4 partition(s), 0 to 3"}, {"-2", "--partition -2"}} {
		if code, _, stderr := runCmd(t, "verify-update", "--vk", vk, "--proof", proof, "--update", upd, "--partition", c.k); code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("--partition %s: exit %d %q, want %q", c.k, code, stderr, c.want)
		}
	}
	odd := filepath.Join(t.TempDir(), "odd")
	os.WriteFile(odd, raw[:384], 0o644)
	if code, _, stderr := runCmd(t, "verify-update", "--vk", vk, "--proof", odd, "--update", upd, "--partition", "1"); code != exitError || !strings.Contains(stderr, "384 bytes") {
		t.Errorf("two proofs of four: exit %d %q", code, stderr)
	}
}

// A generated 2 KiB update proven by prove-update, whole and with
// --partition 0, is accepted by verify-update (whole and --partition 0)
// and rejected with comm_r_new or one proof byte changed.
func TestSnapGenProve(t *testing.T) {
	testenv.E2E(t, "a 2 KiB SnapDeals proof (the update parameters take minutes to generate once)")
	dir := t.TempDir()
	if code, _, stderr := runCmd(t, "snap", "gen", "--sector-size", "2KiB", "--out", dir); code != exitOK {
		t.Fatal(stderr)
	}
	u, _ := readGenerated(t, dir, filecoin.StackedDrg2KiBUpdateV1)
	params := ensureKindParams(t, filecoin.CircuitUpdate2K)
	f, _ := testparams.PathsForCircuit(filecoin.CircuitUpdate2K, params)
	upd, vanilla := filepath.Join(dir, snap.UpdateFileName), filepath.Join(dir, snap.ProofsFileName)
	whole, one := filepath.Join(dir, "update.proof"), filepath.Join(dir, "p0.proof")
	if code, _, stderr := runCmd(t, "prove-update", "--vanilla", vanilla, "--update", upd, "--params", params, "--out", whole); code != exitOK {
		t.Fatalf("prove-update: %s", stderr)
	}
	if code, stdout, stderr := runCmd(t, "prove-update", "--vanilla", vanilla, "--update", upd, "--params", params, "--partition", "0", "--out", one); code != exitOK || !strings.Contains(stdout, "partition 0 alone") {
		t.Fatalf("prove-update --partition 0: exit %d %q %s", code, stdout, stderr)
	}
	if code, _, stderr := runCmd(t, "prove-update", "--vanilla", vanilla, "--update", upd, "--params", params, "--partition", "1", "--out", one+"1"); code != exitError || !strings.Contains(stderr, "1 partition(s)") {
		t.Fatalf("prove-update --partition 1: exit %d %q", code, stderr)
	}
	bad := filepath.Join(dir, "bad.proof")
	raw, _ := os.ReadFile(whole)
	raw[0] ^= 0x20 // A's y-sign flag: -A decodes and must fail the pairing
	os.WriteFile(bad, raw, 0o644)
	var e fr.Element
	e.SetUint64(5)
	otherRNew := hex.EncodeToString(func() []byte { b := e.Bytes(); return b[:] }())
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"--proof", whole}, exitOK},
		{[]string{"--proof", one}, exitOK},
		{[]string{"--proof", whole, "--partition", "0"}, exitOK},
		{[]string{"--proof", one, "--partition", "0"}, exitOK},
		{[]string{"--proof", bad}, exitInvalid},
		{[]string{"--proof", bad, "--partition", "0"}, exitInvalid},
		{[]string{"--proof", whole, "--registered-proof", "0", "--comm-r-old", u.CommROld, "--comm-d-new", u.CommDNew, "--comm-r-new", otherRNew}, exitInvalid},
	} {
		args := append([]string{"verify-update", "--vk", f.VK}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--comm-r-new") {
			args = append(args, "--update", upd)
		}
		if code, stdout, stderr := runCmd(t, args...); code != c.code {
			t.Errorf("%v: exit %d %q %s, want %d", c.args, code, stdout, stderr, c.code)
		}
	}
}

// bench single --snap-gen SIZE builds Curio's SnapDeals request from an
// update made without a sector: its vanilla proofs, registered proof and
// commitments, and the public values --verify checks against; it goes with
// -t snap only, excludes --vanilla and refuses contradicting flags.
func TestBenchSnapGenSpec(t *testing.T) {
	spec := func(args ...string) (*cuzkv1.SubmitProofRequest, bool, error) {
		fs := flag.NewFlagSet("bench single", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		p := addProofFlags(fs, true)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		s, err := p.flagSpec(context.Background(), io.Discard)
		if err != nil {
			return nil, false, err
		}
		return s.Template, s.Public != nil, nil
	}
	req, public, err := spec("-t", "snap", "--snap-gen", "8MiB", "--sector", "7")
	if err != nil {
		t.Fatal(err)
	}
	g, err := snapgen.Generate(context.Background(), snapgen.Params{Proof: filecoin.StackedDrg8MiBUpdateV1, MinerID: 1000, Sector: 7}, 2)
	if err != nil {
		t.Fatal(err)
	}
	u := g.UpdateFile()
	if req.ProofKind != cuzkv1.ProofKind_SNAP_DEALS_UPDATE || req.RegisteredProof != 1 || len(req.VanillaProofs) != 4 || !public ||
		hex.EncodeToString(req.CommRNew) != u.CommRNew || hex.EncodeToString(req.CommROld) != u.CommROld || hex.EncodeToString(req.CommDNew) != u.CommDNew {
		t.Fatalf("request: kind %v, proof %d, %d vanilla proofs, public %v", req.ProofKind, req.RegisteredProof, len(req.VanillaProofs), public)
	}
	for i := range req.VanillaProofs {
		if !bytes.Equal(req.VanillaProofs[i], g.VanillaProofs[i]) {
			t.Fatalf("vanilla proof %d differs from snap gen's", i)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-t", "porep", "--snap-gen", "2KiB"}, "goes with -t snap"},
		{[]string{"-t", "snap", "--snap-gen", "2KiB", "--vanilla", "x.json"}, "exclude each other"},
		{[]string{"-t", "snap", "--snap-gen", "2KiB", "--registered-proof", "1"}, "disagrees"},
		{[]string{"-t", "snap", "--snap-gen", "2KiB", "--comm-r-new", strings.Repeat("00", 32)}, "--comm-r-new"},
	} {
		if _, _, err := spec(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// The daemon proves a --snap-gen update as Curio's Snap task sends it and
// bench single --verify accepts the proof.
func TestBenchSingleSnapGen(t *testing.T) {
	testenv.E2E(t, "a 2 KiB SnapDeals proof through the daemon")
	params := ensureKindParams(t, filecoin.CircuitUpdate2K)
	d := startBenchDaemon(t, params, "8GiB", "--trust-params")
	code, out, stderr := d.bench(t, "single", "-t", "snap", "--snap-gen", "2KiB", "--verify", "--params", d.params)
	t.Log(out)
	if code != exitOK || !strings.Contains(stderr, "--snap-gen: made a 2KiB update WITHOUT A SECTOR") ||
		!regexp.MustCompile(`(?m)^verify:\s+valid `).MatchString(out) {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}
