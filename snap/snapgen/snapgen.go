// Package snapgen makes consistent SnapDeals (EmptySectorUpdate) updates of
// any sector size without a sector: what `cuzk snap gen` writes so that a
// 32 or 64 GiB update can be proven and benchmarked on a machine that holds
// no sealed sector of that size (a 32 GiB update reads a 32 GiB sector key
// and writes a 32 GiB replica and its trees).
//
// Every relation a vanilla proof or the circuit checks holds over the whole
// sector, in upstream's order: comm_d_new is the root of tree_d over the new
// data; comm_r_old = Poseidon2(comm_c, root of tree_r_old); φ =
// H(comm_d_new, comm_r_old); each new replica node is old + data·ρ(φ, its h
// high bits); comm_r_new = Poseidon2(comm_c, root of tree_r_new); the
// challenges come from comm_r_new. The challenges depend on every leaf, so
// no leaf can be left inconsistent: the construction keeps every tree cheap
// instead. The old replica is one made-up value at every node (a uniform
// sector key, tree_r_old sparse with no set leaf); the new data is one
// block of Period nodes (the first Period·32·127/128 bytes of
// detstream(snap.DefaultDataLabel), fr32-padded) repeated over the sector,
// Period a power of 8 that divides the 2^(log2 nodes - h) nodes of an
// h-range (512 from 512 MiB up, 64 at 8 MiB, 8 at 2 KiB). Then every
// h-range of tree_r_new is made of identical subtrees of Period leaves
// (merkle.BuildPeriodicPoseidon: 2^h × Period leaves hashed, 2^19 at 32
// and 64 GiB) and tree_d is one block's tree (merkle.BuildRepeatedSha254).
// comm_c is made up. Such an update is accepted by this project's vanilla
// check and by rust-fil-proofs' (EmptySectorUpdate::verify_all_partitions),
// but no sector holds it: WriteFiles marks every file as made without
// sealing.
package snapgen

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/detstream"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
)

// DefaultPeriod is the largest data period in nodes (16 KiB of padded
// data): larger periods cost more hashes and check nothing more.
const DefaultPeriod = 512

// Tags of the made-up values, hashed with the miner and sector.
const (
	oldReplicaTag = "cuzk-snapgen-old-replica-v1"
	commCTag      = "cuzk-snapgen-comm-c-v1"
)

// Params is what the generator picks.
type Params struct {
	Proof   filecoin.RegisteredUpdateProof
	MinerID uint64
	Sector  uint64
	// Period is the data's period in nodes: a power of 8 dividing an
	// h-range, at least 4 (one fr32 chunk). 0 means PeriodFor(Proof).
	Period int
}

// DefaultParams are the values `cuzk snap gen` uses when given none.
func DefaultParams(p filecoin.RegisteredUpdateProof) Params {
	return Params{Proof: p, MinerID: 1000, Sector: 1}
}

// RangeNodes is the number of nodes that share one ρ: 2^(log2 nodes - h).
func RangeNodes(p filecoin.RegisteredUpdateProof) int { return 1 << snap.HighShift(p) }

// PeriodFor is the default period of p: the largest power of 8 that
// divides RangeNodes(p), at most DefaultPeriod.
func PeriodFor(p filecoin.RegisteredUpdateProof) int {
	rng, period := RangeNodes(p), 1
	for period*8 <= DefaultPeriod && rng%(period*8) == 0 {
		period *= 8
	}
	return period
}

// Result is a generated update.
type Result struct {
	Params Params
	// Public are the update's public values.
	Public snap.Public
	// VanillaProofs are the bincode PartitionProofs, one per partition, as
	// Curio sends them.
	VanillaProofs [][]byte
	CommC         fr.Element
	CommRLastNew  fr.Element
	// OldNode is the value of every node of the old replica.
	OldNode fr.Element
	// Kept is the number of tree_r_new nodes computed (of about 8/7 ×
	// nodes in the whole tree).
	Kept int
}

// Generate makes the update of p. workers bounds the goroutines that
// build tree_r_new (< 1 means 1). The partition proofs are checked
// natively (snap.VerifyAll, from their bytes) before they are returned.
func Generate(ctx context.Context, p Params, workers int) (*Result, error) {
	if !p.Proof.Valid() {
		return nil, fmt.Errorf("snapgen: %w: %d", snap.ErrRegisteredProof, int64(p.Proof))
	}
	if p.Period == 0 {
		p.Period = PeriodFor(p.Proof)
	}
	nodes, rng := int(p.Proof.Nodes()), RangeNodes(p.Proof)
	if p.Period < 4 || p.Period&(p.Period-1) != 0 || rng%p.Period != 0 {
		return nil, fmt.Errorf("snapgen: period %d: want a power of two, at least 4, dividing the %d nodes of an h-range", p.Period, rng)
	}
	workers = max(workers, 1)

	// tree_d over the data block repeated.
	raw := detstream.New(snap.DefaultDataLabel).Bytes(int(fr32.UnpaddedSize(uint64(p.Period) * 32)))
	padded := make([]byte, p.Period*32)
	if err := fr32.Pad(padded, raw); err != nil {
		return nil, fmt.Errorf("snapgen: data block: %w", err)
	}
	block, err := merkle.Sha254Leaves(padded)
	if err != nil {
		return nil, fmt.Errorf("snapgen: data block: %w", err)
	}
	data := make([]fr.Element, len(block))
	for i := range block {
		if data[i], err = fr32.ToElement(block[i]); err != nil {
			return nil, fmt.Errorf("snapgen: data node %d: %w", i, err)
		}
	}
	treeD, err := merkle.BuildRepeatedSha254(block, nodes, workers)
	if err != nil {
		return nil, fmt.Errorf("snapgen: tree_d_new: %w", err)
	}
	commDNew := treeD.Root()

	// The sector key: uniform, so tree_r_old keeps one node per level.
	shape := snap.TreeRShape(p.Proof)
	old := madeUp(oldReplicaTag, p)
	commC := madeUp(commCTag, p)
	treeROld, err := merkle.BuildSparsePoseidon(shape, nodes, old, nil)
	if err != nil {
		return nil, fmt.Errorf("snapgen: tree_r_old: %w", err)
	}
	commROld := sectordir.CommR(commC, treeROld.Root())

	// φ from comm_d_new and comm_r_old, one ρ per h-range, then the new
	// replica: node i = old + data[i mod period]·ρ(i >> shift).
	phi, err := snap.Phi(commDNew, commROld)
	if err != nil {
		return nil, fmt.Errorf("snapgen: %w", err)
	}
	rho := make([]fr.Element, nodes/rng)
	for r := range rho {
		rho[r] = snap.Rho(phi, uint32(r))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("snapgen: %w", err)
	}
	treeRNew, err := merkle.BuildPeriodicPoseidon(shape, nodes, rng, p.Period, func(r, b int) fr.Element {
		var v fr.Element
		v.Mul(&data[b], &rho[r]).Add(&v, &old)
		return v
	}, workers)
	if err != nil {
		return nil, fmt.Errorf("snapgen: tree_r_new: %w", err)
	}
	res := &Result{Params: p, CommC: commC, CommRLastNew: treeRNew.Root(), OldNode: old, Kept: treeRNew.Kept(),
		Public:        snap.Public{Proof: p.Proof, CommROld: commROld, CommDNew: commDNew, CommRNew: sectordir.CommR(commC, treeRNew.Root())},
		VanillaProofs: make([][]byte, p.Proof.Partitions())}

	o := openings{rOld: treeROld, dNew: treeD, rNew: treeRNew}
	for k := range res.VanillaProofs {
		pp, err := snap.PartitionProofFrom(p.Proof, k, commC, res.Public.CommRNew, o)
		if err != nil {
			return nil, fmt.Errorf("snapgen: partition %d: %w", k, err)
		}
		if res.VanillaProofs[k], err = pp.Encode(p.Proof); err != nil {
			return nil, fmt.Errorf("snapgen: partition %d: %w", k, err)
		}
	}
	pps, err := snap.DecodePartitionProofs(res.VanillaProofs, p.Proof)
	if err != nil {
		return nil, fmt.Errorf("snapgen: %w", err)
	}
	if err := snap.VerifyAll(ctx, res.Public, pps); err != nil {
		return nil, fmt.Errorf("snapgen: the partition proofs made do not verify: %w", err)
	}
	return res, nil
}

// madeUp is sha256(tag || miner || sector) trimmed to a field element, so
// a generated update is the same every time and differs per sector.
func madeUp(tag string, p Params) fr.Element {
	msg := make([]byte, len(tag)+16)
	copy(msg, tag)
	binary.LittleEndian.PutUint64(msg[len(tag):], p.MinerID)
	binary.LittleEndian.PutUint64(msg[len(tag)+8:], p.Sector)
	h := sha256.Sum256(msg)
	fr32.TrimToFr32(&h)
	e, err := fr32.ToElement(h)
	if err != nil {
		panic(err) // a trimmed digest is canonical
	}
	return e
}

type openings struct {
	rOld *merkle.SparsePoseidonTree
	dNew *merkle.RepeatedSha254Tree
	rNew *merkle.PeriodicPoseidonTree
}

func (o openings) ProveROld(i int) (*merkle.PoseidonProof, error) { return o.rOld.Prove(i) }
func (o openings) ProveDNew(i int) (*merkle.Sha254Proof, error)   { return o.dNew.Prove(i) }
func (o openings) ProveRNew(i int) (*merkle.PoseidonProof, error) { return o.rNew.Prove(i) }
func (o openings) DNewNode(h, i int) ([32]byte, error)            { return o.dNew.Node(h, i) }
