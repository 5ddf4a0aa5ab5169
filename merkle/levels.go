package merkle

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// PoseidonFromLevels reassembles a Poseidon tree of shape from its stored
// levels: nodes[0] the leaves, each next level the one above, the last the
// single root, so that a sector's tree_r_last kept on disk need not be
// hashed again (an 8 MiB tree costs seconds, a 512 MiB one minutes). Every
// level must have the length shape gives for the leaf count (ErrLeafCount
// otherwise); the hashes are not recomputed, so the caller vouches for
// the content (sectordir compares digests of the stored files). The tree
// keeps the slices, which must not be modified afterwards.
func PoseidonFromLevels(shape Shape, nodes [][]fr.Element) (*PoseidonTree, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("no levels: %w", ErrLeafCount)
	}
	arities, err := poseidonArities(shape, len(nodes[0]))
	if err != nil {
		return nil, err
	}
	if len(nodes) != len(arities)+1 {
		return nil, fmt.Errorf("%d levels, a %s tree over %d leaves has %d: %w", len(nodes), shape, len(nodes[0]), len(arities)+1, ErrLeafCount)
	}
	n := len(nodes[0])
	for l, a := range arities {
		n /= a
		if len(nodes[l+1]) != n {
			return nil, fmt.Errorf("level %d has %d nodes, want %d: %w", l+1, len(nodes[l+1]), n, ErrLeafCount)
		}
	}
	return &PoseidonTree{shape: shape, t: &levels[fr.Element]{arities: arities, nodes: nodes}}, nil
}
