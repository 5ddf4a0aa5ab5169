package porepkind

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
)

func sealed2KiB(t *testing.T) *c1.Output {
	t.Helper()
	o, _, err := seal.Seal(context.Background(), seal.DefaultInput(filecoin.StackedDrg2KiBV1_1), seal.DefaultSeed, 2)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func wrapped(t *testing.T, o *c1.Output, sector uint64) []byte {
	t.Helper()
	b, err := c1.Wrap(o, sector).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPlan(t *testing.T) {
	o := sealed2KiB(t)
	good := wrapped(t, o, 7)
	k := &Planner{}
	req := func(mod func(r *engine.Request)) *engine.Request {
		r := &engine.Request{Kind: proofkind.PoRep, RegisteredProof: uint64(filecoin.StackedDrg2KiBV1_1),
			SectorSize: 2048, SectorNumber: 7, VanillaProof: good}
		if mod != nil {
			mod(r)
		}
		return r
	}
	plan, err := k.Plan(context.Background(), req(nil))
	if err != nil {
		t.Fatal(err)
	}
	if plan.CircuitID != "porep-2k" || len(plan.Partitions) != len(o.VanillaProofs) || len(plan.Partitions[0].PublicInputs) == 0 {
		t.Fatalf("plan %s with %d partitions", plan.CircuitID, len(plan.Partitions))
	}
	// RequestFromC1 makes this request from the C1 itself, its envelope
	// byte for byte the one Curio sends.
	if r, err := RequestFromC1(o, 1000, 7); err != nil || r.Kind != proofkind.PoRep || r.RegisteredProof != uint64(filecoin.StackedDrg2KiBV1_1) ||
		r.MinerID != 1000 || r.SectorNumber != 7 || !bytes.Equal(r.VanillaProof, good) {
		t.Fatalf("RequestFromC1: %+v, %v", r, err)
	}
	// partition_index means nothing for PoRep (Curio sends 0 and wants
	// every partition): whatever it says, every partition is planned.
	if p, err := k.Plan(context.Background(), req(func(r *engine.Request) { r.PartitionIndex = 1 })); err != nil || len(p.Partitions) != len(o.VanillaProofs) {
		t.Fatalf("partition_index 1: %v", err)
	}
	// The planner's own Partition keeps that partition alone, with its
	// public inputs (prove-c2 --partition); one the C1 lacks is refused
	// with the partition count.
	zero, one := 0, len(o.VanillaProofs)
	only, err := (&Planner{Partition: &zero}).Plan(context.Background(), req(nil))
	if err != nil || len(only.Partitions) != 1 || !slices.Equal(only.Partitions[0].PublicInputs, plan.Partitions[0].PublicInputs) {
		t.Fatalf("Partition 0: %v", err)
	}
	_, err = (&Planner{Partition: &one}).Plan(context.Background(), req(nil))
	if !errors.Is(err, engine.ErrInvalidRequest) || !errors.Is(err, porep.ErrPartition) || !strings.Contains(err.Error(), "has 1 partition(s)") {
		t.Fatalf("Partition %d: %v", one, err)
	}
	// Informational fields left at zero are fine.
	if _, err := k.Plan(context.Background(), req(func(r *engine.Request) { r.SectorSize, r.SectorNumber = 0, 0 })); err != nil {
		t.Fatal(err)
	}

	tampered := *o
	tampered.VanillaProofs = [][]c1.Proof{append([]c1.Proof(nil), o.VanillaProofs[0]...)}
	pr := &tampered.VanillaProofs[0][0]
	rows := append([][32]byte(nil), pr.ReplicaColumnProofs.CX.Column.Rows...)
	rows[0][0] ^= 1
	pr.ReplicaColumnProofs.CX.Column.Rows = rows

	for name, r := range map[string]*engine.Request{
		"unknown registered proof": req(func(r *engine.Request) { r.RegisteredProof = 99 }),
		"wrong sector size":        req(func(r *engine.Request) { r.SectorSize = 8 << 20 }),
		"other registered proof":   req(func(r *engine.Request) { r.RegisteredProof = uint64(filecoin.StackedDrg2KiBV1) }),
		"other size proof":         req(func(r *engine.Request) { r.RegisteredProof = uint64(filecoin.StackedDrg8MiBV1_1); r.SectorSize = 0 }),
		"sector number":            req(func(r *engine.Request) { r.SectorNumber = 8 }),
		"empty":                    req(func(r *engine.Request) { r.VanillaProof = nil }),
		"malformed wrapper":        req(func(r *engine.Request) { r.VanillaProof = good[:len(good)-1] }),
		"raw C1, no wrapper":       req(func(r *engine.Request) { r.VanillaProof = o.AppendJSON(nil) }),
		"tampered C1":              req(func(r *engine.Request) { r.VanillaProof = wrapped(t, &tampered, 7) }),
	} {
		_, err := k.Plan(context.Background(), r)
		if !errors.Is(err, engine.ErrInvalidRequest) {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}
