// Package demo builds what `cuzk demo` and `cuzk bench` prove when given
// no input: sectors sealed in memory, the engine request of each proof
// kind made from them as Curio's pipeline would, and the public values
// its proof is verified against, computed from public values only. It
// also turns bench's inputs (a C1, vanilla proofs, a test circuit) into
// requests that know how their proofs verify (Spec), which package bench,
// knowing only the wire, cannot.
package demo

import (
	"context"
	"crypto/sha256"
	"fmt"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/snap"
)

// Randomness is the demo's PoSt randomness: SHA-256 of a label with
// the top two bits cleared, as Lotus and Curio clear the chain's, so that
// it is a canonical field element.
func Randomness() [32]byte {
	r := sha256.Sum256([]byte("cuzk-demo-post-randomness"))
	r[31] &= 0x3f
	return r
}

// SealCC seals CC sectors first, first+1, … of miner in memory
// (seal.CCInput), as PoSt and SnapDeals need them.
func SealCC(ctx context.Context, p filecoin.RegisteredSealProof, miner, first uint64, n, workers int) ([]*sectordir.Sector, error) {
	out := make([]*sectordir.Sector, n)
	for i := range out {
		r, err := seal.PreCommit(ctx, seal.CCInput(p, miner, first+uint64(i)), workers)
		if err != nil {
			return nil, err
		}
		out[i] = r.Sector(miner)
	}
	return out, nil
}

// Public are the public values a PoSt or SnapDeals proof is verified
// against (post.VerifyProof, snap.VerifyProof): exactly one of PoSt and
// Snap is set.
type Public struct {
	PoSt   *post.Public
	Snap   *snap.Public
	Update filecoin.RegisteredUpdateProof // with Snap
}

// Partitions is the number of partition proofs the values make.
func (k *Public) Partitions() int {
	if k.PoSt != nil {
		return k.PoSt.Partitions()
	}
	return k.Update.Partitions()
}

// Verify checks a proof against the values.
func (k *Public) Verify(vk *groth16.VerifyingKey, proof []byte) (bool, error) {
	if k.PoSt != nil {
		return post.VerifyProof(vk, proof, *k.PoSt)
	}
	return snap.VerifyProof(vk, k.Update, proof, *k.Snap)
}

// Fixture is a request made from sectors sealed in memory, with the
// public inputs of each partition computed from public values.
type Fixture struct {
	Circuit filecoin.CircuitID
	Request *engine.Request
	Public  Public
	What    string // one line for people
}

// Wire is the fixture's request as Curio sends it.
func (f *Fixture) Wire() *cuzkv1.SubmitProofRequest { return server.EncodeRequest(f.Request) }

// NewFixture seals CC sectors of size (as many as the proof needs)
// for miner, makes the vanilla proofs of a kind's request and its
// verifier's public inputs: a full WindowPoSt partition 0 (V1_2), a
// WinningPoSt of one sector, or a SnapDeals update of one sector.
func NewFixture(ctx context.Context, kind proofkind.Kind, size filecoin.SectorSize, miner uint64, workers int) (*Fixture, error) {
	cid, err := filecoin.CircuitIDFor(kind, size)
	if err != nil {
		return nil, err
	}
	pc, err := filecoin.PoRepCircuitID(size)
	if err != nil {
		return nil, err
	}
	sp, err := pc.SealProof()
	if err != nil {
		return nil, err
	}
	f := &Fixture{Circuit: cid}
	switch kind {
	case proofkind.WindowPoSt, proofkind.WinningPoSt:
		p, err := cid.PoStProof()
		if err != nil {
			return nil, err
		}
		n := 1
		if kind == proofkind.WindowPoSt {
			n = p.SectorCount()
		}
		sectors, err := SealCC(ctx, sp, miner, seal.DefaultSector, n, workers)
		if err != nil {
			return nil, err
		}
		rnd := Randomness()
		vanilla, err := post.GenerateVanillaProofs(ctx, p, rnd, sectors, 0, workers)
		if err != nil {
			return nil, err
		}
		// comm_r from the seal, not from the vanilla proofs.
		f.Public = Public{PoSt: &post.Public{Proof: p, Randomness: rnd, Sectors: post.PublicSectors(sectors)}}
		f.Request = &engine.Request{Kind: kind, RegisteredProof: uint64(p), SectorSize: uint64(size), MinerID: miner,
			Randomness: append([]byte(nil), rnd[:]...), VanillaProofs: vanilla}
		f.What = fmt.Sprintf("%v of %d sealed sector(s) (ids %d..%d), randomness %x", p, n, sectors[0].ID, sectors[n-1].ID, rnd)
	case proofkind.SnapDeals:
		p, err := cid.UpdateProof()
		if err != nil {
			return nil, err
		}
		sectors, err := SealCC(ctx, sp, miner, seal.DefaultSector, 1, workers)
		if err != nil {
			return nil, err
		}
		s := sectors[0]
		padded, err := seal.PadData(snap.DefaultData(size), size)
		if err != nil {
			return nil, err
		}
		u, err := snap.EncodeSector(ctx, p, s, padded, workers)
		if err != nil {
			return nil, err
		}
		// comm_r_old is the sealed sector's comm_r; comm_r_new and
		// comm_d_new come from the update.
		pub := &snap.Public{CommROld: s.CommR, CommRNew: u.Sector.CommR, CommDNew: u.Sector.CommD}
		f.Public = Public{Snap: pub, Update: p}
		old, nw := fr32.FromElement(&pub.CommROld), fr32.FromElement(&pub.CommRNew)
		f.Request = &engine.Request{Kind: proofkind.SnapDeals, RegisteredProof: uint64(p), SectorSize: uint64(size),
			SectorNumber: s.ID, MinerID: miner, VanillaProofs: u.VanillaProofs, CommROld: old[:], CommRNew: nw[:], CommDNew: pub.CommDNew[:]}
		f.What = fmt.Sprintf("%v: CC sector %d updated with detstream(%s), %d partition(s), comm_r_new %x", p, s.ID, snap.DefaultDataLabel, p.Partitions(), f.Request.CommRNew)
	default:
		return nil, fmt.Errorf("no fixture for %v", kind)
	}
	return f, nil
}
