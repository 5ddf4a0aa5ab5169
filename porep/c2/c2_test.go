package c2

import (
	"context"
	"errors"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

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
