package main

import (
	"encoding/json"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap"
)

// benchSpec is a bench request with what checking its proofs needs
// besides the wire fields (package bench knows only the wire).
type benchSpec struct {
	*bench.Spec
	c1      *c1.Output // PoRep: the parsed C1, for verify-seal
	logRows int        // test circuits: log2 of the rows, for groth16 verify
	// public are the public values of a PoSt or SnapDeals proof (nil:
	// unknown).
	public *demo.Public
}

// poRepOptions say how a C1 becomes a request.
type poRepOptions struct {
	// sectorNumber: 0 takes the envelope's (a plain C1 gets
	// seal.DefaultSector); a value that contradicts the envelope is an
	// error.
	sectorNumber uint64
	// minerID is sent as miner_id and is what verify-seal derives the
	// prover id from.
	minerID uint64
	// registeredProof: -1 takes the C1's; another value must equal it.
	registeredProof int64
}

// poRepSpec builds a PoRep C2 request from C1 output, plain or in Curio's
// envelope. A plain C1 is wrapped (the daemon takes only the envelope).
func poRepSpec(data []byte, opt poRepOptions) (*benchSpec, error) {
	o, w, err := c1.ParseAny(data)
	if err != nil {
		return nil, fmt.Errorf("C1: %w", err)
	}
	if opt.registeredProof >= 0 && uint64(opt.registeredProof) != uint64(o.RegisteredProof) {
		return nil, fmt.Errorf("--registered-proof %d, but the C1 is for %v (%d)", opt.registeredProof, o.RegisteredProof, uint64(o.RegisteredProof))
	}
	sector := opt.sectorNumber
	envelope := data
	switch {
	case w != nil && sector != 0 && sector != w.SectorNum:
		return nil, fmt.Errorf("sector number %d, but the C1 envelope says %d", sector, w.SectorNum)
	case w != nil:
		sector = w.SectorNum
	default:
		if sector == 0 {
			sector = seal.DefaultSector
		}
		if envelope, err = c1.Wrap(o, sector).MarshalJSON(); err != nil {
			return nil, fmt.Errorf("wrapping the C1: %w", err)
		}
	}
	cid, err := filecoin.PoRepCircuitID(o.RegisteredProof.SectorSize())
	if err != nil {
		return nil, err
	}
	req := &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind(proofkind.PoRep), RegisteredProof: uint64(o.RegisteredProof),
		SectorSize: uint64(o.RegisteredProof.SectorSize()), SectorNumber: sector, MinerId: opt.minerID, VanillaProof: envelope}
	return &benchSpec{Spec: &bench.Spec{Template: req, Circuit: string(cid), Partitions: len(o.VanillaProofs)}, c1: o}, nil
}

// testSpec builds a request for the daemon's test circuit with 2^logRows
// rows (served only by `cuzk daemon --enable-test-circuits`).
func testSpec(logRows int, opt testkind.Options) (*benchSpec, error) {
	if logRows < testkind.MinLog || logRows > testkind.MaxLog {
		return nil, fmt.Errorf("test circuit: log rows %d outside %d..%d", logRows, testkind.MinLog, testkind.MaxLog)
	}
	var options []byte
	if opt != (testkind.Options{}) {
		var err error
		if options, err = json.Marshal(opt); err != nil {
			return nil, err
		}
	}
	parts := max(opt.Partitions, 1)
	return &benchSpec{Spec: &bench.Spec{Template: client.TestRequest("", logRows, options), Circuit: testkind.CircuitID(logRows), Partitions: parts},
		logRows: logRows}, nil
}

// fixtureSpec is the request of a kind fixture (sectors sealed in
// process), with its public inputs for --verify.
func fixtureSpec(f *demo.Fixture) *benchSpec {
	return &benchSpec{Spec: &bench.Spec{Template: f.Wire(), Circuit: string(f.Circuit), Partitions: f.Public.Partitions()}, public: &f.Public}
}

// describeVanilla fills what a PoSt or SnapDeals spec built from a
// --vanilla file tells about itself: the circuit, the partition count, the
// sector size Curio sends, and the public inputs for --verify, computed
// from public values (PoSt: the randomness, the partition and the sector
// ids and comm_r the vanilla proofs carry; SnapDeals: the three
// commitments). A spec the daemon will refuse is left without inputs: the
// bench still sends it, to see the refusal.
func describeVanilla(s *benchSpec) {
	r := s.Template
	switch s.Kind() {
	case proofkind.WindowPoSt, proofkind.WinningPoSt:
		p, err := filecoin.PoStProofFromID(r.RegisteredProof)
		if err != nil {
			return
		}
		s.Circuit, s.Partitions, r.SectorSize = string(p.CircuitID()), 1, uint64(p.SectorSize())
		vs, err := post.DecodeVanillaProofs(r.VanillaProofs, p)
		if err != nil || len(vs) == 0 || len(r.Randomness) != 32 {
			return
		}
		pub := &post.Public{Proof: p, Randomness: [32]byte(r.Randomness), Partition: int(r.PartitionIndex)}
		for _, v := range vs {
			pub.Sectors = append(pub.Sectors, post.PublicSector{ID: v.SectorID, CommR: v.CommR})
		}
		if p.Type() == filecoin.WinningPoSt {
			pub.Sectors = pub.Sectors[:1]
		}
		if _, err := pub.Inputs(); err == nil {
			s.public = &demo.Public{PoSt: pub}
		}
	case proofkind.SnapDeals:
		p, err := filecoin.UpdateProofFromID(r.RegisteredProof)
		if err != nil {
			return
		}
		s.Circuit, s.Partitions, r.SectorSize = string(p.CircuitID()), p.Partitions(), uint64(p.SectorSize())
		if len(r.CommROld) != 32 || len(r.CommRNew) != 32 || len(r.CommDNew) != 32 {
			return
		}
		old, err1 := fr.LittleEndian.Element((*[32]byte)(r.CommROld))
		nw, err2 := fr.LittleEndian.Element((*[32]byte)(r.CommRNew))
		if err1 != nil || err2 != nil {
			return
		}
		pub := &snap.Public{CommROld: old, CommRNew: nw, CommDNew: [32]byte(r.CommDNew)}
		if _, err := snap.ProofInputs(p, *pub); err == nil {
			s.public = &demo.Public{Snap: pub, Update: p}
		}
	}
}
