package demo

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/testparams"
)

// Spec is a bench request with what checking its proofs needs
// besides the wire fields (package bench knows only the wire).
type Spec struct {
	*bench.Spec
	C1      *c1.Output // PoRep: the parsed C1, for verify-seal
	LogRows int        // test circuits: log2 of the rows, for groth16 verify
	// public are the public values of a PoSt or SnapDeals proof (nil:
	// unknown).
	Public *Public
}

// PoRepOptions say how a C1 becomes a request.
type PoRepOptions struct {
	// SectorNumber: 0 takes the envelope's (a plain C1 gets
	// seal.DefaultSector); a value that contradicts the envelope is an
	// error.
	SectorNumber uint64
	// MinerID is sent as miner_id and is what verify-seal derives the
	// prover id from.
	MinerID uint64
	// RegisteredProof: -1 takes the C1's; another value must equal it.
	RegisteredProof int64
}

// PoRepSpec builds a PoRep C2 request from C1 output, plain or in Curio's
// envelope. A plain C1 is wrapped (the daemon takes only the envelope).
func PoRepSpec(data []byte, opt PoRepOptions) (*Spec, error) {
	o, w, err := c1.ParseAny(data)
	if err != nil {
		return nil, fmt.Errorf("C1: %w", err)
	}
	if opt.RegisteredProof >= 0 && uint64(opt.RegisteredProof) != uint64(o.RegisteredProof) {
		return nil, fmt.Errorf("--registered-proof %d, but the C1 is for %v (%d)", opt.RegisteredProof, o.RegisteredProof, uint64(o.RegisteredProof))
	}
	sector := opt.SectorNumber
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
		SectorSize: uint64(o.RegisteredProof.SectorSize()), SectorNumber: sector, MinerId: opt.MinerID, VanillaProof: envelope}
	return &Spec{Spec: &bench.Spec{Template: req, Circuit: string(cid), Partitions: len(o.VanillaProofs)}, C1: o}, nil
}

// TestSpec builds a request for the daemon's test circuit with 2^logRows
// rows (served only by `cuzk daemon --enable-test-circuits`).
func TestSpec(logRows int, opt testkind.Options) (*Spec, error) {
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
	return &Spec{Spec: &bench.Spec{Template: client.TestRequest("", logRows, options), Circuit: testkind.CircuitID(logRows), Partitions: parts},
		LogRows: logRows}, nil
}

// Spec is the fixture's bench request, with its public inputs for
// --verify.
func (f *Fixture) Spec() *Spec {
	return &Spec{Spec: &bench.Spec{Template: f.Wire(), Circuit: string(f.Circuit), Partitions: f.Public.Partitions()}, Public: &f.Public}
}

// DescribeVanilla fills what a PoSt or SnapDeals spec built from a
// --vanilla file tells about itself: the circuit, the partition count, the
// sector size Curio sends, and the public inputs for --verify, computed
// from public values (PoSt: the randomness, the partition and the sector
// ids and comm_r the vanilla proofs carry; SnapDeals: the three
// commitments). A spec the daemon will refuse is left without inputs: the
// bench still sends it, to see the refusal.
func DescribeVanilla(s *Spec) {
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
			s.Public = &Public{PoSt: pub}
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
			s.Public = &Public{Snap: pub, Update: p}
		}
	}
}

// ErrNoVerifier is returned when the tool cannot check proofs of this
// type.
var ErrNoVerifier = errors.New("no verifier for this proof type")

// ErrReplicaMismatch is returned when the prover id and sector number
// given for verify-seal do not reproduce the C1's replica id, so the proof
// could never verify against them.
var ErrReplicaMismatch = errors.New("replica id mismatch")

// VerifyingKeyPath is where the verifying key of spec's circuit lives in a
// parameter directory (official names for Filecoin circuits, the test
// kind's names for test circuits).
func (spec *Spec) VerifyingKeyPath(paramDir string) (string, error) {
	switch spec.Kind() {
	case proofkind.Test:
		return filepath.Join(paramDir, testkind.FileBase(spec.LogRows)+".vk"), nil
	case proofkind.PoRep, proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals:
		if spec.Circuit == "" {
			return "", fmt.Errorf("%w: %s without a known circuit", ErrNoVerifier, spec.Kind())
		}
		f, err := testparams.PathsForCircuit(filecoin.CircuitID(spec.Circuit), paramDir)
		if err != nil {
			return "", err
		}
		return f.VK, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNoVerifier, spec.Kind())
}

// Verify checks a proof the daemon returned for spec: for PoRep,
// verify-seal from the C1's public values (comm_r, comm_d, ticket, seed,
// registered proof) with the prover id of spec.MinerID and spec's sector
// number; for test circuits, Groth16 verification of every partition
// proof against the circuit's public inputs; for PoSt and SnapDeals, the
// same against the inputs computed from the request's public values
// (DescribeVanilla, NewFixture). method says which.
func (spec *Spec) Verify(vk *groth16.VerifyingKey, proof []byte) (ok bool, method string, err error) {
	r := spec.Template
	switch spec.Kind() {
	case proofkind.PoRep:
		method = "verify-seal from the C1's public values"
		o := spec.C1
		if o == nil {
			return false, method, fmt.Errorf("%w: no C1 in the spec", ErrNoVerifier)
		}
		cfg, err := porep.ConfigFor(o.RegisteredProof)
		if err != nil {
			return false, method, err
		}
		pub := porep.SealPublic{Config: cfg, CommR: o.CommR, CommD: o.CommD, ProverID: filecoin.ProverID(r.MinerId),
			Sector: r.SectorNumber, Ticket: o.Ticket, Seed: o.Seed}
		if pub.ReplicaID() != o.ReplicaID {
			return false, method, fmt.Errorf("%w: miner %d, sector %d give replica id %x, the C1 has %x", ErrReplicaMismatch,
				r.MinerId, r.SectorNumber, pub.ReplicaID(), o.ReplicaID)
		}
		ok, err := porep.VerifySeal(vk, proof, pub)
		return ok, method, err
	case proofkind.Test:
		method = "groth16 verify of each partition proof against the test circuit's public inputs"
		proofs, err := groth16.DecodeProofs(proof)
		if err != nil {
			return false, method, err
		}
		pvk, err := groth16.Prepare(vk)
		if err != nil {
			return false, method, err
		}
		in := testkind.PublicInputs(spec.LogRows)
		inputs := make([][]fr.Element, len(proofs))
		for i := range inputs {
			inputs[i] = in
		}
		ok, err := groth16.VerifyBatch(pvk, proofs, inputs, nil)
		return ok, method, err
	case proofkind.WindowPoSt, proofkind.WinningPoSt, proofkind.SnapDeals:
		method = "groth16 verify of each partition proof against public inputs computed from public values"
		if spec.Public == nil {
			return false, method, fmt.Errorf("%w: the public values of this %s request are unknown", ErrNoVerifier, spec.Kind())
		}
		ok, err := spec.Public.Verify(vk, proof)
		return ok, method, err
	}
	return false, "", fmt.Errorf("%w: %s", ErrNoVerifier, spec.Kind())
}
