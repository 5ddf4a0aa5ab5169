package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/benchspec"
	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/testparams"
)

func TestCircuitFor(t *testing.T) {
	size := func(s filecoin.SectorSize) sectorSizeFlag { return sectorSizeFlag{v: s, set: true} }
	for _, c := range []struct {
		kind proofkind.Kind
		size sectorSizeFlag
		id   int64
		want filecoin.CircuitID
		err  string
	}{
		{proofkind.PoRep, size(filecoin.SectorSize2KiB), -1, "porep-2k", ""},
		{proofkind.WindowPoSt, size(filecoin.SectorSize32GiB), -1, "wpost-32g", ""},
		{proofkind.WindowPoSt, sectorSizeFlag{}, 5, "wpost-2k", ""},
		{proofkind.WindowPoSt, size(filecoin.SectorSize2KiB), 10, "wpost-2k", ""},
		{proofkind.WinningPoSt, sectorSizeFlag{}, 4, "winning-64g", ""},
		{proofkind.SnapDeals, sectorSizeFlag{}, 1, "snap-8m", ""},
		{proofkind.SnapDeals, size(filecoin.SectorSize512MiB), -1, "snap-512m", ""},
		{proofkind.WinningPoSt, sectorSizeFlag{}, 10, "", "not a winning-post proof"},
		{proofkind.WindowPoSt, size(filecoin.SectorSize8MiB), 10, "", "is for 2KiB sectors, not 8MiB"},
		{proofkind.SnapDeals, sectorSizeFlag{}, 5, "", "unknown registered update proof"},
		{proofkind.SnapDeals, sectorSizeFlag{}, -1, "", "give --sector-size or --registered-proof"},
		{proofkind.WindowPoSt, size(filecoin.SectorSize4KiB), -1, "", "no window-post circuit"},
	} {
		got, err := circuitFor(c.kind, c.size, c.id)
		if c.err == "" && (err != nil || got != c.want) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v %v %d: %q %v; want %q %q", c.kind, c.size.v, c.id, got, err, c.want, c.err)
		}
	}
}

// params gen --kind writes the kind's circuit under its official name with
// the marker; the refusals of PoRep (official cache, an unmarked file,
// memory) apply to every kind.
func TestParamsGenKinds(t *testing.T) {
	dir := t.TempDir()
	code, out, stderr := runCmd(t, "params", "gen", "--kind", "window-post", "--sector-size", "2KiB", "--dir", dir)
	if code != exitOK || !strings.Contains(out, "wpost-2k") {
		t.Fatalf("exit %d %q %q", code, out, stderr)
	}
	f, _ := testparams.PathsForCircuit(filecoin.CircuitWindowPoSt2K, dir)
	if !f.Complete() || !testparams.IsTest(f.Params) {
		t.Fatalf("%+v incomplete", f)
	}
	if code, out, _ := runCmd(t, "params", "gen", "--kind", "wpost", "--registered-proof", "5", "--dir", dir); code != exitOK || !strings.Contains(out, "already present") {
		t.Fatalf("second run: exit %d %q", code, out)
	}
	official := t.TempDir()
	t.Setenv("FIL_PROOFS_PARAMETER_CACHE", official)
	unmarked := t.TempDir()
	g, _ := testparams.PathsForCircuit(filecoin.CircuitWinningPoSt2K, unmarked)
	os.WriteFile(g.VK, []byte("official"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"params", "gen", "--kind", "snap", "--sector-size", "2KiB", "--dir", official}, "official parameter cache"},
		{[]string{"params", "gen", "--kind", "winning-post", "--sector-size", "2KiB", "--dir", unmarked}, "refusing"},
		{[]string{"params", "gen", "--kind", "post", "--sector-size", "2KiB", "--dir", dir}, "--kind"},
		{[]string{"params", "gen", "--kind", "winning-post", "--registered-proof", "12", "--dir", dir}, "not a winning-post proof"},
		{[]string{"demo", "--kind", "snap", "--sector-size", "32GiB"}, `unsupported sector size "32GiB" (one of 2KiB, 8MiB, 512MiB,`},
		{[]string{"demo", "--kind", "window-post", "--params", official}, "official parameter cache"},
		{[]string{"demo", "--kind", "nope"}, "--kind"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	if b, _ := os.ReadFile(g.VK); string(b) != "official" {
		t.Fatal("unmarked file overwritten")
	}
	if entries, _ := os.ReadDir(official); len(entries) != 0 {
		t.Errorf("the official cache got %d files", len(entries))
	}
}

// The bench's built-in PoSt and SnapDeals requests carry the inputs a
// verifier computes; a request read back from a --vanilla file (Curio's
// JSON form) and flags describes itself to the same circuit and inputs.
func TestBenchKindSpecs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, typ := range []proofkind.Kind{proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals} {
		pf := &proofFlags{registeredProof: -1, minerID: 1000}
		var progress strings.Builder
		spec, err := pf.spec(ctx, typ, &progress)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if !strings.Contains(progress.String(), "no --vanilla") || spec.Circuit == "" || spec.Public == nil || spec.Partitions != spec.Public.Partitions() {
			t.Fatalf("%s: %+v (%s)", typ, spec.Spec, progress.String())
		}
		req := spec.Request("id")
		if req.GetProofKind() != cuzkv1.ProofKind(typ) || len(req.GetVanillaProofs()) == 0 || req.GetSectorSize() != 2048 {
			t.Fatalf("%s: request %v", typ, req)
		}
		// The same request through the --vanilla path.
		raw, _ := json.Marshal(spec.Template.VanillaProofs)
		path := filepath.Join(dir, typ.String()+".json")
		os.WriteFile(path, raw, 0o644)
		pf2 := &proofFlags{typ: typ.String(), vanilla: path, registeredProof: int64(spec.Template.RegisteredProof), minerID: 1000,
			randomness: hexOf(spec.Template.Randomness), commROld: hexOf(spec.Template.CommROld), commRNew: hexOf(spec.Template.CommRNew), commDNew: hexOf(spec.Template.CommDNew)}
		back, err := pf2.flagSpec(ctx, &progress)
		if err != nil {
			t.Fatal(err)
		}
		if back.Circuit != spec.Circuit || back.Partitions != spec.Partitions || back.Public == nil {
			t.Fatalf("%s: from the file %+v, built in %+v", typ, back.Spec, spec.Spec)
		}
		if !reflect.DeepEqual(back.Public, spec.Public) {
			t.Fatalf("%s: public values from the file %+v, built in %+v", typ, back.Public, spec.Public)
		}
		if p, err := spec.VerifyingKeyPath("/params"); err != nil || !strings.HasPrefix(p, "/params/v28-") {
			t.Fatalf("%s: vk %q %v", typ, p, err)
		}
		// A wrong proof never verifies (and an unknown request has no verifier).
		if _, _, err := (&benchspec.Spec{Spec: &bench.Spec{Template: &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind(typ)}}}).Verify(nil, nil); !errors.Is(err, benchspec.ErrNoVerifier) {
			t.Fatalf("%s: %v", typ, err)
		}
	}
	if _, err := (&proofFlags{registeredProof: 3, minerID: 1}).spec(ctx, proofkind.WinningPoSt, &strings.Builder{}); err == nil {
		t.Fatal("a registered proof the built-in request does not have was accepted")
	}
	if _, err := (&proofFlags{typ: "no-such-kind"}).flagSpec(ctx, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "no-such-kind") {
		t.Fatalf("-t no-such-kind: %v", err)
	}
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// ensureKindParams generates (once, in the shared cache) the 2 KiB test
// parameters of a circuit.
func ensureKindParams(t *testing.T, c filecoin.CircuitID) string {
	t.Helper()
	return filepath.Dir(testkit.FilecoinParams(t, c)[0].Params)
}

// prove-post and prove-update prove Curio's vanilla JSON through the
// engine; the proofs verify against public inputs computed from the
// sectors' public values, and bad vanilla proofs exit 1 with the field.
func TestProvePostUpdateCLI(t *testing.T) {
	testenv.E2E(t, "2 KiB WindowPoSt, WinningPoSt and SnapDeals proofs (the update parameters take minutes to generate once)")
	ctx := context.Background()
	dir := t.TempDir()
	for _, kind := range []proofkind.Kind{proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals} {
		f, err := demo.NewFixture(ctx, kind, filecoin.SectorSize2KiB, 1000, 2)
		if err != nil {
			t.Fatal(err)
		}
		params := ensureKindParams(t, f.Circuit)
		raw, _ := json.Marshal(f.Request.VanillaProofs)
		vanilla := filepath.Join(dir, kind.String()+".json")
		os.WriteFile(vanilla, raw, 0o644)
		out := filepath.Join(dir, kind.String()+".proof")
		args := []string{"--vanilla", vanilla, "--registered-proof", itoa(f.Request.RegisteredProof), "--params", params, "--out", out}
		cmd := "prove-post"
		if kind == proofkind.SnapDeals {
			cmd = "prove-update"
			upd := filepath.Join(dir, "update.json")
			b, _ := json.Marshal(map[string]any{"comm_r_old": hexOf(f.Request.CommROld), "comm_r_new": hexOf(f.Request.CommRNew), "comm_d_new": hexOf(f.Request.CommDNew), "registered_proof": f.Request.RegisteredProof})
			os.WriteFile(upd, b, 0o644)
			args = []string{"--vanilla", vanilla, "--update", upd, "--params", params, "--out", out}
		} else {
			args = append(args, "--randomness", hexOf(f.Request.Randomness))
		}
		code, stdout, stderr := runCmd(t, append([]string{cmd}, args...)...)
		if code != exitOK {
			t.Fatalf("%s: exit %d %s", cmd, code, stderr)
		}
		t.Logf("%s %v: %s", cmd, kind, stdout)
		proof, _ := os.ReadFile(out)
		fc, _ := testparams.PathsForCircuit(f.Circuit, params)
		vk, err := groth16.ReadVerifyingKeyFile(fc.VK)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := f.Verify(vk, proof); !ok || err != nil {
			t.Fatalf("%v: proof does not verify: %v", kind, err)
		}
		// Another randomness (PoSt) or comm_r_new (update) is refused as
		// invalid, naming the cause.
		bad := append([]string{cmd}, args...)
		want := "challenged leaf mismatch"
		if kind == proofkind.SnapDeals {
			other := append([]byte(nil), f.Request.CommRNew...)
			other[0] ^= 1
			bad = append(bad, "--comm-r-new", hexOf(other))
			want = "comm_r_new does not match the vanilla proofs"
		} else {
			other := testkit.Randomness(99)
			bad = append(bad, "--randomness", hexOf(other[:]))
		}
		if code, _, stderr := runCmd(t, bad...); code != exitInvalid || !strings.Contains(stderr, want) {
			t.Fatalf("%s with a bad value: exit %d %q", cmd, code, stderr)
		}
	}
}

func itoa(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// demo --kind proves each kind end to end from a sealed sector.
func TestDemoKinds(t *testing.T) {
	testenv.E2E(t, "2 KiB WindowPoSt and WinningPoSt demos")
	for _, kind := range []string{"window-post", "winning-post"} {
		code, out, stderr := runCmd(t, "demo", "--kind", kind)
		if code != exitOK || !strings.Contains(out, "valid") {
			t.Fatalf("demo --kind %s: exit %d\n%s\n%s", kind, code, out, stderr)
		}
		t.Log(out)
	}
}

// The commands chain as an operator would run them: cuzk seal keeps the
// sectors, post vanilla and snap encode make Curio's vanilla proofs,
// prove-post and prove-update prove them through the engine, and
// verify-post and verify-update accept the proofs from the public-values
// files alone.
func TestCommandChain(t *testing.T) {
	testenv.E2E(t, "2 KiB WindowPoSt, WinningPoSt and SnapDeals proofs")
	s1, s2, cc := sealedDir(t, "s1"), sealedDir(t, "s2"), sealedDir(t, "cc")
	dir := t.TempDir()
	rnd := hexOf(func() []byte { r := testkit.Randomness(11); return r[:] }())
	for _, c := range []struct {
		kind, dirs string
		circuit    filecoin.CircuitID
	}{{"window", s1 + "," + s2, filecoin.CircuitWindowPoSt2K}, {"winning", s1, filecoin.CircuitWinningPoSt2K}} {
		params := ensureKindParams(t, c.circuit)
		v := filepath.Join(dir, c.kind+".json")
		if code, _, stderr := runCmd(t, "post", "vanilla", "--kind", c.kind, "--sector-dir", c.dirs, "--randomness", rnd, "--out", v); code != exitOK {
			t.Fatalf("post vanilla %s: %s", c.kind, stderr)
		}
		pub := strings.TrimSuffix(v, ".json") + ".public.json"
		proof := filepath.Join(dir, c.kind+".proof")
		if code, _, stderr := runCmd(t, "prove-post", "--vanilla", v, "--public", pub, "--params", params, "--out", proof); code != exitOK {
			t.Fatalf("prove-post %s: %s", c.kind, stderr)
		}
		// The key is found by its official name in --params.
		if code, out, stderr := runCmd(t, "verify-post", "--params", params, "--proof", proof, "--public", pub); code != exitOK || strings.TrimSpace(out) != "valid" {
			t.Fatalf("verify-post %s: exit %d %q %q", c.kind, code, out, stderr)
		}
		if code, _, stderr := runCmd(t, "prove-post", "--vanilla", v, "--public", pub, "--partition", "3", "--out", proof); code != exitError || !strings.Contains(stderr, "disagrees") {
			t.Fatalf("prove-post with a contradicting flag: exit %d %q", code, stderr)
		}
	}
	params := ensureKindParams(t, filecoin.CircuitUpdate2K)
	out := filepath.Join(dir, "update")
	if code, _, stderr := runCmd(t, "snap", "encode", "--sector-dir", cc, "--out", out); code != exitOK {
		t.Fatalf("snap encode: %s", stderr)
	}
	upd, proof := filepath.Join(out, "update.json"), filepath.Join(dir, "update.proof")
	if code, _, stderr := runCmd(t, "prove-update", "--vanilla", filepath.Join(out, "vproofs.json"), "--update", upd, "--params", params, "--out", proof); code != exitOK {
		t.Fatalf("prove-update: %s", stderr)
	}
	f, _ := testparams.PathsForCircuit(filecoin.CircuitUpdate2K, params)
	if code, stdout, stderr := runCmd(t, "verify-update", "--vk", f.VK, "--proof", proof, "--update", upd); code != exitOK || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("verify-update: exit %d %q %q", code, stdout, stderr)
	}
}
