// Package demo builds what `cuzk demo` and `cuzk bench` prove when given
// no input: sectors sealed in memory, the engine request of each proof
// kind made from them as Curio's pipeline would (by the kind's planner's
// request constructor), and the public values its proof is verified
// against, computed from public values only; and the INSECURE test
// parameters the demo and `cuzk params gen` make. Bench's requests from
// its inputs (a C1, vanilla proofs, a test circuit, or a Fixture) are
// package benchspec's.
package demo

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
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

// Public are the public values a proof is verified against, from which
// every partition's public inputs follow: *porep.SealPublic, *post.Public
// and *snap.Public implement it, and so do the test circuits' (TestSpec).
type Public interface {
	groth16.Public
}

// Verify checks proof, one groth16.ProofSize-byte proof per partition,
// against the public inputs pub computes. A proof that does not verify
// gives (false, nil); values or bytes that do not fit give an error.
func Verify(vk *groth16.VerifyingKey, proof []byte, pub Public) (bool, error) {
	bad, err := groth16.InvalidPublic(vk, proof, pub)
	return err == nil && len(bad) == 0, err
}

// Fixture is a request made from sectors sealed in memory, with the
// public values its proof is verified against.
type Fixture struct {
	Circuit filecoin.CircuitID
	Request *engine.Request
	Public  Public
	What    string // what was sealed and made, one line for people
	// Check names the verification the proof gets, as the verify-*
	// command that does it from public values.
	Check string
	// Method says how the proof is verified, for bench's reports.
	Method string
}

// Verify checks a proof of the fixture's request against its public
// values alone.
func (f *Fixture) Verify(vk *groth16.VerifyingKey, proof []byte) (bool, error) {
	return Verify(vk, proof, f.Public)
}

// vanillaMethod is how a PoSt or SnapDeals fixture's proof is verified.
const vanillaMethod = "groth16 verify of each partition proof against public inputs computed from public values"

// fixtureOf makes the fixture of one kind: the request of circuit cid
// from sectors sealed with seal proof sp for miner.
type fixtureOf func(ctx context.Context, cid filecoin.CircuitID, sp filecoin.RegisteredSealProof, miner uint64, workers int) (*Fixture, error)

// fixtures are the kinds NewFixture makes, one row each.
var fixtures = map[proofkind.Kind]fixtureOf{
	proofkind.PoRep:       porepFixture,
	proofkind.WindowPoSt:  postFixture,
	proofkind.WinningPoSt: postFixture,
	proofkind.SnapDeals:   snapFixture,
}

// NewFixture seals sectors of size (as many as the proof needs) for
// miner, and makes a kind's request and the public values its proof
// verifies against: a PoRep C2 of the default sector (seal.DefaultInput
// under miner's prover id, seal.DefaultSeed), a full WindowPoSt partition
// 0 (V1_2) or a WinningPoSt of CC sectors, or a SnapDeals update of one CC
// sector.
func NewFixture(ctx context.Context, kind proofkind.Kind, size filecoin.SectorSize, miner uint64, workers int) (*Fixture, error) {
	mk, ok := fixtures[kind]
	if !ok {
		return nil, fmt.Errorf("no fixture for %v", kind)
	}
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
	f, err := mk(ctx, cid, sp, miner, workers)
	if err != nil {
		return nil, err
	}
	f.Circuit = cid
	return f, nil
}

func porepFixture(ctx context.Context, _ filecoin.CircuitID, sp filecoin.RegisteredSealProof, miner uint64, workers int) (*Fixture, error) {
	pub, err := seal.Sealed{Proof: sp}.Public()
	if err != nil {
		return nil, err
	}
	in := seal.DefaultInput(sp)
	in.ProverID = filecoin.ProverID(miner)
	o, r, err := seal.Seal(ctx, in, seal.DefaultSeed, workers)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	req, err := porepkind.RequestFromC1(o, miner, in.Sector)
	if err != nil {
		return nil, err
	}
	pub.CommR, pub.CommD, pub.ProverID, pub.Sector, pub.Ticket, pub.Seed = r.CommR(), r.CommD(), in.ProverID, in.Sector, in.Ticket, seal.DefaultSeed
	return &Fixture{Request: req, Public: &pub, Check: "verify-seal", Method: "verify-seal from the C1's public values",
		What: fmt.Sprintf("%v: sector %d sealed and its C1 made, comm_d %x, comm_r %x", sp, in.Sector, pub.CommD, pub.CommR)}, nil
}

func postFixture(ctx context.Context, cid filecoin.CircuitID, sp filecoin.RegisteredSealProof, miner uint64, workers int) (*Fixture, error) {
	p, err := cid.PoStProof()
	if err != nil {
		return nil, err
	}
	n := p.SectorCount()
	sectors, err := seal.CCSectors(ctx, sp, miner, seal.DefaultSector, n, workers)
	if err != nil {
		return nil, err
	}
	rnd := Randomness()
	vanilla, err := post.GenerateVanillaProofs(ctx, p, rnd, sectors, 0, workers)
	if err != nil {
		return nil, err
	}
	// comm_r from the seal, not from the vanilla proofs.
	pub := &post.Public{Proof: p, Randomness: rnd, Sectors: post.PublicSectors(sectors)}
	return &Fixture{Request: postkind.NewRequest(p, append([]byte(nil), rnd[:]...), 0, miner, vanilla), Public: pub, Check: "verify-post", Method: vanillaMethod,
		What: fmt.Sprintf("%v of %d sealed sector(s) (ids %d..%d), randomness %x", p, n, sectors[0].ID, sectors[n-1].ID, rnd)}, nil
}

func snapFixture(ctx context.Context, cid filecoin.CircuitID, sp filecoin.RegisteredSealProof, miner uint64, workers int) (*Fixture, error) {
	p, err := cid.UpdateProof()
	if err != nil {
		return nil, err
	}
	sectors, err := seal.CCSectors(ctx, sp, miner, seal.DefaultSector, 1, workers)
	if err != nil {
		return nil, err
	}
	s := sectors[0]
	padded, err := seal.PadData(snap.DefaultData(p.SectorSize()), p.SectorSize())
	if err != nil {
		return nil, err
	}
	u, err := snap.EncodeSector(ctx, p, s, padded, workers)
	if err != nil {
		return nil, err
	}
	// comm_r_old is the sealed sector's comm_r; comm_r_new and comm_d_new
	// come from the update.
	pub := &snap.Public{Proof: p, CommROld: s.CommR, CommRNew: u.Sector.CommR, CommDNew: u.Sector.CommD}
	req := snapkind.UpdateRequest(u)
	req.SectorNumber, req.MinerID = s.ID, miner
	return &Fixture{Request: req, Public: pub, Check: "verify-update", Method: vanillaMethod,
		What: fmt.Sprintf("%v: CC sector %d updated with %s, %d partition(s), comm_r_new %x", p, s.ID, snap.DefaultDataDescription, p.Partitions(), req.CommRNew)}, nil
}
