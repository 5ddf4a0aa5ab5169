package testkit

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
)

// Miner is the miner id of every fixture sector (seal.DefaultMinerID).
const Miner = seal.DefaultMinerID

// sealed caches what fixtures seal, per test process: sealing a 2 KiB
// sector takes a second or so and tests of several files ask for the
// same sectors. Values are shared read-only.
var sealed sync.Map // sealKey → *sealedOnce

type sealKey struct {
	what  string
	proof filecoin.RegisteredSealProof
	miner uint64
	id    uint64
}

type sealedOnce struct {
	once sync.Once
	v    any
	err  error
}

// cached runs make once per key in this process.
func cached(t testing.TB, key sealKey, make func() (any, error)) any {
	t.Helper()
	e, _ := sealed.LoadOrStore(key, &sealedOnce{})
	s := e.(*sealedOnce)
	s.once.Do(func() { s.v, s.err = make() })
	if s.err != nil {
		t.Fatalf("fixture %s %v sector %d: %v", key.what, key.proof, key.id, s.err)
	}
	return s.v
}

// SealedC1 is the C1 output of the default test sector of proof
// (seal.DefaultInput: deterministic data, seal.DefaultTicket,
// seal.DefaultSeed, miner seal.DefaultMinerID, sector seal.DefaultSector),
// sealed once per process. It is shared: do not modify it.
func SealedC1(t testing.TB, proof filecoin.RegisteredSealProof) *c1.Output {
	t.Helper()
	return cached(t, sealKey{"c1", proof, Miner, seal.DefaultSector}, func() (any, error) {
		o, _, err := seal.Seal(context.Background(), seal.DefaultInput(proof), seal.DefaultSeed, 2)
		return o, err
	}).(*c1.Output)
}

// SealedPublic is SealedC1 with the public inputs verify-seal checks its
// proof against (porep.VerifySeal). The C1 output is shared: do not modify
// it.
func SealedPublic(t testing.TB, proof filecoin.RegisteredSealProof) (*c1.Output, porep.SealPublic) {
	t.Helper()
	o := SealedC1(t, proof)
	cfg, err := porep.ConfigFor(proof)
	if err != nil {
		t.Fatal(err)
	}
	return o, porep.SealPublic{Config: cfg, CommR: o.CommR, CommD: o.CommD, ProverID: filecoin.ProverID(Miner),
		Sector: seal.DefaultSector, Ticket: o.Ticket, Seed: o.Seed}
}

// CCSector is CC sector id of miner Miner (all-zero data,
// seal.DefaultTicket) sealed in memory for proof, once per process. It is
// shared: do not modify it.
func CCSector(t testing.TB, proof filecoin.RegisteredSealProof, id uint64) *sectordir.Sector {
	t.Helper()
	return cached(t, sealKey{"cc", proof, Miner, id}, func() (any, error) {
		r, err := seal.PreCommit(context.Background(), seal.CCInput(proof, Miner, id), 2)
		if err != nil {
			return nil, err
		}
		return r.Sector(Miner), nil
	}).(*sectordir.Sector)
}

// CCSectors are CC sectors first, first+1, … (CCSector).
func CCSectors(t testing.TB, proof filecoin.RegisteredSealProof, first uint64, n int) []*sectordir.Sector {
	t.Helper()
	out := make([]*sectordir.Sector, n)
	for i := range out {
		out[i] = CCSector(t, proof, first+uint64(i))
	}
	return out
}

// RandomSector stands in for a sealed CC sector of proof's size whose
// replica is random (drawn from seed) instead of sealed: PoSt and
// SnapDeals see only tree_r_last, comm_c and comm_d, so their vanilla
// proofs of it verify like those of a sealed sector, and it costs a tree
// build instead of a seal (seconds instead of minutes at 8 MiB).
func RandomSector(t testing.TB, proof filecoin.RegisteredSealProof, id, seed uint64) *sectordir.Sector {
	t.Helper()
	return cached(t, sealKey{fmt.Sprintf("random-%d", seed), proof, Miner, id}, func() (any, error) {
		rng := rand.New(rand.NewPCG(seed, id))
		leaves := make([]fr.Element, proof.SectorSize().Nodes())
		for i := range leaves {
			leaves[i] = randomElement(rng)
		}
		tree, err := merkle.BuildPoseidon(proof.SealSpec().Tree(), leaves, 2)
		if err != nil {
			return nil, err
		}
		miner := uint64(Miner)
		s := &sectordir.Sector{SealProof: proof, ID: id, MinerID: &miner, ProverID: filecoin.ProverID(Miner), Ticket: seal.DefaultTicket,
			CommD: merkle.EmptySha254Root(proof.SealSpec().TreeDDepth()), TreeRLast: tree, CommC: randomElement(rng)}
		s.CommR = sectordir.CommR(s.CommC, tree.Root())
		return s, nil
	}).(*sectordir.Sector)
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

// PoStVanilla is the vanilla_proofs of a PoSt request of sectors
// (post.GenerateVanillaProofs: WindowPoSt partition k; WinningPoSt, one
// sector and k = 0).
func PoStVanilla(t testing.TB, p filecoin.RegisteredPoStProof, randomness [32]byte, sectors []*sectordir.Sector, k int) [][]byte {
	t.Helper()
	v, err := post.GenerateVanillaProofs(context.Background(), p, randomness, sectors, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// SnapData is deterministic new data for a SnapDeals update of a sector of
// p's size, drawn from seed: sector size bytes of random 254-bit nodes
// (already fr32, as snap.EncodeSector takes them).
func SnapData(p filecoin.RegisteredUpdateProof, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x736e6170))
	out := make([]byte, 0, uint64(p.SectorSize()))
	for range p.Nodes() {
		e := randomElement(rng)
		b := e.Bytes() // big-endian
		for l, r := 0, len(b)-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
		out = append(out, b[:]...)
	}
	return out
}

// SnapUpdate updates CC sector key with SnapData(p, dataSeed)
// (snap.EncodeSector).
func SnapUpdate(t testing.TB, p filecoin.RegisteredUpdateProof, key *sectordir.Sector, dataSeed uint64) *snap.Update {
	t.Helper()
	u, err := snap.EncodeSector(context.Background(), p, key, SnapData(p, dataSeed), 2)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Bytes is e's canonical little-endian encoding, the form commitments and
// randomness take on the wire (a fresh slice).
func Bytes(e fr.Element) []byte {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, e)
	return b[:]
}
