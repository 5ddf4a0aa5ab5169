package c2

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
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
