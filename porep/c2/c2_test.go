package c2

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/testparams"
)

var (
	paramsOnce sync.Once
	params2K   *groth16.Params
	paramsErr  error
)

// testParams2KiB returns 2 KiB test parameters, generated once into the
// shared test-parameter cache.
func testParams2KiB(t *testing.T) *groth16.Params {
	t.Helper()
	paramsOnce.Do(func() {
		start := time.Now()
		f, gen, err := testparams.Ensure(context.Background(), filecoin.StackedDrg2KiBV1_1, testparams.DefaultDir(os.LookupEnv), testparams.Options{})
		if err != nil {
			paramsErr = err
			return
		}
		if gen {
			t.Logf("generated 2 KiB test parameters in %v", time.Since(start))
		}
		params2K, paramsErr = groth16.LoadParamsFile(f.Params, groth16.LoadOptions{})
	})
	if paramsErr != nil {
		t.Fatal(paramsErr)
	}
	return params2K
}

func sealed2KiB(t *testing.T) (*c1.Output, porep.SealPublic) {
	t.Helper()
	p := filecoin.StackedDrg2KiBV1_1
	o, r, err := seal.Seal(context.Background(), seal.DefaultInput(p), seal.DefaultSeed, 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := porep.ConfigFor(p)
	if err != nil {
		t.Fatal(err)
	}
	pub := porep.SealPublic{Config: cfg, CommR: r.CommR(), CommD: r.CommD(), ProverID: filecoin.ProverID(seal.DefaultMinerID),
		Sector: seal.DefaultSector, Ticket: seal.DefaultTicket, Seed: seal.DefaultSeed}
	return o, pub
}

// Seal → C1 → synthesis → proof → verify-seal, at 2 KiB.
func TestEndToEnd2KiB(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 2 KiB parameters (about a minute) and proves a 2^22 domain")
	}
	params := testParams2KiB(t)
	pvk, err := groth16.Prepare(params.VK)
	if err != nil {
		t.Fatal(err)
	}
	o, pub := sealed2KiB(t)
	ctx := context.Background()
	parts, err := Plan(ctx, o, PlanOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	proof, times, err := Prove(ctx, params, pvk, parts, ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("synthesis %v, prove %v, verify %v", times.Synthesis, times.Prove, times.Verify)
	if len(proof) != groth16.ProofSize {
		t.Fatalf("proof is %d bytes", len(proof))
	}
	ok, err := porep.VerifySeal(params.VK, proof, pub)
	if err != nil || !ok {
		t.Fatalf("verify-seal rejected our proof: %v %v", ok, err)
	}
	bad := pub
	bad.Seed[0] ^= 1
	if ok, _ := porep.VerifySeal(params.VK, proof, bad); ok {
		t.Fatal("proof verified for another seed")
	}

	// A tampered C1 is rejected by the self-check with a precise error, and
	// without it by the proof check: never a silent success.
	tampered := *o
	tampered.VanillaProofs = [][]c1.Proof{append([]c1.Proof(nil), o.VanillaProofs[0]...)}
	pr := &tampered.VanillaProofs[0][1]
	col := pr.ReplicaColumnProofs.DRGParents[0].Column
	rows := append([][32]byte(nil), col.Rows...)
	rows[0][0] ^= 1
	pr.ReplicaColumnProofs.DRGParents[0].Column.Rows = rows
	if _, err := Plan(ctx, &tampered, PlanOptions{}); err == nil {
		t.Fatal("self-check accepted a tampered parent label")
	} else {
		t.Logf("self-check: %v", err)
	}
	parts, err = Plan(ctx, &tampered, PlanOptions{SkipSelfCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Prove(ctx, params, pvk, parts, ProveOptions{}); !errors.Is(err, ErrSelfCheck) {
		t.Fatalf("tampered C1 proved: err = %v", err)
	}
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

// cuzk and bellperson give byte-identical proofs for the same circuit,
// parameters, r and s. This also checks that bellperson reads the .params
// files cuzk writes.
func TestProofMatchesBellperson(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a 2 KiB sector")
	}
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
	params := testParams2KiB(t)
	f, _ := testparams.PathsFor(filecoin.StackedDrg2KiBV1_1, testparams.DefaultDir(os.LookupEnv))
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
	ctx := context.Background()
	parts, err := Plan(ctx, o, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pvk, _ := groth16.Prepare(params.VK)
	proof, _, err := Prove(ctx, params, pvk, parts, ProveOptions{Randomness: []groth16.Randomness{rnd}})
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(proof); got != g.ProofHex {
		t.Fatalf("proof differs from bellperson's:\n cuzk       %s\n bellperson %s", got, g.ProofHex)
	}
}

// A C1 that is internally consistent but whose challenges belong to another
// seed satisfies the circuit; with the native check skipped, the proof must
// still be refused, because it is checked against inputs derived from the
// C1's public values.
func TestForeignChallengesRejected(t *testing.T) {
	if testing.Short() {
		t.Skip("proves a 2 KiB sector")
	}
	params := testParams2KiB(t)
	pvk, _ := groth16.Prepare(params.VK)
	p := filecoin.StackedDrg2KiBV1_1
	var otherSeed [32]byte
	otherSeed[0] = 9
	o, _, err := seal.Seal(context.Background(), seal.DefaultInput(p), otherSeed, 2)
	if err != nil {
		t.Fatal(err)
	}
	o.Seed = seal.DefaultSeed // claims another seed than its challenges came from
	ctx := context.Background()
	if _, err := Plan(ctx, o, PlanOptions{}); err == nil {
		t.Fatal("self-check accepted challenges of another seed")
	}
	parts, err := Plan(ctx, o, PlanOptions{SkipSelfCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Prove(ctx, params, pvk, parts, ProveOptions{}); !errors.Is(err, ErrSelfCheck) {
		t.Fatalf("proof for foreign challenges: err = %v", err)
	}
}

func TestPlanChecksReplicaID(t *testing.T) {
	o, pub := sealed2KiB(t)
	ctx := context.Background()
	if _, err := Plan(ctx, o, PlanOptions{Sector: &SectorID{ProverID: pub.ProverID, Number: pub.Sector}}); err != nil {
		t.Fatalf("honest sector: %v", err)
	}
	_, err := Plan(ctx, o, PlanOptions{Sector: &SectorID{ProverID: pub.ProverID, Number: pub.Sector + 1}})
	if !errors.Is(err, ErrReplicaID) {
		t.Fatalf("wrong sector number: %v", err)
	}
}
