package proofgolden

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
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

// setupParams is how the golden's parameters were made
// (TestGenerateParams): groth16.Setup over the blank circuit with the
// toxic waste of testparams.DefaultSeed.
func setupParams(blank r1cs.Circuit) (*groth16.Params, error) {
	return groth16.Setup(blank, testparams.ToxicWaste(testparams.DefaultSeed), groth16.SetupOptions{})
}

// paramsSHA256 is the SHA-256 of the .params file p writes.
func paramsSHA256(p *groth16.Params) string {
	h := sha256.New()
	if _, err := p.WriteTo(h); err != nil {
		panic(err) // a hash never fails to write
	}
	return hex.EncodeToString(h.Sum(nil))
}

func frFromHex(t testing.TB, s string) fr.Element {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad 64-hex field element %q", s)
	}
	e, err := fr.LittleEndian.Element((*[32]byte)(b))
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return e
}

func frHex(e fr.Element) string {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, e)
	return hex.EncodeToString(b[:])
}

// compareInputs fails unless got (named what) equals the golden's public
// inputs, printing both lists.
func compareInputs(t *testing.T, what string, got []fr.Element, want []string) {
	t.Helper()
	gh := make([]string, len(got))
	for i := range got {
		gh[i] = frHex(got[i])
	}
	if strings.Join(gh, ",") != strings.Join(want, ",") {
		t.Fatalf("%s differ from upstream's generate_public_inputs:\n cuzk %v\n rust %v", what, gh, want)
	}
}

// check is the body of each test: the parameters hash to the golden's,
// the circuit has its shape, cuzk's proof at the golden's r, s through the
// CPU backend is bellperson's byte for byte, and it verifies against
// inputs (derived by the verifier's side of cuzk from public values) and
// not against altered ones.
func check(t *testing.T, g *proofFile, blank, circ r1cs.Circuit, inputs []fr.Element) {
	t.Helper()
	compareInputs(t, "verifier's public inputs", inputs, g.PublicInputs)

	start := time.Now()
	params, err := setupParams(blank)
	if err != nil {
		t.Fatal(err)
	}
	setupTook := time.Since(start)
	if got := paramsSHA256(params); got != g.ParamsSHA256 {
		t.Fatalf("test parameters hash to\n %s, bellperson proved with\n %s: the setup or the blank circuit changed (rerun scripts/golden-proof-post.sh only if that was intended)", got, g.ParamsSHA256)
	}

	rnd := groth16.Randomness{R: frFromHex(t, g.R), S: frFromHex(t, g.S)}
	start = time.Now()
	proofs, size, err := prove(context.Background(), params, circ, rnd)
	if err != nil {
		t.Fatal(err)
	}
	proveTook := time.Since(start)
	t.Logf("%s: %d rows, %d inputs; setup %v, synthesis+prove %v", g.Case, size.Constraints, size.Inputs,
		setupTook.Round(time.Millisecond), proveTook.Round(time.Millisecond))
	if size.Constraints != g.Circuit.Constraints || size.Inputs != g.Circuit.Inputs {
		t.Errorf("circuit has %d rows / %d inputs, bellperson's %d / %d", size.Constraints, size.Inputs, g.Circuit.Constraints, g.Circuit.Inputs)
	}
	if got := hex.EncodeToString(prover.Encode(proofs)); got != g.ProofHex {
		t.Fatalf("proof differs from bellperson's:\n cuzk       %s\n bellperson %s", got, g.ProofHex)
	}

	pvk, err := groth16.Prepare(params.VK)
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

// prove synthesises circ and proves it as the engine does: a fresh exact
// assignment, the input rows appended, the prover backend's Start and
// Finish (engine.synthesizePart, startProof, finish). It also returns the
// circuit's own size (rows without the input rows, inputs with ONE).
func prove(ctx context.Context, p *groth16.Params, circ r1cs.Circuit, rnd groth16.Randomness) ([]groth16.Proof, r1cs.Size, error) {
	pa := r1cs.NewProvingAssignment(r1cs.Size{})
	cs, err := r1cs.Synthesize(circ, pa)
	if err != nil {
		return nil, r1cs.Size{}, fmt.Errorf("synthesis: %w", err)
	}
	size := r1cs.Size{Constraints: cs.NumConstraints(), Inputs: cs.NumInputs()}
	cs.AppendInputRows()
	if err := pa.Check(); err != nil {
		return nil, size, err
	}
	var b prover.Backend = &cpu.Backend{}
	pend, err := b.Start(ctx, p, []*r1cs.ProvingAssignment{pa}, []groth16.Randomness{rnd})
	if err != nil {
		return nil, size, err
	}
	proofs, err := pend.Finish(ctx)
	return proofs, size, err
}
