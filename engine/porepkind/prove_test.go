package porepkind

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/srs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// These tests prove through the engine, the one proving path of the daemon
// and the command-line tools.

// newEngine is an engine over the 2 KiB test parameters serving kind.
func newEngine(t *testing.T, kind *Planner, rnd prover.RandomnessSource) *engine.Engine {
	t.Helper()
	files := testkit.FilecoinParams(t, filecoin.CircuitPoRep2K)[0]
	return testkit.NewEngine(t, testkit.EngineOptions{Kinds: []engine.Kind{engine.Builtin(proofkind.PoRep, kind)},
		Locator: srs.FilecoinLocator(filepath.Dir(files.Params)), Budget: 8 << 30, Randomness: rnd}).Engine
}

func porepRequest(t *testing.T, o *c1.Output, sector, miner uint64) *engine.Request {
	return &engine.Request{Kind: proofkind.PoRep, RegisteredProof: uint64(o.RegisteredProof),
		SectorNumber: sector, MinerID: miner, VanillaProof: wrapped(t, o, sector)}
}

// Seal → C1 → engine → proof → verify-seal, at 2 KiB.
func TestEndToEnd2KiB(t *testing.T) {
	testenv.E2E(t, "generates 2 KiB parameters (about a minute) and proves a 2^22 domain")
	p := filecoin.StackedDrg2KiBV1_1
	o, pub := testkit.SealedPublic(t, p)
	ctx := context.Background()
	e := newEngine(t, &Planner{}, nil)
	res, err := e.Prove(ctx, porepRequest(t, o, pub.Sector, seal.DefaultMinerID))
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("prove: %v %v %v", err, res.State, res.Err)
	}
	t.Logf("synthesis %v, prove %v, total %v", res.Timings.Synthesis, res.Timings.Prove, res.Timings.Total)
	if len(res.Proof) != groth16.ProofSize {
		t.Fatalf("proof is %d bytes", len(res.Proof))
	}
	vk := readVK(t, p)
	if ok, err := porep.VerifySeal(vk, res.Proof, pub); err != nil || !ok {
		t.Fatalf("verify-seal rejected our proof: %v %v", ok, err)
	}
	bad := pub
	bad.Seed[0] ^= 1
	if ok, _ := porep.VerifySeal(vk, res.Proof, bad); ok {
		t.Fatal("proof verified for another seed")
	}

	// A tampered C1 is rejected by the vanilla check with a precise error,
	// and without it by the self-check: never a silent success.
	tampered := *o
	tampered.VanillaProofs = [][]c1.Proof{append([]c1.Proof(nil), o.VanillaProofs[0]...)}
	pr := &tampered.VanillaProofs[0][1]
	rows := append([][32]byte(nil), pr.ReplicaColumnProofs.DRGParents[0].Column.Rows...)
	rows[0][0] ^= 1
	pr.ReplicaColumnProofs.DRGParents[0].Column.Rows = rows
	if _, err := e.Prove(ctx, porepRequest(t, &tampered, pub.Sector, 0)); !errors.Is(err, porep.ErrVanillaInvalid) || !errors.Is(err, engine.ErrInvalidRequest) {
		t.Fatalf("tampered parent label: %v", err)
	} else {
		t.Logf("vanilla check: %v", err)
	}
	unchecked := newEngine(t, &Planner{SkipVanillaCheck: true}, nil)
	res, err = unchecked.Prove(ctx, porepRequest(t, &tampered, pub.Sector, 0))
	if err != nil || res.State != engine.StateFailed || !errors.Is(res.Err, engine.ErrSelfCheck) || res.Proof != nil {
		t.Fatalf("tampered C1 without the vanilla check: %v %v %v", err, res.State, res.Err)
	}
}

func readVK(t *testing.T, p filecoin.RegisteredSealProof) *groth16.VerifyingKey {
	t.Helper()
	f := testkit.FilecoinParams(t, p.CircuitID())[0]
	vk, err := groth16.ReadVerifyingKeyFile(f.VK)
	if err != nil {
		t.Fatal(err)
	}
	return vk
}

// bellpersonProof is testdata/rustref/proof/2KiB.json: the proof bellperson's
// create_proof_batch made (tools/rustref prove) for the Rust-sealed 2 KiB C1
// with our deterministic test parameters and fixed r, s.
type bellpersonProof struct {
	ParamsSeed   string `json:"params_seed"`
	ParamsSHA256 string `json:"params_sha256"`
	C1           string `json:"c1"`
	R            string `json:"r"`
	S            string `json:"s"`
	ProofHex     string `json:"proof_hex"`
}

// The engine and bellperson give byte-identical proofs for the same
// circuit, parameters, r and s. This also checks that bellperson reads the
// .params files cuzk writes.
func TestProofMatchesBellperson(t *testing.T) {
	testenv.E2E(t, "proves a 2 KiB sector")
	raw, err := os.ReadFile(filepath.Join(golden.Dir(), "proof", "2KiB.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g bellpersonProof
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if g.ParamsSeed != testparams.DefaultSeed {
		t.Fatalf("golden was made with parameter seed %q, testparams uses %q", g.ParamsSeed, testparams.DefaultSeed)
	}
	f := testkit.FilecoinParams(t, filecoin.CircuitPoRep2K)[0]
	pf, err := os.Open(f.Params)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	io.Copy(h, pf)
	pf.Close()
	if got := hex.EncodeToString(h.Sum(nil)); got != g.ParamsSHA256 {
		t.Fatalf("test parameters hash to %s, bellperson proved with %s: setup is no longer deterministic or changed", got, g.ParamsSHA256)
	}
	c1raw, err := os.ReadFile(filepath.Join(golden.Dir(), g.C1))
	if err != nil {
		t.Fatal(err)
	}
	o, err := c1.Parse(c1raw)
	if err != nil {
		t.Fatal(err)
	}
	var rnd groth16.Randomness
	for _, x := range []struct {
		h string
		e *fr.Element
	}{{g.R, &rnd.R}, {g.S, &rnd.S}} {
		b, err := hex.DecodeString(x.h)
		if err != nil || len(b) != 32 {
			t.Fatalf("bad hex %q", x.h)
		}
		if *x.e, err = fr.LittleEndian.Element((*[32]byte)(b)); err != nil {
			t.Fatal(err)
		}
	}
	e := newEngine(t, &Planner{}, prover.Fixed(rnd))
	res, err := e.Prove(context.Background(), porepRequest(t, o, 0, 0))
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("prove: %v %v %v", err, res.State, res.Err)
	}
	if got := hex.EncodeToString(res.Proof); got != g.ProofHex {
		t.Fatalf("proof differs from bellperson's:\n cuzk       %s\n bellperson %s", got, g.ProofHex)
	}
}

// A C1 that is internally consistent but whose challenges belong to another
// seed satisfies the circuit; with the vanilla check skipped, the proof must
// still be refused, because it is checked against inputs derived from the
// C1's public values.
func TestForeignChallengesRejected(t *testing.T) {
	testenv.E2E(t, "proves a 2 KiB sector")
	p := filecoin.StackedDrg2KiBV1_1
	var otherSeed [32]byte
	otherSeed[0] = 9
	o, _, err := seal.Seal(context.Background(), seal.DefaultInput(p), otherSeed, 2)
	if err != nil {
		t.Fatal(err)
	}
	o.Seed = seal.DefaultSeed // claims another seed than its challenges came from
	ctx := context.Background()
	if _, err := newEngine(t, &Planner{}, nil).Prove(ctx, porepRequest(t, o, 0, 0)); !errors.Is(err, porep.ErrVanillaInvalid) {
		t.Fatalf("vanilla check of challenges of another seed: %v", err)
	}
	res, err := newEngine(t, &Planner{SkipVanillaCheck: true}, nil).Prove(ctx, porepRequest(t, o, 0, 0))
	if err != nil || res.State != engine.StateFailed || !errors.Is(res.Err, engine.ErrSelfCheck) {
		t.Fatalf("proof for foreign challenges: %v %v %v", err, res.State, res.Err)
	}
}
