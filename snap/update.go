package snap

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/detstream"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// ErrSectorKey is returned when a sector cannot be updated: it is updated
// already, or holds data (SnapDeals updates committed capacity).
var ErrSectorKey = errors.New("snap: not a sealed CC sector")

// Update is a CC sector updated with new data: the updated sector (comm_d
// and comm_r are comm_d_new and comm_r_new, tree_r_last is tree_r_new,
// Update names the proof and the sector key's commitments) and one
// bincode PartitionProof per partition, as Curio sends vanilla_proofs.
type Update struct {
	Sector        *sectordir.Sector
	VanillaProofs [][]byte
}

// Public are the update's public values.
func (u *Update) Public() Public {
	return Public{Proof: u.Sector.Update.Proof, CommROld: u.Sector.Update.CommROld, CommDNew: u.Sector.CommD, CommRNew: u.Sector.CommR}
}

// EncodeSector is empty_sector_update_encode_into followed by
// generate_partition_proofs, in memory: tree_d over the new data (padded:
// sector size bytes of fr32 nodes; comm_d_new is its root), the sector
// key's replica encoded with ρ(φ, high bits), tree_r_new, and every
// partition's vanilla proof, checked natively (decoded from its bytes, as
// the daemon will see it) before it is returned, so a damaged sector key
// fails here. It uses up to workers goroutines (at least 1).
func EncodeSector(ctx context.Context, p filecoin.RegisteredUpdateProof, key *sectordir.Sector, padded []byte, workers int) (*Update, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	switch {
	case key.Update != nil:
		return nil, fmt.Errorf("%w: sector %d is updated already (%v)", ErrSectorKey, key.ID, key.Update.Proof)
	case !key.CC():
		return nil, fmt.Errorf("%w: sector %d's comm_d %x is not an all-zero sector's", ErrSectorKey, key.ID, key.CommD)
	case key.SectorSize() != p.SectorSize():
		return nil, fmt.Errorf("%w: sector %d is %v, %v updates %v sectors", ErrSize, key.ID, key.SectorSize(), p, p.SectorSize())
	}
	workers = max(workers, 1)
	leaves, err := merkle.Sha254Leaves(padded)
	if err != nil {
		return nil, err
	}
	if uint64(len(leaves)) != p.Nodes() {
		return nil, fmt.Errorf("%w: %d bytes of new data, a %v sector takes %d", ErrSize, len(padded), p.SectorSize(), uint64(p.SectorSize()))
	}
	treeD, err := merkle.BuildSha254(leaves, workers)
	if err != nil {
		return nil, fmt.Errorf("tree_d_new: %w", err)
	}
	commDNew := treeD.Root()
	data := make([]fr.Element, len(leaves))
	for i := range leaves {
		if data[i], err = fr32.ToElement(leaves[i]); err != nil {
			return nil, fmt.Errorf("new data node %d: %w", i, err)
		}
	}
	treeROld := key.TreeRLast
	replica, err := EncodeReplica(p, commDNew, key.CommR, treeROld.Level(0), data)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	treeRNew, err := merkle.BuildPoseidon(TreeRShape(p), replica, workers)
	if err != nil {
		return nil, fmt.Errorf("tree_r_new: %w", err)
	}
	u := &Update{VanillaProofs: make([][]byte, p.Partitions()), Sector: &sectordir.Sector{SealProof: key.SealProof, ID: key.ID,
		MinerID: key.MinerID, ProverID: key.ProverID, Ticket: key.Ticket, CommD: commDNew, CommR: sectordir.CommR(key.CommC, treeRNew.Root()),
		CommC: key.CommC, TreeRLast: treeRNew, Update: &sectordir.Update{Proof: p, CommROld: key.CommR, CommDOld: key.CommD}}}
	for k := range u.VanillaProofs {
		pp, err := GeneratePartitionProof(p, k, key.CommC, treeROld, treeD, treeRNew)
		if err != nil {
			return nil, fmt.Errorf("partition %d: %w", k, err)
		}
		if u.VanillaProofs[k], err = pp.Encode(p); err != nil {
			return nil, fmt.Errorf("partition %d: %w", k, err)
		}
	}
	pps, err := DecodePartitionProofs(u.VanillaProofs, p)
	if err != nil {
		return nil, err
	}
	if err := VerifyAll(ctx, u.Public(), pps); err != nil {
		return nil, fmt.Errorf("the partition proofs made do not verify (a damaged sector key?): %w", err)
	}
	return u, nil
}

// DefaultDataLabel names the new data `cuzk snap encode` and the demo use
// when given none: the first sector size × 127/128 bytes of
// detstream(DefaultDataLabel), the data tools/rustref's SnapDeals goldens
// encode (testdata/rustref/update).
const DefaultDataLabel = "cuzk-snap-data-v1"

// DefaultDataDescription says what DefaultData is, for people: the demo's
// and snap encode's output, and update.json's new_data.
const DefaultDataDescription = "built-in test data (deterministic bytes, the same as tools/rustref's SnapDeals goldens)"

// DefaultData is the default new data of a sector of size, unpadded
// (sector size × 127/128 bytes; seal.PadData pads it).
func DefaultData(size filecoin.SectorSize) []byte {
	return detstream.New(DefaultDataLabel).Bytes(int(size) / 128 * 127)
}
