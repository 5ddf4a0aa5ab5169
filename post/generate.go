package post

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
)

// ErrTree is returned when a tree does not fit the registered proof.
var ErrTree = fmt.Errorf("%w: tree_r_last does not fit the proof", ErrInvalidProof)

// GenerateVanillaProof is generate_single_vanilla_proof: the vanilla proof
// of sector sectorID for the challenges VanillaChallenges derives
// (sectorIndex as there), opened in treeRLast, whose root is comm_r_last;
// comm_r is Poseidon2(commC, root).
func GenerateVanillaProof(p filecoin.RegisteredPoStProof, randomness [32]byte, sectorID uint64, sectorIndex int, treeRLast *merkle.PoseidonTree, commC fr.Element) (*VanillaProof, error) {
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
	return &VanillaProof{SectorID: sectorID, CommR: CommR(commC, sp.CommRLast), Sectors: []SectorProof{sp}}, nil
}
