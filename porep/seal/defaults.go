package seal

import (
	"context"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/detstream"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// Default test-sector values, shared with the Rust reference harness
// (tools/rustref seal), so that a sector sealed here and one sealed by
// rust-fil-proofs give byte-identical C1 outputs.
const (
	DefaultMinerID   = 1000
	DefaultSector    = 1
	DefaultDataLabel = "cuzk-seal-data-v1"
)

// DefaultTicket and DefaultSeed are 32 bytes of 0x01 and 0x02.
var (
	DefaultTicket = fill(1)
	DefaultSeed   = fill(2)
)

func fill(b byte) (out [32]byte) {
	for i := range out {
		out[i] = b
	}
	return out
}

// DefaultData is the deterministic piece data of a test sector: the first
// sector size × 127/128 bytes of detstream(DefaultDataLabel).
func DefaultData(p filecoin.RegisteredSealProof) []byte {
	n := int(p.SectorSize()) / 128 * 127
	return detstream.New(DefaultDataLabel).Bytes(n)
}

// DefaultInput is the test sector the tools seal when given no values.
func DefaultInput(p filecoin.RegisteredSealProof) Input {
	return Input{
		Proof:    p,
		Data:     DefaultData(p),
		ProverID: filecoin.ProverID(DefaultMinerID),
		Sector:   DefaultSector,
		Ticket:   DefaultTicket,
	}
}

// CCInput is committed-capacity sector id of miner for p: all-zero data,
// DefaultTicket, the prover id of the miner. SnapDeals updates such
// sectors; PoSt proves them as it proves any.
func CCInput(p filecoin.RegisteredSealProof, miner, id uint64) Input {
	return Input{Proof: p, Data: make([]byte, int(p.SectorSize())/128*127), ProverID: filecoin.ProverID(miner), Sector: id, Ticket: DefaultTicket}
}

// CCSectors seals CC sectors first, first+1, … of miner in memory
// (CCInput) and returns them as a verifier or prover of them sees them on
// disk, as PoSt and SnapDeals take them.
func CCSectors(ctx context.Context, p filecoin.RegisteredSealProof, miner, first uint64, n, workers int) ([]*sectordir.Sector, error) {
	out := make([]*sectordir.Sector, n)
	for i := range out {
		r, err := PreCommit(ctx, CCInput(p, miner, first+uint64(i)), workers)
		if err != nil {
			return nil, err
		}
		out[i] = r.Sector(miner)
	}
	return out, nil
}
