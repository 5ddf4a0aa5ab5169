// Package vanillagen makes the vanilla proofs Curio sends for WindowPoSt,
// WinningPoSt and SnapDeals from sectors sealed in memory, for tests, the
// demo and the bench tools: a CC sector sealed by porep/seal, its
// tree_r_last rebuilt from the last layer's labels (a CC replica is its
// key), then post.GenerateVanillaProof or snap.EncodeReplica and
// snap.GeneratePartitionProof, each entry bincode-encoded exactly as
// rust-fil-proofs serialises it.
//
// Everything is deterministic: the same arguments give the same bytes.
// Nothing here is needed to serve proofs; it stands in for the sealing
// pipeline (Curio's, or `cuzk seal`) that keeps a sector's trees on disk.
package vanillagen

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap"
)

// ErrSectors is returned when the sectors do not fit the proof asked for.
var ErrSectors = errors.New("vanillagen: sectors do not fit the proof")

// Sector is a sealed CC sector with what PoSt and SnapDeals need of it.
type Sector struct {
	Proof filecoin.RegisteredSealProof
	Miner uint64
	ID    uint64
	CommC fr.Element
	CommR fr.Element
	// TreeRLast is the Merkle tree over the replica (tree_r_last); for a CC
	// sector the replica is the last layer's labels.
	TreeRLast *merkle.PoseidonTree
}

// Public is the sector's public data as PoSt uses it.
func (s *Sector) Public() post.PublicSector { return post.PublicSector{ID: s.ID, CommR: s.CommR} }

// Seal seals CC sector id of miner (all-zero data, seal.DefaultTicket) for
// proof, in memory (at most seal.MaxSectorSize).
func Seal(ctx context.Context, proof filecoin.RegisteredSealProof, miner, id uint64, workers int) (*Sector, error) {
	size := proof.SectorSize()
	in := seal.Input{Proof: proof, Data: make([]byte, uint64(size)/128*127), ProverID: filecoin.ProverID(miner), Sector: id, Ticket: seal.DefaultTicket}
	r, err := seal.PreCommit(ctx, in, workers)
	if err != nil {
		return nil, err
	}
	spec := proof.SealSpec()
	leaves := make([]fr.Element, size.Nodes())
	for i := range leaves {
		b := r.Label(spec.Layers(), uint64(i))
		if leaves[i], err = fr.LittleEndian.Element(&b); err != nil {
			return nil, fmt.Errorf("vanillagen: label %d: %w", i, err)
		}
	}
	tree, err := merkle.BuildPoseidon(spec.Tree(), leaves, max(workers, 1))
	if err != nil {
		return nil, err
	}
	s := &Sector{Proof: proof, Miner: miner, ID: id, TreeRLast: tree}
	commRLast, commC, commR := r.CommRLast(), r.CommC(), r.CommR()
	if s.CommC, err = fr.LittleEndian.Element(&commC); err != nil {
		return nil, err
	}
	if s.CommR, err = fr.LittleEndian.Element(&commR); err != nil {
		return nil, err
	}
	// A CC replica is its key; anything else would be a broken seal.
	if last, err := fr.LittleEndian.Element(&commRLast); err != nil || last != tree.Root() {
		return nil, fmt.Errorf("vanillagen: rebuilt tree_r_last does not give the sealed comm_r_last")
	}
	return s, nil
}

// RandomSector is a stand-in for a sealed sector of proof's size whose
// replica is random (drawn from seed) instead of sealed: PoSt and
// SnapDeals see only tree_r_last and comm_c, so their vanilla proofs of it
// verify like those of a sealed sector, and it costs a tree build instead
// of a seal (seconds instead of minutes at 8 MiB).
func RandomSector(proof filecoin.RegisteredSealProof, miner, id, seed uint64, workers int) (*Sector, error) {
	if !proof.Valid() {
		return nil, fmt.Errorf("%w: %v", ErrSectors, proof)
	}
	rng := rand.New(rand.NewPCG(seed, id))
	leaves := make([]fr.Element, proof.SectorSize().Nodes())
	for i := range leaves {
		leaves[i] = randomElement(rng)
	}
	tree, err := merkle.BuildPoseidon(proof.SealSpec().Tree(), leaves, max(workers, 1))
	if err != nil {
		return nil, err
	}
	s := &Sector{Proof: proof, Miner: miner, ID: id, TreeRLast: tree, CommC: randomElement(rng)}
	s.CommR = post.CommR(s.CommC, tree.Root())
	return s, nil
}

// randomElement is a random 254-bit field element.
func randomElement(rng *rand.Rand) fr.Element {
	var b [32]byte
	for j := 0; j < 32; j += 8 {
		binary.LittleEndian.PutUint64(b[j:], rng.Uint64())
	}
	b[31] &= 0x3f
	e, _ := fr.LittleEndian.Element(&b) // < 2^254 < r
	return e
}

// SealMany seals n CC sectors of miner with ids first, first+1, ….
func SealMany(ctx context.Context, proof filecoin.RegisteredSealProof, miner, first uint64, n, workers int) ([]*Sector, error) {
	out := make([]*Sector, n)
	for i := range out {
		var err error
		if out[i], err = Seal(ctx, proof, miner, first+uint64(i), workers); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SealProofFor is the registered seal proof (V1_1) whose sectors have size.
func SealProofFor(size filecoin.SectorSize) (filecoin.RegisteredSealProof, error) {
	c, err := filecoin.CircuitIDFor(proofkind.PoRep, size)
	if err != nil {
		return 0, err
	}
	return c.SealProof()
}

// Randomness is deterministic PoSt randomness from seed, with the top two
// bits cleared as Lotus and Curio clear the chain's randomness, so that it
// is a canonical field element.
func Randomness(seed uint64) [32]byte {
	rng := rand.New(rand.NewPCG(seed, 0x706f7374))
	var out [32]byte
	for i := 0; i < 32; i += 8 {
		binary.LittleEndian.PutUint64(out[i:], rng.Uint64())
	}
	out[31] &= 0x3f
	return out
}

func checkSize(p filecoin.SectorSize, sectors []*Sector) error {
	for i, s := range sectors {
		if s.Proof.SectorSize() != p {
			return fmt.Errorf("%w: sector %d (%d) is %v, the proof is for %v", ErrSectors, i, s.ID, s.Proof.SectorSize(), p)
		}
	}
	return nil
}

// WindowPoSt is the vanilla_proofs of a WindowPoSt request for partition
// k: one bincode FallbackPoStSectorProof per sector, in order, each
// challenged at its index k·sector_count + i, as generate_single_vanilla_proof
// would (the index matters before V1_2 only).
func WindowPoSt(p filecoin.RegisteredPoStProof, randomness [32]byte, sectors []*Sector, k int) ([][]byte, error) {
	if p.Type() != filecoin.WindowPoSt {
		return nil, fmt.Errorf("%w: %v is not a WindowPoSt proof", ErrSectors, p)
	}
	if len(sectors) == 0 || len(sectors) > p.SectorCount() {
		return nil, fmt.Errorf("%w: %d sectors, a %v partition holds 1..%d", ErrSectors, len(sectors), p, p.SectorCount())
	}
	if err := checkSize(p.SectorSize(), sectors); err != nil {
		return nil, err
	}
	out := make([][]byte, len(sectors))
	for i, s := range sectors {
		v, err := post.GenerateVanillaProof(p, randomness, s.ID, k*p.SectorCount()+i, s.TreeRLast, s.CommC)
		if err != nil {
			return nil, err
		}
		if out[i], err = v.Encode(p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// WinningPoSt is the vanilla_proofs of a WinningPoSt request: the one
// challenged sector's proof with its 66 inclusion proofs.
func WinningPoSt(p filecoin.RegisteredPoStProof, randomness [32]byte, s *Sector) ([][]byte, error) {
	if p.Type() != filecoin.WinningPoSt {
		return nil, fmt.Errorf("%w: %v is not a WinningPoSt proof", ErrSectors, p)
	}
	if err := checkSize(p.SectorSize(), []*Sector{s}); err != nil {
		return nil, err
	}
	v, err := post.GenerateVanillaProof(p, randomness, s.ID, 0, s.TreeRLast, s.CommC)
	if err != nil {
		return nil, err
	}
	b, err := v.Encode(p)
	if err != nil {
		return nil, err
	}
	return [][]byte{b}, nil
}

// Update is a SnapDeals update of a CC sector: the public values of a
// SNAP_DEALS_UPDATE request and its vanilla_proofs.
type Update struct {
	Proof    filecoin.RegisteredUpdateProof
	CommROld fr.Element
	CommRNew fr.Element
	CommDNew [32]byte
	// VanillaProofs holds one bincode PartitionProof per partition.
	VanillaProofs [][]byte
}

// Public are the update's public values for partition k.
func (u *Update) Public(k int) snap.Public {
	return snap.Public{K: k, CommROld: u.CommROld, CommDNew: u.CommDNew, CommRNew: u.CommRNew}
}

// SnapUpdate updates CC sector s with deterministic new data drawn from
// dataSeed (random 254-bit nodes): tree_d_new over the data, the encoded
// replica and its tree_r_new, and every partition's vanilla proof.
func SnapUpdate(p filecoin.RegisteredUpdateProof, s *Sector, dataSeed uint64, workers int) (*Update, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: %v", ErrSectors, p)
	}
	if err := checkSize(p.SectorSize(), []*Sector{s}); err != nil {
		return nil, err
	}
	workers = max(workers, 1)
	n := p.Nodes()
	rng := rand.New(rand.NewPCG(dataSeed, 0x736e6170))
	data := make([][32]byte, n)
	dataFr := make([]fr.Element, n)
	for i := range data {
		dataFr[i] = randomElement(rng) // fr32: every node below 2^254
		data[i] = Bytes(dataFr[i])
	}
	treeD, err := merkle.BuildSha254(data, workers)
	if err != nil {
		return nil, err
	}
	u := &Update{Proof: p, CommROld: s.CommR, CommDNew: treeD.Root()}
	replica, err := snap.EncodeReplica(p, u.CommDNew, u.CommROld, s.TreeRLast.Level(0), dataFr)
	if err != nil {
		return nil, err
	}
	treeRNew, err := merkle.BuildPoseidon(snap.TreeRShape(p), replica, workers)
	if err != nil {
		return nil, err
	}
	u.CommRNew = snap.CommR(s.CommC, treeRNew.Root())
	for k := range p.Partitions() {
		pp, err := snap.GeneratePartitionProof(p, k, s.CommC, s.TreeRLast, treeD, treeRNew)
		if err != nil {
			return nil, err
		}
		b, err := pp.Encode(p)
		if err != nil {
			return nil, err
		}
		u.VanillaProofs = append(u.VanillaProofs, b)
	}
	return u, nil
}

// Bytes is e's canonical little-endian encoding, the form commitments and
// randomness take on the wire.
func Bytes(e fr.Element) [32]byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, e)
	return b
}

// Request fields of the update: comm_r_old, comm_r_new and comm_d_new as
// raw 32 bytes, fresh slices each call.
func (u *Update) Request() (commROld, commRNew, commDNew []byte) {
	o, n := Bytes(u.CommROld), Bytes(u.CommRNew)
	return o[:], n[:], append([]byte(nil), u.CommDNew[:]...)
}
