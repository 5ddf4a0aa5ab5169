package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/oneshot"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/testparams"
)

// demoRandomness is the demo's PoSt randomness: SHA-256 of a label with
// the top two bits cleared, as Lotus and Curio clear the chain's, so that
// it is a canonical field element.
func demoRandomness() [32]byte {
	r := sha256.Sum256([]byte("cuzk-demo-post-randomness"))
	r[31] &= 0x3f
	return r
}

// sealCC seals CC sectors first, first+1, … of miner in memory
// (seal.CCInput), as PoSt and SnapDeals need them.
func sealCC(ctx context.Context, p filecoin.RegisteredSealProof, miner, first uint64, n, workers int) ([]*sectordir.Sector, error) {
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

// kindPublic are the public values a PoSt or SnapDeals proof is verified
// against (post.VerifyProof, snap.VerifyProof): exactly one of post and
// snap is set.
type kindPublic struct {
	post   *post.Public
	snap   *snap.Public
	update filecoin.RegisteredUpdateProof // with snap
}

// partitions is the number of partition proofs the values make.
func (k *kindPublic) partitions() int {
	if k.post != nil {
		return k.post.Partitions()
	}
	return k.update.Partitions()
}

// verify checks a proof against the values.
func (k *kindPublic) verify(vk *groth16.VerifyingKey, proof []byte) (bool, error) {
	if k.post != nil {
		return post.VerifyProof(vk, proof, *k.post)
	}
	return snap.VerifyProof(vk, k.update, proof, *k.snap)
}

// kindFixture is a request made from sectors sealed in memory, with the
// public inputs of each partition computed from public values.
type kindFixture struct {
	circuit filecoin.CircuitID
	req     *engine.Request
	public  kindPublic
	what    string // one line for people
}

// newKindFixture seals CC sectors of size (as many as the proof needs)
// for miner, makes the vanilla proofs of a kind's request and its
// verifier's public inputs: a full WindowPoSt partition 0 (V1_2), a
// WinningPoSt of one sector, or a SnapDeals update of one sector.
func newKindFixture(ctx context.Context, kind proofkind.Kind, size filecoin.SectorSize, miner uint64, workers int) (*kindFixture, error) {
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
	f := &kindFixture{circuit: cid}
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
		sectors, err := sealCC(ctx, sp, miner, seal.DefaultSector, n, workers)
		if err != nil {
			return nil, err
		}
		rnd := demoRandomness()
		vanilla, err := post.GenerateVanillaProofs(ctx, p, rnd, sectors, 0, workers)
		if err != nil {
			return nil, err
		}
		// comm_r from the seal, not from the vanilla proofs.
		f.public = kindPublic{post: &post.Public{Proof: p, Randomness: rnd, Sectors: post.PublicSectors(sectors)}}
		f.req = &engine.Request{Kind: kind, RegisteredProof: uint64(p), SectorSize: uint64(size), MinerID: miner,
			Randomness: append([]byte(nil), rnd[:]...), VanillaProofs: vanilla}
		f.what = fmt.Sprintf("%v of %d sealed sector(s) (ids %d..%d), randomness %x", p, n, sectors[0].ID, sectors[n-1].ID, rnd)
	case proofkind.SnapDeals:
		p, err := cid.UpdateProof()
		if err != nil {
			return nil, err
		}
		sectors, err := sealCC(ctx, sp, miner, seal.DefaultSector, 1, workers)
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
		f.public = kindPublic{snap: pub, update: p}
		old, nw := fr32.FromElement(&pub.CommROld), fr32.FromElement(&pub.CommRNew)
		f.req = &engine.Request{Kind: proofkind.SnapDeals, RegisteredProof: uint64(p), SectorSize: uint64(size),
			SectorNumber: s.ID, MinerID: miner, VanillaProofs: u.VanillaProofs, CommROld: old[:], CommRNew: nw[:], CommDNew: pub.CommDNew[:]}
		f.what = fmt.Sprintf("%v: CC sector %d updated with detstream(%s), %d partition(s), comm_r_new %x", p, s.ID, snap.DefaultDataLabel, p.Partitions(), f.req.CommRNew)
	default:
		return nil, fmt.Errorf("no fixture for %v", kind)
	}
	return f, nil
}

// runDemoKind is `cuzk demo --kind window-post|winning-post|snap`: CC
// sectors sealed natively, their vanilla proofs made as Curio's sealing
// pipeline would, proved through the in-process engine, and the proof
// verified against public inputs computed here from public values.
func runDemoKind(ctx context.Context, kind proofkind.Kind, size filecoin.SectorSize, paramsDir string, workers int, stdout, stderr io.Writer) int {
	fail := failer(stderr, "cuzk demo")
	cid, err := filecoin.CircuitIDFor(kind, size)
	if err != nil {
		return fail("%v", err)
	}
	if size > seal.MaxSectorSize {
		return fail("%v sectors are too large to seal in memory (at most %v)", size, seal.MaxSectorSize)
	}
	if err := checkCircuitFits(cid, config.ReadMemTotal); err != nil {
		return fail("%v", err)
	}
	if paramsDir != "" && isOfficialCache(paramsDir) {
		return fail("%s is the official parameter cache: the demo's INSECURE test parameters do not belong there", paramsDir)
	}
	dir := paramsDir
	if dir == "" {
		dir = testparams.DefaultDir(os.LookupEnv)
	}
	step := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	step("cuzk demo: %v of %v sectors (circuit %s)", kind, size, cid)

	t := time.Now()
	f, err := newKindFixture(ctx, kind, size, seal.DefaultMinerID, workers)
	if err != nil {
		return fail("sectors: %v", err)
	}
	step("1. sealed natively and made the vanilla proofs in %v: %s", time.Since(t).Round(time.Millisecond), f.what)

	t = time.Now()
	files, generated, err := testparams.EnsureCircuit(ctx, cid, dir, testparams.Options{Workers: workers, Progress: newProgress(stderr, "params gen "+cid.String())})
	if err != nil {
		return fail("parameters: %v", err)
	}
	vk, err := groth16.ReadVerifyingKeyFile(files.VK)
	if err != nil {
		return fail("parameters: %v", err)
	}
	verb := "found cached"
	if generated {
		verb = "generated"
	}
	step("2. %s INSECURE test parameters in %v: %s", verb, time.Since(t).Round(time.Millisecond), files.Params)

	opt := oneshot.Options{ParamsDir: dir, Workers: workers, Stderr: stderr, Label: "prove", QuietLog: true}
	res, err := oneshot.Prove(ctx, oneshot.Job{Request: f.req}, opt)
	if err != nil {
		return proofFailed(fail, err)
	}
	proofBytes, tm := res.Proof, res.Timings
	step("3. proved through the engine: parameters loaded in %v, vanilla proofs checked natively and %d partition(s) synthesised in %v, proved in %v (total %v, self-checked)",
		tm.SRSLoad.Round(time.Millisecond), res.Partitions(), tm.Synthesis.Round(time.Millisecond),
		tm.Prove.Round(time.Millisecond), tm.Total.Round(time.Millisecond))

	t = time.Now()
	ok, err := f.public.verify(vk, proofBytes)
	if err != nil {
		return fail("verify: %v", err)
	}
	if !ok {
		fail("verify: proof INVALID")
		return exitInvalid
	}
	step("4. groth16 verify against public inputs computed from public values only: valid (%v)", time.Since(t).Round(time.Millisecond))
	step("proof (%d bytes): %s", len(proofBytes), hex.EncodeToString(proofBytes))
	step("peak RSS %d MiB", bench.PeakRSS()>>20)
	return exitOK
}
