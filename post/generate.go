package post

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// ErrTree is returned when a tree does not fit the registered proof.
var ErrTree = fmt.Errorf("%w: tree_r_last does not fit the proof", ErrInvalidProof)

// LeafTree is a tree_r_last a vanilla proof opens: a whole tree
// (*merkle.PoseidonTree, from a sealed sector) or a sparse one
// (*merkle.SparsePoseidonTree, a sector made up without sealing).
type LeafTree interface {
	Shape() merkle.Shape
	NumLeaves() int
	Root() fr.Element
	Prove(leaf int) (*merkle.PoseidonProof, error)
}

// GenerateVanillaProof is generate_single_vanilla_proof: the vanilla proof
// of sector sectorID for the challenges VanillaChallenges derives
// (sectorIndex as there), opened in treeRLast, whose root is comm_r_last;
// comm_r is Poseidon2(commC, root).
func GenerateVanillaProof(p filecoin.RegisteredPoStProof, randomness [32]byte, sectorID uint64, sectorIndex int, treeRLast LeafTree, commC fr.Element) (*VanillaProof, error) {
	shape, err := TreeShape(p.SectorSize())
	if err != nil {
		return nil, err
	}
	if treeRLast.Shape() != shape || uint64(treeRLast.NumLeaves()) != p.SectorSize().Nodes() {
		return nil, fmt.Errorf("%w: tree %s with %d leaves, %v needs %s with %d", ErrTree, treeRLast.Shape(), treeRLast.NumLeaves(), p, shape, p.SectorSize().Nodes())
	}
	challenges, err := VanillaChallenges(p, randomness, sectorID, sectorIndex)
	if err != nil {
		return nil, err
	}
	sp := SectorProof{InclusionProofs: make([]*merkle.PoseidonProof, len(challenges)), CommC: commC, CommRLast: treeRLast.Root()}
	for i, c := range challenges {
		if sp.InclusionProofs[i], err = treeRLast.Prove(int(c)); err != nil {
			return nil, err
		}
	}
	return &VanillaProof{SectorID: sectorID, CommR: sectordir.CommR(commC, sp.CommRLast), Sectors: []SectorProof{sp}}, nil
}

// ErrSectors is returned when the sectors do not fit the registered proof
// (count, size, duplicates).
var ErrSectors = errors.New("post: sectors do not fit the proof")

// PublicSectors are the sectors' public values (id and comm_r), as a
// verifier knows them.
func PublicSectors(sectors []*sectordir.Sector) []PublicSector {
	out := make([]PublicSector, len(sectors))
	for i, s := range sectors {
		out[i] = PublicSector{ID: s.ID, CommR: s.CommR}
	}
	return out
}

// GenerateVanillaProofs is the vanilla_proofs of a request, bincode
// encoded as Curio sends them: for WindowPoSt partition k one entry per
// sector, in order, sector i challenged as sector index
// k·sector_count + i (generate_single_vanilla_proof's; the index matters
// before V1_2 only); for WinningPoSt the one proven sector's proof with its
// 66 inclusion proofs (k must be 0; the sector is the one
// WinningSectorChallenges drew from the miner's set). The entries are then
// checked as the daemon will check them: decoded, laid out as the
// circuit's partition and verified natively against the sectors' comm_r,
// with up to workers goroutines, so a damaged sector directory fails here.
func GenerateVanillaProofs(ctx context.Context, p filecoin.RegisteredPoStProof, randomness [32]byte, sectors []*sectordir.Sector, k, workers int) ([][]byte, error) {
	if err := checkProof(p); err != nil {
		return nil, err
	}
	n := len(sectors)
	switch {
	case n == 0:
		return nil, fmt.Errorf("%w: no sectors", ErrSectors)
	case p.Type() == filecoin.WinningPoSt && (n != 1 || k != 0):
		return nil, fmt.Errorf("%w: a %v proves 1 sector as partition 0, got %d sector(s), partition %d", ErrSectors, p, n, k)
	case n > p.SectorCount():
		return nil, fmt.Errorf("%w: %d sectors, a %v partition holds at most %d", ErrSectors, n, p, p.SectorCount())
	case k < 0:
		return nil, fmt.Errorf("%w: partition %d", ErrSectors, k)
	}
	seen := map[uint64]bool{}
	for i, s := range sectors {
		if s.SectorSize() != p.SectorSize() {
			return nil, fmt.Errorf("%w: sector %d (%d) is %v, the proof is for %v", ErrSectors, i, s.ID, s.SectorSize(), p.SectorSize())
		}
		if seen[s.ID] {
			return nil, fmt.Errorf("%w: sector %d given twice", ErrSectors, s.ID)
		}
		seen[s.ID] = true
	}
	entries := make([][]byte, n)
	for i, s := range sectors {
		v, err := GenerateVanillaProof(p, randomness, s.ID, k*p.SectorCount()+i, s.TreeRLast, s.CommC)
		if err != nil {
			return nil, fmt.Errorf("sector %d: %w", s.ID, err)
		}
		if entries[i], err = v.Encode(p); err != nil {
			return nil, fmt.Errorf("sector %d: %w", s.ID, err)
		}
	}
	vs, err := DecodeVanillaProofs(entries, p)
	if err != nil {
		return nil, err
	}
	pt, err := NewPartition(p, randomness, vs, k)
	if err != nil {
		return nil, err
	}
	if err := pt.Verify(ctx, max(workers, 1)); err != nil {
		return nil, fmt.Errorf("the vanilla proofs made do not verify (a damaged sector?): %w", err)
	}
	if err := pt.CheckSectors(PublicSectors(sectors)); err != nil {
		return nil, fmt.Errorf("the vanilla proofs made do not verify (a damaged sector?): %w", err)
	}
	return entries, nil
}
