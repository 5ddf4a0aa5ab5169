package snapkind

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/bincode"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/snapgen"
)

// update is a 2 KiB CC sector (id 7) updated with new data.
func update(t testing.TB) *snap.Update {
	t.Helper()
	return testkit.SnapUpdate(t, filecoin.StackedDrg2KiBUpdateV1, testkit.CCSector(t, filecoin.StackedDrg2KiBV1_1, 7), 1)
}

// proofOf is the update's registered proof.
func proofOf(u *snap.Update) filecoin.RegisteredUpdateProof { return u.Sector.Update.Proof }

// partitionInputs are the verifier's public inputs of partition k.
func partitionInputs(u *snap.Update, k int) ([]fr.Element, error) {
	pub := u.Public()
	return pub.PartitionInputs(k)
}

func request(u *snap.Update) *engine.Request {
	r := UpdateRequest(u)
	r.VanillaProofs = append([][]byte(nil), u.VanillaProofs...)
	r.SectorNumber, r.MinerID = u.Sector.ID, testkit.Miner
	return r
}

// A good request plans one satisfied EmptySectorUpdate circuit per
// partition whose inputs are the verifier's, computed here from the
// commitments alone.
func TestPlan(t *testing.T) {
	u := update(t)
	req := request(u)
	req.SectorSize = 0 // Curio's proof-market path sends none
	plan, err := (&Planner{}).Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.CircuitID != "snap-2k" || len(plan.Partitions) != 1 {
		t.Fatalf("plan %s with %d partitions", plan.CircuitID, len(plan.Partitions))
	}
	want, err := partitionInputs(u, 0)
	if err != nil {
		t.Fatal(err)
	}
	part := plan.Partitions[0]
	if len(part.PublicInputs) != 4 {
		t.Fatalf("%d inputs", len(part.PublicInputs))
	}
	for i := range want {
		if part.PublicInputs[i] != want[i] {
			t.Fatalf("input %d differs from the verifier's", i)
		}
	}
	if testing.Short() {
		return
	}
	ts := r1cs.NewTestSystem()
	cs, err := r1cs.Synthesize(part.Circuit, ts)
	if err != nil {
		t.Fatal(err)
	}
	if !ts.IsSatisfied() || cs.NumConstraints() != 1_705_039 {
		t.Fatalf("satisfied %v (%s), %d rows", ts.IsSatisfied(), ts.WhichIsUnsatisfied(), cs.NumConstraints())
	}
	for i := range want {
		if ts.Input[i+1] != want[i] {
			t.Fatalf("circuit input %d differs from the plan's", i)
		}
	}
}

func TestPlanRejects(t *testing.T) {
	u := update(t)
	ctx := context.Background()
	mod := func(f func(r *engine.Request)) *engine.Request {
		r := request(u)
		f(r)
		return r
	}
	flip := func(b []byte, i int) []byte {
		c := append([]byte(nil), b...)
		c[i] ^= 1
		return c
	}
	var high [32]byte
	for i := range high {
		high[i] = 0xff
	}
	other := request(u)
	for _, tc := range []struct {
		name string
		req  *engine.Request
		want string
		is   error
	}{
		{"unknown registered proof", mod(func(r *engine.Request) { r.RegisteredProof = 5 }), "registered_proof", filecoin.ErrUnknownUpdateProof},
		{"wrong sector size", mod(func(r *engine.Request) { r.SectorSize = 4096 }), "sector_size 4096", nil},
		{"8 MiB registered proof", mod(func(r *engine.Request) { r.RegisteredProof = 1; r.SectorSize = 0 }), "vanilla_proofs has 1 entries, StackedDrg8MiBV1 takes one per partition (4)", nil},
		{"partition index set", mod(func(r *engine.Request) { r.PartitionIndex = 1 }), "partition_index 1 is set", nil},
		{"randomness set", mod(func(r *engine.Request) { r.Randomness = make([]byte, 32) }), "randomness is set (32 bytes)", nil},
		{"comm_r_old short", mod(func(r *engine.Request) { r.CommROld = r.CommROld[:31] }), "comm_r_old is 31 bytes", nil},
		{"comm_d_new missing", mod(func(r *engine.Request) { r.CommDNew = nil }), "comm_d_new is 0 bytes", nil},
		{"comm_r_new long", mod(func(r *engine.Request) { r.CommRNew = append(r.CommRNew, 0) }), "comm_r_new is 33 bytes", nil},
		{"comm_r_new not canonical", mod(func(r *engine.Request) { r.CommRNew = high[:] }), "comm_r_new ffff", nil},
		{"no vanilla proofs", mod(func(r *engine.Request) { r.VanillaProofs = nil }), "vanilla_proofs has 0 entries", nil},
		{"two partitions", mod(func(r *engine.Request) { r.VanillaProofs = append(r.VanillaProofs, r.VanillaProofs[0]) }), "vanilla_proofs has 2 entries", nil},
		{"truncated", mod(func(r *engine.Request) { r.VanillaProofs[0] = r.VanillaProofs[0][:500] }), "vanilla_proofs[0]", bincode.ErrTruncated},
		{"comm_r_new changed", mod(func(r *engine.Request) { r.CommRNew = flip(r.CommRNew, 0) }), "comm_r_new does not match the vanilla proofs", ErrCommRNew},
		{"comm_r_old changed", mod(func(r *engine.Request) { r.CommROld = flip(r.CommROld, 3) }), "comm_r_old does not match the vanilla proofs", ErrCommROld},
		{"comm_d_new changed", mod(func(r *engine.Request) { r.CommDNew = flip(r.CommDNew, 0) }), "comm_d_new does not match", snap.ErrCommD},
		{"comm_r_new and comm_r_old swapped", mod(func(r *engine.Request) { r.CommROld, r.CommRNew = other.CommRNew, other.CommROld }), "vanilla_proofs[0] (partition 0)", snap.ErrInvalidProof},
		{"label changed", mod(func(r *engine.Request) {
			pp, err := snap.DecodePartitionProof(r.VanillaProofs[0], proofOf(u))
			if err != nil {
				t.Fatal(err)
			}
			rn := *pp.ChallengeProofs[2].RNew
			rn.Leaf.SetUint64(3)
			pp.ChallengeProofs[2].RNew = &rn
			if r.VanillaProofs[0], err = pp.Encode(proofOf(u)); err != nil {
				t.Fatal(err)
			}
		}), "challenge_proofs[2].proof_r_new", snap.ErrMerklePath},
	} {
		_, err := (&Planner{}).Plan(ctx, tc.req)
		if !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v; want ErrInvalidRequest naming %q (and %v)", tc.name, err, tc.want, tc.is)
			continue
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

// An 8 MiB update has 4 partitions: entry k is verified and planned as
// partition k (k enters the challenges and the first public input), and
// entries out of order are refused naming the first misplaced one.
func TestPlanPartitions8MiB(t *testing.T) {
	testenv.Short(t, "builds 8 MiB trees")
	u := testkit.SnapUpdate(t, filecoin.StackedDrg8MiBUpdateV1, testkit.RandomSector(t, filecoin.StackedDrg8MiBV1_1, 9, 1), 2)
	ctx := context.Background()
	plan, err := (&Planner{Workers: 2}).Plan(ctx, request(u))
	if err != nil {
		t.Fatal(err)
	}
	if plan.CircuitID != "snap-8m" || len(plan.Partitions) != 4 {
		t.Fatalf("plan %s with %d partitions", plan.CircuitID, len(plan.Partitions))
	}
	for k, part := range plan.Partitions {
		want, err := partitionInputs(u, k)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if part.PublicInputs[i] != want[i] {
				t.Fatalf("partition %d input %d differs from the verifier's", k, i)
			}
		}
	}
	req := request(u)
	req.VanillaProofs[1], req.VanillaProofs[2] = req.VanillaProofs[2], req.VanillaProofs[1]
	if _, err := (&Planner{Workers: 2}).Plan(ctx, req); !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), "vanilla_proofs[1] (partition 1)") {
		t.Fatalf("partitions out of order: %v", err)
	} else {
		t.Log(err)
	}
}

// Planner.Partition plans one partition of a multi-partition update (an
// 8 MiB one made by snap gen): its circuit and the public inputs of the
// whole plan's partition k; a partition the update lacks is an invalid
// request naming the count.
func TestPlanPartition(t *testing.T) {
	p := filecoin.StackedDrg8MiBUpdateV1
	g, err := snapgen.Generate(context.Background(), snapgen.DefaultParams(p), 2)
	if err != nil {
		t.Fatal(err)
	}
	req := NewRequest(p, fr32.FromElement(&g.Public.CommROld), fr32.FromElement(&g.Public.CommRNew), g.Public.CommDNew, g.VanillaProofs)
	whole, err := (&Planner{}).Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Partitions) != 4 {
		t.Fatalf("%d partitions", len(whole.Partitions))
	}
	for _, k := range []int{0, 2, 3} {
		one, err := (&Planner{Partition: &k}).Plan(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if len(one.Partitions) != 1 || one.CircuitID != whole.CircuitID {
			t.Fatalf("partition %d: %d partitions, circuit %s", k, len(one.Partitions), one.CircuitID)
		}
		if !slices.Equal(one.Partitions[0].PublicInputs, whole.Partitions[k].PublicInputs) {
			t.Fatalf("partition %d: public inputs differ from the whole plan's", k)
		}
	}
	four := 4
	_, err = (&Planner{Partition: &four}).Plan(context.Background(), req)
	if !errors.Is(err, ErrPartition) || !errors.Is(err, engine.ErrInvalidRequest) || !strings.Contains(err.Error(), "4 partition(s)") {
		t.Fatalf("partition 4: %v", err)
	}
}
