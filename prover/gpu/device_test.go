//go:build cuda

package gpu

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/porep/c2"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/testparams"
)

// The tests in this file need a CUDA device; scripts/gpu-check.sh runs them
// on a GPU machine. CUZK_GPU_REPORT names a file they append JSON lines to.

func needDevice(t *testing.T) []Device {
	t.Helper()
	devs, err := Devices(true)
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	return devs
}

func report(t *testing.T, v map[string]any) {
	t.Helper()
	b, _ := json.Marshal(v)
	t.Logf("report: %s", b)
	path := os.Getenv("CUZK_GPU_REPORT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "%s\n", b)
}

func fixedRandomness(n int) []groth16.Randomness {
	out := make([]groth16.Randomness, n)
	for i := range out {
		out[i].R.SetUint64(uint64(777 + i))
		out[i].S.SetUint64(uint64(999 + 3*i))
	}
	return out
}

// proveBoth proves the circuits on the GPU and on the CPU backend at the
// same (r, s) and requires byte-identical proofs. synth returns fresh
// assignments (the CPU backend consumes its a, b, c).
func proveBoth(t *testing.T, b *Backend, p *groth16.Params, synth func() []*r1cs.ProvingAssignment) ([]groth16.Proof, time.Duration) {
	t.Helper()
	ctx := context.Background()
	parts := synth()
	rnd := fixedRandomness(len(parts))
	t0 := time.Now()
	pend, err := b.Start(ctx, p, parts, rnd)
	if err != nil {
		t.Fatal(err)
	}
	gpuProofs, err := pend.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gpuTime := time.Since(t0)
	cpuProofs, err := groth16.Prove(ctx, p, synth(), rnd, groth16.ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range gpuProofs {
		if g, c := gpuProofs[i].Bytes(), cpuProofs[i].Bytes(); g != c {
			t.Fatalf("circuit %d: GPU proof %x, CPU proof %x", i, g, c)
		}
	}
	return gpuProofs, gpuTime
}

func TestDeviceProveMatchesCPU(t *testing.T) {
	needDevice(t)
	c := mixed(1<<12-10, 7)
	p, path := setup(t, c, "device")
	ps := &Paths{}
	if err := ps.Register(p, path); err != nil {
		t.Fatal(err)
	}
	b, err := New(Options{Paths: ps})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const n = 3
	proofs, d := proveBoth(t, b, p, func() []*r1cs.ProvingAssignment {
		var out []*r1cs.ProvingAssignment
		for range n {
			out = append(out, testcircuits.Assignment(t, c))
		}
		return out
	})
	pvk, err := groth16.Prepare(p.VK)
	if err != nil {
		t.Fatal(err)
	}
	inputs := append([]fr.Element(nil), testcircuits.Assignment(t, c).Input[1:]...)
	for i := range proofs {
		if ok, err := groth16.Verify(pvk, &proofs[i], inputs); err != nil || !ok {
			t.Fatalf("proof %d: ok=%v err=%v", i, ok, err)
		}
	}
	report(t, map[string]any{"test": "mixed-4k", "circuits": n, "gpu_ms": d.Milliseconds(), "identical_to_cpu": true, "verified": true})
}

// TestDevicePoRep2KiB proves a freshly sealed 2 KiB PoRep (every partition)
// on the GPU, compares each proof with the CPU backend's at the same (r, s)
// and verifies it against the public inputs derived from public values.
func TestDevicePoRep2KiB(t *testing.T) {
	needDevice(t)
	ctx := context.Background()
	proof := filecoin.StackedDrg2KiBV1_1
	t0 := time.Now()
	o, _, err := seal.Seal(ctx, seal.DefaultInput(proof), seal.DefaultSeed, 0)
	if err != nil {
		t.Fatal(err)
	}
	tSeal := time.Since(t0)
	parts, err := c2.Plan(ctx, o, c2.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var circuits []deviceCircuit
	for _, part := range parts {
		circuits = append(circuits, deviceCircuit{part.Circuit, part.PublicInputs})
	}
	run := proveOnDevice(t, func() (testparams.Files, error) {
		files, _, err := testparams.Ensure(ctx, proof, testparams.DefaultDir(os.LookupEnv), testparams.Options{})
		return files, err
	}, circuits)
	report(t, map[string]any{
		"test": "porep-2kib", "partitions": len(parts), "domain": run.domain,
		"gpu_cold_ms": run.cold.Milliseconds(), "gpu_warm_ms": run.warm.Milliseconds(),
		"seal_ms": tSeal.Milliseconds(), "params_ms": run.params.Milliseconds(),
		"synthesis_ms": run.synth.Milliseconds(), "verify_ms": run.verify.Milliseconds(),
		"identical_to_cpu": true, "verified": true,
	})
}

// deviceCircuit is one partition to prove and the public inputs its proof
// must verify against.
type deviceCircuit struct {
	circuit r1cs.Circuit
	inputs  []fr.Element
}

// deviceRun is what proveOnDevice measured.
type deviceRun struct {
	domain                            int
	params, synth, cold, warm, verify time.Duration
}

// proveOnDevice loads the parameters files() names, proves circuits on the
// GPU (a cold call that loads supraseal's SRS, then a warm one that must
// give the same bytes), requires the CPU backend's bytes at the same (r, s)
// and verifies every proof against its inputs.
func proveOnDevice(t *testing.T, files func() (testparams.Files, error), circuits []deviceCircuit) deviceRun {
	t.Helper()
	ctx := context.Background()
	var run deviceRun
	t0 := time.Now()
	f, err := files()
	if err != nil {
		t.Fatal(err)
	}
	p, err := groth16.LoadParamsFile(f.Params, groth16.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run.params = time.Since(t0)
	pvk, err := groth16.Prepare(p.VK)
	if err != nil {
		t.Fatal(err)
	}
	ps := &Paths{}
	if err := ps.Register(p, f.Params); err != nil {
		t.Fatal(err)
	}
	b, err := New(Options{Paths: ps})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	run.domain = len(p.H) + 1
	hint := r1cs.Size{Constraints: run.domain, Inputs: len(p.VK.IC), Aux: len(p.L)}
	synth := func() []*r1cs.ProvingAssignment {
		t0 := time.Now()
		var out []*r1cs.ProvingAssignment
		for _, c := range circuits {
			pa := r1cs.NewProvingAssignment(hint)
			cs, err := r1cs.Synthesize(c.circuit, pa)
			if err != nil {
				t.Fatal(err)
			}
			cs.AppendInputRows()
			out = append(out, pa)
		}
		run.synth = time.Since(t0)
		return out
	}
	proofs, cold := proveBoth(t, b, p, synth)
	run.cold = cold
	again := synth()
	t0 = time.Now()
	pend, err := b.Start(ctx, p, again, fixedRandomness(len(again)))
	if err != nil {
		t.Fatal(err)
	}
	warmProofs, err := pend.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run.warm = time.Since(t0)
	for k := range proofs {
		if warmProofs[k].Bytes() != proofs[k].Bytes() {
			t.Fatalf("partition %d: second GPU proof differs from the first", k)
		}
	}
	t0 = time.Now()
	for k, c := range circuits {
		ok, err := groth16.Verify(pvk, &proofs[k], c.inputs)
		if err != nil || !ok {
			t.Fatalf("partition %d: ok=%v err=%v", k, ok, err)
		}
	}
	run.verify = time.Since(t0)
	return run
}

// benchLogs are the sizes (log2) of TestDeviceMSMNTT: CUZK_GPU_BENCH_LOGS,
// comma-separated; the test runs only when it is set.
func benchLogs(t *testing.T) []int {
	s := os.Getenv("CUZK_GPU_BENCH_LOGS")
	if s == "" {
		t.Skip("CUZK_GPU_BENCH_LOGS not set (e.g. 24,25,26)")
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 || n > 28 {
			t.Fatalf("CUZK_GPU_BENCH_LOGS: bad size %q", f)
		}
		out = append(out, n)
	}
	return out
}

// randomScalars fills n elements below r quickly (the timing does not
// depend on where the scalars came from; bellperson's are uniform too).
func randomScalars(n int, seed uint64) []fr.Element {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]fr.Element, n)
	for i := range out {
		out[i] = fr.Element{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() & 0x0fffffffffffffff}
	}
	return out
}

func TestDeviceMSMNTT(t *testing.T) {
	logs := benchLogs(t)
	needDevice(t)
	// Distinct bases, tiled: the MSM's cost does not depend on repeats.
	const distinct = 1 << 16
	_, _, g1, _ := bls.Generators()
	ks := randomScalars(distinct, 1)
	base := bls.BatchScalarMultiplicationG1(&g1, ks)

	// Correctness at 2^16 against gnark-crypto.
	sc := randomScalars(distinct, 2)
	got, _, err := BenchMSM(base, sc)
	if err != nil {
		t.Fatal(err)
	}
	var want bls.G1Affine
	if _, err := want.MultiExp(base, sc, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(&want) {
		t.Fatalf("GPU MSM at 2^16 differs from gnark-crypto")
	}
	for _, lg := range logs {
		n := 1 << lg
		pts := make([]bls.G1Affine, n)
		for i := 0; i < n; i += distinct {
			copy(pts[i:], base)
		}
		scalars := randomScalars(n, uint64(lg))
		_, mt, err := BenchMSM(pts, scalars)
		if err != nil {
			t.Fatalf("MSM 2^%d: %v", lg, err)
		}
		pts = nil
		// NTT forward then inverse must give the input back.
		v := scalars
		orig := append([]fr.Element(nil), v...)
		fwd, err := BenchNTT(v, false)
		if err != nil {
			t.Fatalf("NTT 2^%d: %v", lg, err)
		}
		inv, err := BenchNTT(v, true)
		if err != nil {
			t.Fatalf("iNTT 2^%d: %v", lg, err)
		}
		// (BenchNTT's device-resident run works on a copy; v goes through
		// one forward and one inverse transform.)
		for i := range v {
			if v[i] != orig[i] {
				t.Fatalf("NTT 2^%d: round trip differs at %d", lg, i)
			}
		}
		report(t, map[string]any{
			"test": "msm-ntt", "log2": lg,
			"msm_ms": mt.Host, "msm_resident_points_ms": mt.Resident,
			"ntt_ms": fwd.Host, "ntt_device_ms": fwd.Device, "intt_ms": inv.Host, "intt_device_ms": inv.Device,
		})
	}
}

// TestDeviceKinds2KiB: the other three kinds Curio sends — a 2 KiB
// WindowPoSt partition, a WinningPoSt and a SnapDeals update — planned by
// the engine's kinds from vanilla proofs of a CC sector sealed here (as the
// daemon plans Curio's requests), proved on the GPU, byte-identical to the
// CPU backend at fixed r, s, and verified against the public inputs the
// kinds derive. Their INSECURE test parameters come from CUZK_TEST_PARAMS
// (gpu-check.sh generates them while the kernel checks run) or are made here.
func TestDeviceKinds2KiB(t *testing.T) {
	needDevice(t)
	ctx := context.Background()
	const miner = 1000
	sector := testkit.CCSector(t, filecoin.StackedDrg2KiBV1_1, 7)
	rnd := testkit.Randomness(1)
	window := testkit.PoStVanilla(t, filecoin.StackedDrgWindow2KiBV1_2, rnd, []*sectordir.Sector{sector}, 0)
	winning := testkit.PoStVanilla(t, filecoin.StackedDrgWinning2KiBV1, rnd, []*sectordir.Sector{sector}, 0)
	upd := testkit.SnapUpdate(t, filecoin.StackedDrg2KiBUpdateV1, sector, 1)
	snapReq := snapkind.UpdateRequest(upd)
	snapReq.SectorNumber, snapReq.MinerID = 7, miner
	cases := []struct {
		name string
		kind engine.Planner
		req  *engine.Request
	}{
		{"window-post", postkind.Window(), &engine.Request{Kind: proofkind.WindowPoSt, RegisteredProof: uint64(filecoin.StackedDrgWindow2KiBV1_2),
			MinerID: miner, Randomness: rnd[:], VanillaProofs: window}},
		{"winning-post", postkind.Winning(), &engine.Request{Kind: proofkind.WinningPoSt, RegisteredProof: uint64(filecoin.StackedDrgWinning2KiBV1),
			MinerID: miner, Randomness: rnd[:], VanillaProofs: winning}},
		{"snap", &snapkind.Planner{}, snapReq},
	}
	dir := testparams.DefaultDir(os.LookupEnv)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plan, err := c.kind.Plan(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			var circuits []deviceCircuit
			for _, part := range plan.Partitions {
				circuits = append(circuits, deviceCircuit{part.Circuit, part.PublicInputs})
			}
			run := proveOnDevice(t, func() (testparams.Files, error) {
				files, _, err := testparams.EnsureCircuit(ctx, filecoin.CircuitID(plan.CircuitID), dir, testparams.Options{})
				return files, err
			}, circuits)
			report(t, map[string]any{
				"test": c.name + "-2kib", "circuit": plan.CircuitID, "partitions": len(plan.Partitions), "domain": run.domain,
				"gpu_cold_ms": run.cold.Milliseconds(), "gpu_warm_ms": run.warm.Milliseconds(),
				"params_ms": run.params.Milliseconds(), "synthesis_ms": run.synth.Milliseconds(),
				"verify_ms":        run.verify.Milliseconds(),
				"identical_to_cpu": true, "verified": true,
			})
		})
	}
}
