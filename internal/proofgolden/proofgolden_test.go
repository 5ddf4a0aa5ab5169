package proofgolden

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// proofFile is testdata/rustref/proof/<case>.json as
// scripts/golden-proof-post.sh writes it.
type proofFile struct {
	Case string `json:"case"`
	// Vanilla is the vanilla-proof file the circuit was built from,
	// relative to testdata/rustref.
	Vanilla      string `json:"vanilla"`
	Partition    int    `json:"partition"`
	ParamsSeed   string `json:"params_seed"`
	ParamsSHA256 string `json:"params_sha256"`
	R            string `json:"r"`
	S            string `json:"s"`
	ProofHex     string `json:"proof_hex"`
	// PublicInputs are upstream's generate_public_inputs (ONE excluded),
	// 64-hex LE each; the proof verified against them under bellperson.
	PublicInputs []string `json:"public_inputs"`
	Circuit      struct {
		Constraints int    `json:"constraints"`
		Inputs      int    `json:"inputs"`
		R1CSSHA256  string `json:"r1cs_sha256"`
	} `json:"circuit"`
	Verified bool `json:"verified_with_params_vk"`
}

func loadProofFile(t *testing.T, name string) *proofFile {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(golden.Dir(), "proof", name+".json"))
	if err != nil {
		t.Fatalf("%v (scripts/golden-proof-post.sh writes it)", err)
	}
	var g proofFile
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if g.Case != name {
		t.Fatalf("proof/%s.json is for case %q", name, g.Case)
	}
	if g.ParamsSeed != testparams.DefaultSeed {
		t.Fatalf("golden was made with parameter seed %q, testparams uses %q", g.ParamsSeed, testparams.DefaultSeed)
	}
	if !g.Verified {
		t.Fatalf("proof/%s.json: bellperson did not verify its own proof", name)
	}
	return &g
}

// paramsFor returns the cached test parameters of circuit c (made once
// by testparams, the generator `cuzk params gen --kind` uses) and fails
// unless their .params file hashes to the one bellperson proved with.
func paramsFor(t *testing.T, g *proofFile, c filecoin.CircuitID) testparams.Files {
	t.Helper()
	f := testkit.FilecoinParams(t, c)[0]
	pf, err := os.Open(f.Params)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	h := sha256.New()
	if _, err := io.Copy(h, pf); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != g.ParamsSHA256 {
		t.Fatalf("%s hashes to\n %s, bellperson proved with\n %s: the setup or the blank circuit changed (rerun scripts/golden-proof-post.sh only if that was intended)", f.Params, got, g.ParamsSHA256)
	}
	return f
}

// compareInputs fails unless got (named what) equals the golden's public
// inputs, printing both lists.
func compareInputs(t *testing.T, what string, got []fr.Element, want []string) {
	t.Helper()
	gh := make([]string, len(got))
	for i := range got {
		gh[i] = golden.FrHex(got[i])
	}
	if strings.Join(gh, ",") != strings.Join(want, ",") {
		t.Fatalf("%s differ from upstream's generate_public_inputs:\n cuzk %v\n rust %v", what, gh, want)
	}
}

// check is the body of each test: the cached test parameters hash to the
// golden's, the circuit has bellperson's shape, the engine (the one proving
// path of the daemon and the one-shot commands) proves req at the golden's
// r, s to bellperson's bytes, and the proof verifies against inputs (derived
// by the verifier's side of cuzk from public values) and not against
// altered ones.
func check(t *testing.T, g *proofFile, c filecoin.CircuitID, kind engine.Planner, req *engine.Request, size r1cs.Size, inputs []fr.Element) {
	t.Helper()
	compareInputs(t, "verifier's public inputs", inputs, g.PublicInputs)
	if size.Constraints != g.Circuit.Constraints || size.Inputs != g.Circuit.Inputs {
		t.Errorf("circuit has %d rows / %d inputs, bellperson's %d / %d", size.Constraints, size.Inputs, g.Circuit.Constraints, g.Circuit.Inputs)
	}
	f := paramsFor(t, g, c)

	rnd := groth16.Randomness{R: golden.Fr(t, g.R), S: golden.Fr(t, g.S)}
	e := newEngine(t, f, req.Kind, kind, prover.Fixed(rnd))
	start := time.Now()
	res, err := e.Prove(context.Background(), req)
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("prove: %v %v %v", err, res.State, res.Err)
	}
	t.Logf("%s: %d rows, %d inputs; through the engine in %v (synthesis %v, prove %v)", g.Case, size.Constraints, size.Inputs,
		time.Since(start).Round(time.Millisecond), res.Timings.Synthesis, res.Timings.Prove)
	if got := hex.EncodeToString(res.Proof); got != g.ProofHex {
		t.Fatalf("proof differs from bellperson's:\n cuzk       %s\n bellperson %s", got, g.ProofHex)
	}

	vk, err := groth16.ReadVerifyingKeyFile(f.VK)
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := groth16.DecodeProofs(res.Proof)
	if err != nil {
		t.Fatal(err)
	}
	if err := prover.Verify(pvk, proofs, [][]fr.Element{inputs}); err != nil {
		t.Fatalf("proof does not verify against the verifier's inputs: %v", err)
	}
	bad := append([]fr.Element(nil), inputs...)
	var one fr.Element
	one.SetOne()
	bad[len(bad)-1].Add(&bad[len(bad)-1], &one)
	if err := prover.Verify(pvk, proofs, [][]fr.Element{bad}); err == nil {
		t.Fatal("proof verifies against altered public inputs")
	}
}

// newEngine is an engine over the test parameters in f's directory serving
// kind as k, with randomness rnd.
func newEngine(t *testing.T, f testparams.Files, k proofkind.Kind, kind engine.Planner, rnd prover.RandomnessSource) *engine.Engine {
	t.Helper()
	return testkit.NewEngine(t, testkit.EngineOptions{Kinds: []engine.Kind{engine.Builtin(k, kind)},
		Locator: srs.FilecoinLocator(filepath.Dir(f.Params)), Budget: 8 << 30, Randomness: rnd}).Engine
}

// sizeOf counts circ's rows and inputs (with ONE) as bellperson's golden
// states them (without the input rows).
func sizeOf(t *testing.T, circ r1cs.Circuit) r1cs.Size {
	t.Helper()
	cs, err := r1cs.Synthesize(circ, r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	return r1cs.Size{Constraints: cs.NumConstraints(), Inputs: cs.NumInputs()}
}
