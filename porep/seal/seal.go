package seal

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/graph"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// Errors returned for bad inputs.
var (
	// ErrSectorSize is returned when the proof's sector size is larger than
	// this package seals in memory (512 MiB).
	ErrSectorSize = errors.New("seal: sector size too large to seal in memory")
	// ErrDataLength is returned when the data is neither the unpadded nor
	// the padded size of the sector.
	ErrDataLength = errors.New("seal: data length does not match the sector size")
	// ErrDataNotPadded is returned when padded data has a node whose two
	// top bits are set.
	ErrDataNotPadded = errors.New("seal: padded data is not fr32-padded")
	// ErrZeroSeed is returned when commit is asked for an all-zero seed,
	// which C2 refuses.
	ErrZeroSeed = errors.New("seal: all-zero seed")
)

// MaxSectorSize is the largest sector sealed in memory.
const MaxSectorSize = filecoin.SectorSize512MiB

// Input describes one sector to seal.
type Input struct {
	Proof filecoin.RegisteredSealProof
	// Data is the sector content: either sector size × 127/128 raw bytes
	// (one full-size piece, fr32-padded here as add_piece does) or sector
	// size bytes already padded.
	Data     []byte
	ProverID [32]byte
	Sector   uint64
	Ticket   [32]byte
}

// Replica is a pre-committed sector: its labels and trees, kept for
// Commit. It is immutable and safe for concurrent use.
type Replica struct {
	proof     filecoin.RegisteredSealProof
	cfg       porep.Config
	shape     merkle.Shape
	g         *graph.Graph
	replicaID [32]byte
	proverID  [32]byte
	sector    uint64
	ticket    [32]byte
	labels    [][][32]byte // labels[l][n]: layer l+1
	treeD     *merkle.Sha254Tree
	treeC     *merkle.PoseidonTree
	treeR     *merkle.PoseidonTree
	commD     [32]byte
	commC     [32]byte
	commRLast [32]byte
	commR     [32]byte
}

// Seal runs PreCommit and Commit.
func Seal(ctx context.Context, in Input, seed [32]byte, workers int) (*c1.Output, *Replica, error) {
	r, err := PreCommit(ctx, in, workers)
	if err != nil {
		return nil, nil, err
	}
	o, err := r.Commit(ctx, seed, workers)
	if err != nil {
		return nil, nil, err
	}
	return o, r, nil
}

// PadData returns the padded sector content of in.Data for a sector of
// size bytes: fr32-padded raw data, or the data itself when it is already
// padded (every node below 2^254).
func PadData(data []byte, size filecoin.SectorSize) ([]byte, error) {
	switch uint64(len(data)) {
	case uint64(size) / fr32.PaddedChunkSize * fr32.UnpaddedChunkSize:
		padded := make([]byte, size)
		if err := fr32.Pad(padded, data); err != nil {
			return nil, fmt.Errorf("seal: %w", err)
		}
		return padded, nil
	case uint64(size):
		if err := CheckPadded(data); err != nil {
			return nil, err
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w: %d bytes for a %v sector (want %d raw or %d padded)", ErrDataLength,
		len(data), size, uint64(size)/fr32.PaddedChunkSize*fr32.UnpaddedChunkSize, uint64(size))
}

// CheckPadded checks that data is whole 32-byte nodes each below 2^254, as
// fr32 padding leaves them (ErrDataLength, ErrDataNotPadded).
func CheckPadded(data []byte) error {
	if len(data)%32 != 0 {
		return fmt.Errorf("%w: %d bytes are not whole 32-byte nodes", ErrDataLength, len(data))
	}
	for i := 31; i < len(data); i += 32 {
		if data[i]&0xc0 != 0 {
			return fmt.Errorf("%w: node %d", ErrDataNotPadded, i/32)
		}
	}
	return nil
}

// CommD is the root of the binary SHA-254 tree over padded data (a power of
// two of at least two 32-byte nodes): the comm_d of a sector holding it.
func CommD(padded []byte, workers int) ([32]byte, error) {
	leaves, err := merkle.Sha254Leaves(padded)
	if err != nil {
		return [32]byte{}, err
	}
	t, err := merkle.BuildSha254(leaves, workers)
	if err != nil {
		return [32]byte{}, err
	}
	return t.Root(), nil
}

// PreCommit computes everything seal_pre_commit_phase1 and phase2 compute:
// tree_d, replica_id, the labels, tree_c, tree_r_last and the commitments.
// workers < 1 means 1.
func PreCommit(ctx context.Context, in Input, workers int) (*Replica, error) {
	cfg, err := porep.ConfigFor(in.Proof)
	if err != nil {
		return nil, err
	}
	if cfg.SectorSize > MaxSectorSize {
		return nil, fmt.Errorf("%w: %v", ErrSectorSize, cfg.SectorSize)
	}
	workers = max(workers, 1)
	padded, err := PadData(in.Data, cfg.SectorSize)
	if err != nil {
		return nil, err
	}
	r := &Replica{proof: in.Proof, cfg: cfg, proverID: in.ProverID, sector: in.Sector, ticket: in.Ticket, shape: cfg.SealSpec().Tree()}
	if r.g, err = cfg.Graph(); err != nil {
		return nil, err
	}

	report(ctx, "tree_d", 0, 0)
	leaves, err := merkle.Sha254Leaves(padded)
	if err != nil {
		return nil, err
	}
	if r.treeD, err = merkle.BuildSha254(leaves, workers); err != nil {
		return nil, fmt.Errorf("seal: tree_d: %w", err)
	}
	r.commD = r.treeD.Root()
	r.replicaID = porep.ReplicaID(in.ProverID, in.Sector, in.Ticket, r.commD, cfg.PoRepID)

	layers := cfg.SealSpec().Layers()
	if r.labels, err = Labels(ctx, r.g, r.replicaID, layers, workers); err != nil {
		return nil, err
	}

	nodes := int(cfg.Nodes())
	report(ctx, "columns and replica", 0, int64(nodes))
	columns := make([]fr.Element, nodes)
	replica := make([]fr.Element, nodes)
	var hashed atomic.Int64
	err = par.Do(ctx, nodes, 1<<10, workers, func(lo, hi int) error {
		defer func() { report(ctx, "columns and replica", hashed.Add(int64(hi-lo)), int64(nodes)) }()
		rows := make([]fr.Element, layers)
		for n := lo; n < hi; n++ {
			for l := range rows {
				rows[l] = mustElement(&r.labels[l][n])
			}
			columns[n] = porep.ColumnHash(rows)
			data, err := fr32.ToElement(leaves[n])
			if err != nil {
				return fmt.Errorf("data node %d: %w", n, err)
			}
			replica[n] = porep.Encode(rows[layers-1], data)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("seal: columns and replica: %w", err)
	}
	report(ctx, "tree_c", 0, 0)
	if r.treeC, err = merkle.BuildPoseidon(r.shape, columns, workers); err != nil {
		return nil, fmt.Errorf("seal: tree_c: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	report(ctx, "tree_r_last", 0, 0)
	if r.treeR, err = merkle.BuildPoseidon(r.shape, replica, workers); err != nil {
		return nil, fmt.Errorf("seal: tree_r_last: %w", err)
	}
	commC, commRLast := r.treeC.Root(), r.treeR.Root()
	commR := sectordir.CommR(commC, commRLast)
	r.commC, r.commRLast, r.commR = fr32.FromElement(&commC), fr32.FromElement(&commRLast), fr32.FromElement(&commR)
	return r, nil
}

// mustElement converts a label, which is always below 2^254.
func mustElement(b *[32]byte) fr.Element {
	e, err := fr32.ToElement(*b)
	if err != nil {
		panic("seal: a label or commitment above 2^254")
	}
	return e
}

// Proof is the registered seal proof the replica was sealed for.
func (r *Replica) Proof() filecoin.RegisteredSealProof { return r.proof }

// ReplicaID is the sector's replica_id.
func (r *Replica) ReplicaID() [32]byte { return r.replicaID }

// CommD is the data commitment (tree_d root).
func (r *Replica) CommD() [32]byte { return r.commD }

// CommC is the tree_c root.
func (r *Replica) CommC() [32]byte { return r.commC }

// CommRLast is the tree_r_last root.
func (r *Replica) CommRLast() [32]byte { return r.commRLast }

// CommR is H(comm_c, comm_r_last), the sealed sector commitment.
func (r *Replica) CommR() [32]byte { return r.commR }

// Label is the label of node in layer (1-based).
func (r *Replica) Label(layer int, node uint64) [32]byte { return r.labels[layer-1][node] }

// Commit builds the commit phase 1 output for seed: for every partition,
// the vanilla proof of each of its challenges (prove_layers_generate).
func (r *Replica) Commit(ctx context.Context, seed [32]byte, workers int) (*c1.Output, error) {
	if seed == [32]byte{} {
		return nil, ErrZeroSeed
	}
	proofs, err := VanillaProofs(ctx, r.cfg, r.g, r, r.replicaID, r.commR, seed, workers)
	if err != nil {
		return nil, err
	}
	return &c1.Output{
		RegisteredProof: r.proof,
		VanillaProofs:   proofs,
		CommR:           r.commR,
		CommD:           r.commD,
		ReplicaID:       r.replicaID,
		Seed:            seed,
		Ticket:          r.ticket,
	}, nil
}

// Layers is the number of SDR layers.
func (r *Replica) Layers() int { return len(r.labels) }

// Shape is the shape of tree_c and tree_r_last.
func (r *Replica) Shape() merkle.Shape { return r.shape }

// ProveD opens data node i in tree_d.
func (r *Replica) ProveD(i int) (*merkle.Sha254Proof, error) { return r.treeD.Prove(i) }

// ProveC opens the column of node i in tree_c.
func (r *Replica) ProveC(i int) (*merkle.PoseidonProof, error) { return r.treeC.Prove(i) }

// ProveR opens replica node i in tree_r_last.
func (r *Replica) ProveR(i int) (*merkle.PoseidonProof, error) { return r.treeR.Prove(i) }
