package server_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestPoRep2KiBOverGRPC seals a 2 KiB sector, sends its C1 through Prove
// exactly as Curio does (wrapper JSON, registered proof 5, NORMAL
// priority) and checks the proof with verify-seal; a second request with the
// same content under another id proves with the parameters resident.
func TestPoRep2KiBOverGRPC(t *testing.T) {
	testenv.E2E(t, "2 KiB test parameters (about 1 GiB, generated once into the shared cache) and two 2^22-row proofs")
	p := filecoin.StackedDrg2KiBV1_1
	files := testkit.FilecoinParams(t, p.CircuitID())[0]
	o, pub := testkit.SealedPublic(t, p)
	wrapper, err := c1.Wrap(o, uint64(seal.DefaultSector)).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	// Subgroup checks of 1 GiB of points would dominate the test; the
	// self-check stays on.
	te := testkit.NewEngine(t, testkit.EngineOptions{Kinds: []engine.Kind{engine.Builtin(proofkind.PoRep, &porepkind.Planner{})},
		Locator: srs.FilecoinLocator(filepath.Dir(files.Params)), Budget: 12 << 30, TrustParams: true, Log: log})
	eng := te.Engine
	srv := server.New(eng, server.WithLogger(log))
	c := dial(t, serve(t, srv, "unix"))

	vk, err := groth16.ReadVerifyingKeyFile(files.VK)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"porep-1000-1", "porep-1000-1-retry-elsewhere"} {
		req := &cuzkv1.SubmitProofRequest{
			RequestId: id, ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, Priority: cuzkv1.Priority_NORMAL,
			RegisteredProof: uint64(p), SectorSize: 2048, SectorNumber: uint64(seal.DefaultSector), MinerId: seal.DefaultMinerID,
			VanillaProof: wrapper,
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		res, err := c.Prove(ctx, req)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: queue %d ms, srs_load %d ms, synthesis %d ms, prove %d ms, total %d ms", id,
			res.GetQueueWaitMs(), res.GetSrsLoadMs(), res.GetSynthesisMs(), res.GetGpuComputeMs(), res.GetTotalMs())
		if ok, err := porep.VerifySeal(vk, res.GetProof(), pub); err != nil || !ok {
			t.Fatalf("verify-seal rejected the daemon's proof: %v %v", ok, err)
		}
		if res.GetQueueWaitMs() == 0 || res.GetSynthesisMs() == 0 || res.GetGpuComputeMs() == 0 || res.GetTotalMs() == 0 {
			t.Fatalf("timing fields not all set: %v", res)
		}
		if i == 0 && res.GetSrsLoadMs() == 0 {
			t.Fatal("first proof reports no parameter load")
		}
		if i == 1 && res.GetSrsLoadMs() != 0 {
			t.Fatalf("second proof srs_load_ms = %d, want 0", res.GetSrsLoadMs())
		}
	}
}
