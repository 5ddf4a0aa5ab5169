package seal

import (
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// TreeRLast is the replica's tree_r_last, whose leaves are the sealed
// replica: what a sealed sector keeps for WindowPoSt, WinningPoSt and
// SnapDeals. The tree is the replica's own: read it, never modify it.
func (r *Replica) TreeRLast() *merkle.PoseidonTree { return r.treeR }

// Sector is what WindowPoSt, WinningPoSt and SnapDeals need of the sealed
// sector (sectordir's Sector, sharing the replica's tree_r_last). The
// miner id is recorded only when the prover id is that miner's
// (filecoin.ProverID).
func (r *Replica) Sector(minerID uint64) *sectordir.Sector {
	s := &sectordir.Sector{SealProof: r.proof, ID: r.sector, ProverID: r.proverID, Ticket: r.ticket,
		CommD: r.commD, TreeRLast: r.treeR, CommR: mustElement(&r.commR), CommC: mustElement(&r.commC)}
	if filecoin.ProverID(minerID) == r.proverID {
		s.MinerID = &minerID
	}
	return s
}
