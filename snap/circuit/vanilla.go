package circuit

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/snap"
)

// PrivateFromVanilla is circuit::PrivateInputs::new for a vanilla partition
// proof as Curio sends it (snap.DecodePartitionProof): comm_c, the apex
// leaves, each challenge's three paths, and the two roots, taken from the
// first challenge's proofs.
func PrivateFromVanilla(pp *snap.PartitionProof) (PrivateInputs, error) {
	if len(pp.ChallengeProofs) == 0 {
		return PrivateInputs{}, fmt.Errorf("%w: a partition proof without challenge proofs", ErrInputs)
	}
	first := &pp.ChallengeProofs[0]
	priv := PrivateInputs{
		CommC:      pp.CommC,
		RootROld:   first.ROld.Root,
		RootRNew:   first.RNew.Root,
		ApexLeafs:  make([]fr.Element, len(pp.ApexLeafs)),
		Challenges: make([]ChallengeProof, len(pp.ChallengeProofs)),
	}
	for i := range pp.ApexLeafs {
		var err error
		if priv.ApexLeafs[i], err = fr.LittleEndian.Element(&pp.ApexLeafs[i]); err != nil {
			return PrivateInputs{}, fmt.Errorf("%w: apex leaf %d: %w", ErrInputs, i, err)
		}
	}
	for i := range pp.ChallengeProofs {
		c := &pp.ChallengeProofs[i]
		leafDNew, err := fr.LittleEndian.Element(&c.DNew.Leaf)
		if err != nil {
			return PrivateInputs{}, fmt.Errorf("%w: challenge %d: data leaf: %w", ErrInputs, i, err)
		}
		pathDNew := make([][]fr.Element, len(c.DNew.Path))
		for l, e := range c.DNew.Path {
			pathDNew[l] = make([]fr.Element, len(e.Hashes))
			for j := range e.Hashes {
				if pathDNew[l][j], err = fr.LittleEndian.Element(&e.Hashes[j]); err != nil {
					return PrivateInputs{}, fmt.Errorf("%w: challenge %d: data path level %d: %w", ErrInputs, i, l, err)
				}
			}
		}
		priv.Challenges[i] = ChallengeProof{
			LeafROld: c.ROld.Leaf, PathROld: siblings(c.ROld),
			LeafDNew: leafDNew, PathDNew: pathDNew,
			LeafRNew: c.RNew.Leaf, PathRNew: siblings(c.RNew),
		}
	}
	return priv, nil
}

func siblings(p *merkle.PoseidonProof) [][]fr.Element {
	out := make([][]fr.Element, len(p.Path))
	for l, e := range p.Path {
		out[l] = e.Hashes
	}
	return out
}
