package postkind

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/sectordir"
)

const miner = 1000

// sectors are three 2 KiB CC sectors (ids 1, 2, 3), sealed once.
func sectors(t testing.TB) []*sectordir.Sector {
	t.Helper()
	return testkit.CCSectors(t, filecoin.StackedDrg2KiBV1_1, 1, 3)
}

func windowRequest(t testing.TB, p filecoin.RegisteredPoStProof, rnd [32]byte, secs []*sectordir.Sector, k int) *engine.Request {
	t.Helper()
	v := testkit.PoStVanilla(t, p, rnd, secs, k)
	return &engine.Request{Kind: proofkind.WindowPoSt, RegisteredProof: uint64(p), SectorSize: uint64(p.SectorSize()),
		MinerID: miner, Randomness: rnd[:], PartitionIndex: uint32(k), VanillaProofs: v}
}

func winningRequest(t testing.TB, rnd [32]byte, s *sectordir.Sector) *engine.Request {
	t.Helper()
	p := filecoin.StackedDrgWinning2KiBV1
	v := testkit.PoStVanilla(t, p, rnd, []*sectordir.Sector{s}, 0)
	return &engine.Request{Kind: proofkind.WinningPoSt, RegisteredProof: uint64(p), SectorSize: 2048,
		MinerID: miner, Randomness: rnd[:], VanillaProofs: v}
}

// checkPlan synthesises the planned circuit into a test system: it must be
// satisfied, have the expected row count, and expose exactly the public
// inputs the plan carries, which must equal want (computed by the caller
// from public values).
func checkPlan(t *testing.T, plan *engine.Plan, circuit string, rows int, want []fr.Element) {
	t.Helper()
	if plan.CircuitID != circuit || len(plan.Partitions) != 1 {
		t.Fatalf("plan %s with %d partitions, want %s with 1", plan.CircuitID, len(plan.Partitions), circuit)
	}
	part := plan.Partitions[0]
	if len(part.PublicInputs) != len(want) {
		t.Fatalf("%d public inputs, want %d", len(part.PublicInputs), len(want))
	}
	for i := range want {
		if part.PublicInputs[i] != want[i] {
			t.Fatalf("public input %d differs from the verifier's", i)
		}
	}
	ts := r1cs.NewTestSystem()
	cs, err := r1cs.Synthesize(part.Circuit, ts)
	if err != nil {
		t.Fatal(err)
	}
	if !ts.IsSatisfied() {
		t.Fatalf("circuit unsatisfied: %s", ts.WhichIsUnsatisfied())
	}
	if cs.NumConstraints() != rows {
		t.Fatalf("%d rows, want %d", cs.NumConstraints(), rows)
	}
	if len(ts.Input) != len(want)+1 {
		t.Fatalf("circuit has %d inputs with ONE, want %d", len(ts.Input), len(want)+1)
	}
	for i := range want {
		if ts.Input[i+1] != want[i] {
			t.Fatalf("circuit input %d differs from the plan's", i)
		}
	}
}

func TestPlanWindow(t *testing.T) {
	secs := sectors(t)
	rnd := testkit.Randomness(1)
	ctx := context.Background()
	pub := post.PublicSectors(secs[:2])
	for _, tc := range []struct {
		name string
		p    filecoin.RegisteredPoStProof
		secs []*sectordir.Sector
		pub  []post.PublicSector
		k    int
	}{
		{"V1_2 partition 0", filecoin.StackedDrgWindow2KiBV1_2, secs[:2], pub, 0},
		// Partition k ≥ 1 is built from the sectors given, not as the k-th
		// chunk of them (upstream numbers its one vanilla proof 0).
		{"V1_2 partition 3", filecoin.StackedDrgWindow2KiBV1_2, secs[:2], pub, 3},
		// Before V1_2 the partition index numbers the sectors.
		{"V1 partition 1", filecoin.StackedDrgWindow2KiBV1, secs[:2], pub, 1},
		// One sector pads the partition by repeating itself.
		{"padded", filecoin.StackedDrgWindow2KiBV1_2, secs[2:], pub[2:][:0:0], 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.pub
			if len(want) == 0 {
				want = post.PublicSectors(secs[2:])
			}
			req := windowRequest(t, tc.p, rnd, tc.secs, tc.k)
			plan, err := Window().Plan(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			inputs, err := post.PublicInputs(tc.p, rnd, want, tc.k)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan, "wpost-2k", 21_866, inputs)
		})
	}
	// sector_size is optional.
	req := windowRequest(t, filecoin.StackedDrgWindow2KiBV1_2, rnd, secs[:2], 0)
	req.SectorSize = 0
	if _, err := Window().Plan(ctx, req); err != nil {
		t.Fatal(err)
	}
}

func TestPlanWinning(t *testing.T) {
	secs := sectors(t)
	rnd := testkit.Randomness(2)
	p := filecoin.StackedDrgWinning2KiBV1
	plan, err := Winning().Plan(context.Background(), winningRequest(t, rnd, secs[1]))
	if err != nil {
		t.Fatal(err)
	}
	// The verifier's inputs: the one sector repeated for each of the 66
	// unrolled challenges.
	inputs, err := post.PublicInputs(p, rnd, post.WinningPublicSectors(p, post.PublicSectors(secs[1:2])[0]), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) != 132 {
		t.Fatalf("%d inputs", len(inputs))
	}
	checkPlan(t, plan, "winning-2k", 90_750, inputs)
}

// Every bad request is refused before queueing with an error that wraps
// engine.ErrInvalidRequest and names the field.
func TestPlanRejects(t *testing.T) {
	secs := sectors(t)
	rnd := testkit.Randomness(3)
	ctx := context.Background()
	window := filecoin.StackedDrgWindow2KiBV1_2
	good := windowRequest(t, window, rnd, secs[:2], 0)
	wreq := func(mod func(r *engine.Request)) *engine.Request {
		r := *good
		r.VanillaProofs = append([][]byte(nil), good.VanillaProofs...)
		r.Randomness = append([]byte(nil), good.Randomness...)
		mod(&r)
		return &r
	}
	vanilla := func(i int, mod func(v *post.VanillaProof)) []byte {
		v, err := post.DecodeVanillaProof(good.VanillaProofs[i], window)
		if err != nil {
			t.Fatal(err)
		}
		mod(v)
		b, err := v.Encode(window)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var nonCanonical [32]byte
	for i := range nonCanonical {
		nonCanonical[i] = 0xff
	}
	other := testkit.Randomness(4)
	winGood := winningRequest(t, rnd, secs[0])
	winReq := func(mod func(r *engine.Request)) *engine.Request {
		r := *winGood
		mod(&r)
		return &r
	}
	v1Req := windowRequest(t, filecoin.StackedDrgWindow2KiBV1, rnd, secs[:2], 1)

	for _, tc := range []struct {
		name string
		kind *Planner
		req  *engine.Request
		want string // in the message
		is   error  // matched with errors.Is when set
	}{
		{"unknown registered proof", Window(), wreq(func(r *engine.Request) { r.RegisteredProof = 15 }), "registered_proof", filecoin.ErrUnknownPoStProof},
		{"winning proof to the window kind", Window(), wreq(func(r *engine.Request) { r.RegisteredProof = 0 }), "registered_proof 0 is StackedDrgWinning2KiBV1", nil},
		{"window proof to the winning kind", Winning(), winReq(func(r *engine.Request) { r.RegisteredProof = 10 }), "registered_proof 10", nil},
		{"wrong sector size", Window(), wreq(func(r *engine.Request) { r.SectorSize = 8 << 20 }), "sector_size 8388608", nil},
		{"wrong registered proof size", Window(), wreq(func(r *engine.Request) {
			r.RegisteredProof = uint64(filecoin.StackedDrgWindow8MiBV1_2)
			r.SectorSize = 0
		}), "vanilla_proofs[0]", post.ErrDecode},
		{"randomness 31 bytes", Window(), wreq(func(r *engine.Request) { r.Randomness = r.Randomness[:31] }), "randomness is 31 bytes", nil},
		{"randomness 33 bytes", Window(), wreq(func(r *engine.Request) { r.Randomness = append(r.Randomness, 0) }), "randomness is 33 bytes", nil},
		{"no randomness", Winning(), winReq(func(r *engine.Request) { r.Randomness = nil }), "randomness is 0 bytes", nil},
		{"randomness not canonical", Window(), wreq(func(r *engine.Request) { r.Randomness = nonCanonical[:] }), "randomness", post.ErrRandomness},
		{"no vanilla proofs", Window(), wreq(func(r *engine.Request) { r.VanillaProofs = nil }), "vanilla_proofs is empty", nil},
		{"too many sectors", Window(), wreq(func(r *engine.Request) { r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0]) }), "vanilla_proofs has 3 entries", nil},
		{"truncated entry", Window(), wreq(func(r *engine.Request) { r.VanillaProofs[1] = r.VanillaProofs[1][:100] }), "vanilla_proofs[1]", post.ErrTruncated},
		{"duplicate sector", Window(), wreq(func(r *engine.Request) { r.VanillaProofs[1] = r.VanillaProofs[0] }), "vanilla_proofs[1]: sector 1 also at 0", post.ErrDuplicateSector},
		{"sector proof missing", Window(), wreq(func(r *engine.Request) {
			r.VanillaProofs[1] = vanilla(1, func(v *post.VanillaProof) { v.Sectors = nil })
		}), "vanilla_proofs[1] (sector 2): 0 sector proofs", post.ErrSectorCount},
		{"challenge missing", Window(), wreq(func(r *engine.Request) {
			r.VanillaProofs[0] = vanilla(0, func(v *post.VanillaProof) { v.Sectors[0].InclusionProofs = v.Sectors[0].InclusionProofs[:9] })
		}), "sectors[0] (sector 1): 9 inclusion proofs", post.ErrChallengeCount},
		{"other randomness", Window(), wreq(func(r *engine.Request) { r.Randomness = other[:] }), "challenged leaf mismatch", post.ErrChallenge},
		{"V1 proofs of partition 1 as partition 0", Window(), func() *engine.Request { r := *v1Req; r.PartitionIndex = 0; return &r }(), "challenged leaf mismatch", post.ErrChallenge},
		{"comm_r changed", Window(), wreq(func(r *engine.Request) {
			r.VanillaProofs[1] = vanilla(1, func(v *post.VanillaProof) { v.CommR.SetUint64(5) })
		}), "sectors[1] (sector 2)", post.ErrCommR},
		{"leaf changed", Window(), wreq(func(r *engine.Request) {
			r.VanillaProofs[0] = vanilla(0, func(v *post.VanillaProof) {
				ip := *v.Sectors[0].InclusionProofs[4]
				ip.Leaf.SetUint64(9)
				v.Sectors[0].InclusionProofs[4] = &ip
			})
		}), "inclusion_proofs[4]", post.ErrMerklePath},
		{"winning partition 1", Winning(), winReq(func(r *engine.Request) { r.PartitionIndex = 1 }), "partition_index 1", nil},
		{"winning two sectors", Winning(), winReq(func(r *engine.Request) { r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0]) }), "vanilla_proofs has 2 entries", nil},
		{"winning window vanilla", Winning(), winReq(func(r *engine.Request) { r.VanillaProofs = good.VanillaProofs[:1] }), "inclusion_proofs: 10, want 66", post.ErrChallengeCount},
		{"winning other randomness", Winning(), winReq(func(r *engine.Request) { r.Randomness = other[:] }), "challenged leaf mismatch", post.ErrChallenge},
	} {
		_, err := tc.kind.Plan(ctx, tc.req)
		if !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v; want ErrInvalidRequest naming %q (and %v)", tc.name, err, tc.want, tc.is)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

func TestPlanCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Window().Plan(ctx, windowRequest(t, filecoin.StackedDrgWindow2KiBV1_2, testkit.Randomness(1), sectors(t)[:2], 0))
	if !errors.Is(err, context.Canceled) || errors.Is(err, engine.ErrInvalidRequest) {
		t.Fatalf("%v", err)
	}
}
