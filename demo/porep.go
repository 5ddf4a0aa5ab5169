package demo

import (
	"context"
	"fmt"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// PoRep is a PoRep C2 request of a sector sealed in memory (seal's
// default input and seed), its C1 in Curio's envelope, with the public
// values verify-seal takes.
type PoRep struct {
	Request *engine.Request
	Public  porep.SealPublic
}

// NewPoRep seals the default sector of proof and makes its request.
func NewPoRep(ctx context.Context, proof filecoin.RegisteredSealProof, workers int) (*PoRep, error) {
	cfg, err := porep.ConfigFor(proof)
	if err != nil {
		return nil, err
	}
	in := seal.DefaultInput(proof)
	o, r, err := seal.Seal(ctx, in, seal.DefaultSeed, workers)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	wrapped, err := c1.Wrap(o, in.Sector).MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("C1: %w", err)
	}
	req := &engine.Request{Kind: proofkind.PoRep, RegisteredProof: uint64(proof), MinerID: seal.DefaultMinerID,
		SectorNumber: in.Sector, VanillaProof: wrapped}
	pub := porep.SealPublic{Config: cfg, CommR: r.CommR(), CommD: r.CommD(), ProverID: in.ProverID, Sector: in.Sector, Ticket: in.Ticket, Seed: seal.DefaultSeed}
	return &PoRep{Request: req, Public: pub}, nil
}

// Verify is verify-seal of proof from the public values only.
func (f *PoRep) Verify(vk *groth16.VerifyingKey, proof []byte) (bool, error) {
	return porep.VerifySeal(vk, proof, f.Public)
}
