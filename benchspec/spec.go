// Package benchspec turns `cuzk bench`'s inputs into the requests it
// sends, each knowing how its proofs verify: a C1 (PoRepSpec), vanilla
// proofs with a request's public fields (VanillaSpec), the daemon's test
// circuits (TestSpec, with their options and parameter sets), or a demo
// fixture made from sectors sealed in memory (FixtureSpec). Package
// bench, which knows only the wire, cannot verify a proof; this package
// reads the verifying key (Spec.Verifier) and checks the daemon's answers
// against public values.
package benchspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/testparams"
)

// Spec is a bench request with what checking its proofs needs
// besides the wire fields (package bench knows only the wire).
type Spec struct {
	*bench.Spec
	C1      *c1.Output // PoRep: the parsed C1
	LogRows int        // test circuits: log2 of the rows, naming their key
	// Public are the values the proofs are verified against (nil:
	// unknown, the spec has no verifier).
	Public demo.Public
	// Method says how the proofs are verified, for reports.
	Method string
}

// Methods of Spec.Verify, for reports.
const (
	methodC1      = "verify-seal from the C1's public values"
	methodTest    = "groth16 verify of each partition proof against the test circuit's public inputs"
	methodVanilla = "groth16 verify of each partition proof against public inputs computed from public values"
)

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
	spec := &Spec{Spec: &bench.Spec{Template: req, Circuit: string(cid), Partitions: len(o.VanillaProofs)}, C1: o, Method: methodC1}
	pub, err := seal.Sealed{Proof: o.RegisteredProof}.Public()
	if err != nil {
		return nil, err
	}
	pub.CommR, pub.CommD, pub.ProverID, pub.Sector, pub.Ticket, pub.Seed = o.CommR, o.CommD, filecoin.ProverID(opt.MinerID), sector, o.Ticket, o.Seed
	spec.Public = &c1Public{Public: &pub, replicaID: pub.ReplicaID(), miner: opt.MinerID, sector: sector, want: o.ReplicaID}
	return spec, nil
}

// c1Public are a C1's public values with the prover id of the miner the
// request names: a miner and sector that do not give the C1's replica id
// could never verify, which Inputs says before any pairing.
type c1Public struct {
	groth16.Public
	replicaID, want [32]byte // what the values give, what the C1 has
	miner, sector   uint64
}

func (p *c1Public) Inputs() ([][]fr.Element, error) {
	if p.replicaID != p.want {
		return nil, fmt.Errorf("%w: miner %d, sector %d give replica id %x, the C1 has %x", ErrReplicaMismatch,
			p.miner, p.sector, p.replicaID, p.want)
	}
	return p.Public.Inputs()
}

// testPublic are a test circuit's public values: its inputs, the same
// for every partition.
type testPublic struct{ logRows, partitions int }

func (p testPublic) Partitions() int { return p.partitions }

func (p testPublic) Inputs() ([][]fr.Element, error) {
	in := testkind.PublicInputs(p.logRows)
	out := make([][]fr.Element, p.partitions)
	for i := range out {
		out[i] = in
	}
	return out, nil
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
		LogRows: logRows, Public: testPublic{logRows, parts}, Method: methodTest}, nil
}

// FixtureSpec is the bench request of a demo fixture, as Curio sends it,
// with the fixture's public values for --verify.
func FixtureSpec(f *demo.Fixture) *Spec {
	return &Spec{Spec: &bench.Spec{Template: server.EncodeRequest(f.Request), Circuit: string(f.Circuit), Partitions: f.Public.Partitions()},
		Public: f.Public, Method: f.Method}
}

// VanillaOptions are a PoSt or SnapDeals request's fields besides its
// vanilla proofs, as Curio sends them (bench takes them from flags).
type VanillaOptions struct {
	RegisteredProof uint64
	// SectorNumber: 0 sends seal.DefaultSector.
	SectorNumber uint64
	MinerID      uint64
	// Partition is the WindowPoSt partition index.
	Partition uint32
	// Randomness (PoSt; nil sends 32 zero bytes) and the SnapDeals
	// commitments, 32 bytes each when given.
	Randomness, CommROld, CommRNew, CommDNew []byte
}

// VanillaSpec builds a request of kind from its vanilla proofs (bench's
// --vanilla file) and fills what it tells about itself: the circuit, the
// partition count, the sector size Curio sends, and the public values for
// --verify (PoSt: the randomness, the partition and the sector ids and
// comm_r the vanilla proofs carry; SnapDeals: the three commitments). A
// request the daemon will refuse is left without a verifier: the bench
// still sends it, to see the refusal.
func VanillaSpec(kind proofkind.Kind, proofs [][]byte, opt VanillaOptions) *Spec {
	req := &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind(kind), RegisteredProof: opt.RegisteredProof, SectorNumber: opt.SectorNumber,
		MinerId: opt.MinerID, VanillaProofs: proofs, PartitionIndex: opt.Partition,
		Randomness: opt.Randomness, CommROld: opt.CommROld, CommRNew: opt.CommRNew, CommDNew: opt.CommDNew}
	if req.SectorNumber == 0 {
		req.SectorNumber = seal.DefaultSector
	}
	s := &Spec{Spec: &bench.Spec{Template: req}}
	if describe, ok := vanillaKinds[kind]; ok {
		describe(s, req)
	}
	return s
}

// vanillaKinds are the kinds a --vanilla file serves, one row each.
var vanillaKinds = map[proofkind.Kind]func(s *Spec, r *cuzkv1.SubmitProofRequest){
	proofkind.WindowPoSt:  describePoSt,
	proofkind.WinningPoSt: describePoSt,
	proofkind.SnapDeals:   describeUpdate,
}

func describePoSt(s *Spec, r *cuzkv1.SubmitProofRequest) {
	if r.Randomness == nil {
		r.Randomness = make([]byte, 32)
	}
	p, err := filecoin.PoStProofFromID(r.RegisteredProof)
	if err != nil {
		return
	}
	s.Circuit, s.Partitions, r.SectorSize = string(p.CircuitID()), 1, uint64(p.SectorSize())
	vs, err := post.DecodeVanillaProofs(r.VanillaProofs, p)
	if err != nil || len(vs) == 0 || len(r.Randomness) != 32 {
		return
	}
	if p.Type() == filecoin.WinningPoSt {
		vs = vs[:1]
	}
	pub := post.NewPublic(p, [32]byte(r.Randomness), int(r.PartitionIndex), vs)
	if _, err := pub.Inputs(); err == nil {
		s.Public, s.Method = &pub, methodVanilla
	}
}

func describeUpdate(s *Spec, r *cuzkv1.SubmitProofRequest) {
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
	pub := &snap.Public{Proof: p, CommROld: old, CommRNew: nw, CommDNew: [32]byte(r.CommDNew)}
	if _, err := pub.Inputs(); err == nil {
		s.Public, s.Method = pub, methodVanilla
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
	if spec.LogRows > 0 {
		return filepath.Join(paramDir, testkind.FileBase(spec.LogRows)+".vk"), nil
	}
	if spec.Circuit == "" {
		return "", fmt.Errorf("%w: %s without a known circuit", ErrNoVerifier, spec.Kind())
	}
	f, err := testparams.PathsForCircuit(filecoin.CircuitID(spec.Circuit), paramDir)
	if err != nil {
		return "", err
	}
	return f.VK, nil
}

// PartitionProofs is how many partition proofs a proof of n bytes holds
// (groth16.ProofSize bytes each), for reports of the daemon's answers.
func PartitionProofs(n int) int { return n / groth16.ProofSize }

// Verifier is a verifying key read for a spec's proofs (bench single
// --verify): read before the proof is asked for, so that a missing key
// fails the run up front and the verification's time excludes reading it.
type Verifier struct {
	Path string // the key's file
	spec *Spec
	vk   *groth16.VerifyingKey
}

// Verifier reads the verifying key of spec's circuit: vkPath, or where
// VerifyingKeyPath finds it in paramDir when vkPath is empty.
func (spec *Spec) Verifier(vkPath, paramDir string) (*Verifier, error) {
	path := vkPath
	if path == "" {
		var err error
		if path, err = spec.VerifyingKeyPath(paramDir); err != nil {
			return nil, err
		}
	}
	vk, err := groth16.ReadVerifyingKeyFile(path)
	if err != nil {
		return nil, err
	}
	return &Verifier{Path: path, spec: spec, vk: vk}, nil
}

// Verify is Spec.Verify with the key read.
func (v *Verifier) Verify(proof []byte) (ok bool, method string, err error) {
	return v.spec.Verify(v.vk, proof)
}

// Verify checks a proof the daemon returned for spec against its public
// values (Public): for PoRep, verify-seal from the C1's public values
// (comm_r, comm_d, ticket, seed, registered proof) with the prover id of
// the request's miner and its sector number; for test circuits, every
// partition proof against the circuit's public inputs; for PoSt and
// SnapDeals, against the inputs computed from the request's public values
// (VanillaSpec, FixtureSpec). method says which.
func (spec *Spec) Verify(vk *groth16.VerifyingKey, proof []byte) (ok bool, method string, err error) {
	if spec.Public == nil {
		return false, "", fmt.Errorf("%w: the public values of this %s request are unknown", ErrNoVerifier, spec.Kind())
	}
	ok, err = demo.Verify(vk, proof, spec.Public)
	return ok, spec.Method, err
}
