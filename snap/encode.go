package snap

import (
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// ErrSize is returned when replica, data or trees do not have the sector's
// node count or shape.
var ErrSize = errors.New("snap: sector size mismatch")

// EncodeReplica is the SnapDeals encoding of a whole sector in memory:
// new[i] = old[i] + data[i]·ρ(φ, i >> HighShift) with φ = Phi(comm_d_new,
// comm_r_old) (encode_into). old is the sealed replica (tree_r_last's
// leaves), data the new data's fr32 nodes as field elements.
func EncodeReplica(p filecoin.RegisteredUpdateProof, commDNew [32]byte, commROld fr.Element, old, data []fr.Element) ([]fr.Element, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	n := p.Nodes()
	if uint64(len(old)) != n || uint64(len(data)) != n {
		return nil, fmt.Errorf("%w: %d replica and %d data nodes, sector has %d", ErrSize, len(old), len(data), n)
	}
	phi, err := Phi(commDNew, commROld)
	if err != nil {
		return nil, err
	}
	shift := HighShift(p)
	out := make([]fr.Element, n)
	var rho fr.Element
	high := ^uint64(0)
	for i := range out {
		if h := uint64(i) >> shift; h != high {
			high, rho = h, Rho(phi, uint32(h))
		}
		out[i].Mul(&data[i], &rho).Add(&out[i], &old[i])
	}
	return out, nil
}

// GeneratePartitionProof is EmptySectorUpdate::prove_inner over in-memory
// trees: partition k's apex leaves (tree_d_new's row at height
// log2(nodes) - log2(partitions) - log2(apex leaves), slice k) and the
// openings of its challenges in tree_r_old, tree_d_new and tree_r_new.
// commC is the sector's comm_c (shared by the old and new replica).
func GeneratePartitionProof(p filecoin.RegisteredUpdateProof, k int, commC fr.Element, treeROld *merkle.PoseidonTree, treeDNew *merkle.Sha254Tree, treeRNew *merkle.PoseidonTree) (*PartitionProof, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	n := int(p.Nodes())
	shape := TreeRShape(p)
	for _, t := range []*merkle.PoseidonTree{treeROld, treeRNew} {
		if t.Shape() != shape || t.NumLeaves() != n {
			return nil, fmt.Errorf("%w: tree_r %s with %d leaves, want %s with %d", ErrSize, t.Shape(), t.NumLeaves(), shape, n)
		}
	}
	if treeDNew.NumLeaves() != n {
		return nil, fmt.Errorf("%w: tree_d with %d leaves, want %d", ErrSize, treeDNew.NumLeaves(), n)
	}
	return PartitionProofFrom(p, k, commC, sectordir.CommR(commC, treeRNew.Root()), trees{treeROld, treeDNew, treeRNew})
}

// Openings are the trees an update's partition proofs open: tree_r_old,
// tree_d_new and tree_r_new, built whole in memory (EncodeSector) or made
// up without sealing (snap/snapgen).
type Openings interface {
	ProveROld(i int) (*merkle.PoseidonProof, error)
	ProveDNew(i int) (*merkle.Sha254Proof, error)
	ProveRNew(i int) (*merkle.PoseidonProof, error)
	// DNewNode is node i of tree_d_new's row h levels above the leaves.
	DNewNode(h, i int) ([32]byte, error)
}

// PartitionProofFrom is EmptySectorUpdate::prove_inner over any openings:
// partition k's apex leaves (tree_d_new's row at height log2(nodes) -
// log2(partitions) - log2(apex leaves), slice k) and the openings of its
// challenges, drawn from commRNew, in the three trees. commC is the
// sector's comm_c (shared by the old and new replica) and commRNew must be
// Poseidon2(comm_c, root of tree_r_new).
func PartitionProofFrom(p filecoin.RegisteredUpdateProof, k int, commC, commRNew fr.Element, o Openings) (*PartitionProof, error) {
	challenges, err := Challenges(p, commRNew, k)
	if err != nil {
		return nil, err
	}
	h := p.ChallengeBits() - p.PartitionBits() - p.ApexLeafBits()
	a := p.ApexLeafCount()
	pp := &PartitionProof{CommC: commC, ApexLeafs: make([][32]byte, a), ChallengeProofs: make([]ChallengeProof, len(challenges))}
	for i := range pp.ApexLeafs {
		if pp.ApexLeafs[i], err = o.DNewNode(h, k*a+i); err != nil {
			return nil, fmt.Errorf("apex leaf %d: %w", i, err)
		}
	}
	for i, c := range challenges {
		cp := &pp.ChallengeProofs[i]
		if cp.ROld, err = o.ProveROld(int(c)); err != nil {
			return nil, err
		}
		if cp.DNew, err = o.ProveDNew(int(c)); err != nil {
			return nil, err
		}
		if cp.RNew, err = o.ProveRNew(int(c)); err != nil {
			return nil, err
		}
	}
	return pp, nil
}

// trees are the openings of whole trees in memory.
type trees struct {
	rOld *merkle.PoseidonTree
	dNew *merkle.Sha254Tree
	rNew *merkle.PoseidonTree
}

func (t trees) ProveROld(i int) (*merkle.PoseidonProof, error) { return t.rOld.Prove(i) }
func (t trees) ProveDNew(i int) (*merkle.Sha254Proof, error)   { return t.dNew.Prove(i) }
func (t trees) ProveRNew(i int) (*merkle.PoseidonProof, error) { return t.rNew.Prove(i) }

func (t trees) DNewNode(h, i int) ([32]byte, error) {
	if h < 0 || h > t.dNew.Depth() || i < 0 || i >= len(t.dNew.Level(h)) {
		return [32]byte{}, fmt.Errorf("tree_d node %d of row %d: %w", i, h, merkle.ErrIndex)
	}
	return t.dNew.Level(h)[i], nil
}
