package c2

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

func TestPlanChecksReplicaID(t *testing.T) {
	o, pub := testkit.SealedPublic(t, filecoin.StackedDrg2KiBV1_1)
	ctx := context.Background()
	if _, err := Plan(ctx, o, PlanOptions{Sector: &SectorID{ProverID: pub.ProverID, Number: pub.Sector}}); err != nil {
		t.Fatalf("honest sector: %v", err)
	}
	_, err := Plan(ctx, o, PlanOptions{Sector: &SectorID{ProverID: pub.ProverID, Number: pub.Sector + 1}})
	if !errors.Is(err, ErrReplicaID) {
		t.Fatalf("wrong sector number: %v", err)
	}
}
