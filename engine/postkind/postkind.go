package postkind

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/post/circuit"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// ErrChallengeMismatch is returned (wrapped, with engine.ErrInvalidRequest)
// when the leaves the vanilla proofs open are not the challenges derived
// from the randomness.
var ErrChallengeMismatch = errors.New("challenged leaf mismatch")

// Planner plans requests of one PoSt type.
type Planner struct {
	// Type is filecoin.WindowPoSt or filecoin.WinningPoSt.
	Type filecoin.PoStType
	// Workers bounds the goroutines of the native vanilla check (0:
	// GOMAXPROCS).
	Workers int
}

// Window is the Planner of WINDOW_POST_PARTITION requests.
func Window() *Planner { return &Planner{Type: filecoin.WindowPoSt} }

// Winning is the Planner of WINNING_POST requests.
func Winning() *Planner { return &Planner{Type: filecoin.WinningPoSt} }

// kindOf is the proof kind of a PoSt type's requests.
func kindOf(t filecoin.PoStType) proofkind.Kind {
	if t == filecoin.WinningPoSt {
		return proofkind.WinningPoSt
	}
	return proofkind.WindowPoSt
}

// name is the kind's queue name, the prefix of its error messages.
func (k *Planner) name() string { return kindOf(k.Type).String() }

// invalid is engine.Invalid of the planner's kind; the cause stays
// matchable (post.ErrChallenge, post.ErrDecode, ...).
func (k *Planner) invalid(format string, args ...any) error {
	return engine.Invalid(k.name(), format, args...)
}

// NewRequest is the request the planner of p's type reads: a WindowPoSt
// partition (partition, one vanilla proof per sector) or a WinningPoSt
// (partition 0, one vanilla proof), with the randomness as given (Plan
// checks its length and canonicity) for miner. oneshot, demo and the
// tests build their requests here rather than by hand.
func NewRequest(p filecoin.RegisteredPoStProof, randomness []byte, partition uint32, miner uint64, vanilla [][]byte) *engine.Request {
	return &engine.Request{Kind: kindOf(p.Type()), RegisteredProof: uint64(p), SectorSize: uint64(p.SectorSize()), MinerID: miner,
		Randomness: randomness, PartitionIndex: partition, VanillaProofs: vanilla}
}

func isContext(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Plan implements engine.Planner.
func (k *Planner) Plan(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
	if k.Type != filecoin.WindowPoSt && k.Type != filecoin.WinningPoSt {
		return nil, fmt.Errorf("postkind: Planner.Type %v is neither window nor winning", k.Type)
	}
	p, err := filecoin.PoStProofFromID(req.RegisteredProof)
	if err != nil {
		return nil, k.invalid("registered_proof: %w", err)
	}
	if p.Type() != k.Type {
		return nil, k.invalid("registered_proof %d is %v, a %v proof; %s requests take %s", req.RegisteredProof, p, p.Type(), k.name(), k.proofRange())
	}
	size := p.SectorSize()
	if req.SectorSize != 0 && req.SectorSize != uint64(size) {
		return nil, k.invalid("sector_size %d does not match registered_proof %v (%d bytes)", req.SectorSize, p, uint64(size))
	}
	if len(req.Randomness) != 32 {
		return nil, k.invalid("randomness is %d bytes, want exactly 32", len(req.Randomness))
	}
	rnd := [32]byte(req.Randomness)
	if err := post.CheckRandomness(rnd); err != nil {
		return nil, k.invalid("randomness: %w", err)
	}
	part := int(req.PartitionIndex)
	n := len(req.VanillaProofs)
	switch {
	case k.Type == filecoin.WinningPoSt && part != 0:
		return nil, k.invalid("partition_index %d: a WinningPoSt has partition 0 only", part)
	case k.Type == filecoin.WinningPoSt && n != p.SectorCount():
		return nil, k.invalid("vanilla_proofs has %d entries, a WinningPoSt proves exactly %d sector", n, p.SectorCount())
	case n == 0:
		return nil, k.invalid("vanilla_proofs is empty: a %v partition takes one entry per sector (1..%d)", p, p.SectorCount())
	case n > p.SectorCount():
		return nil, k.invalid("vanilla_proofs has %d entries, a %v partition holds at most %d sectors", n, p, p.SectorCount())
	}
	vs, err := post.DecodeVanillaProofs(req.VanillaProofs, p)
	if err != nil {
		return nil, k.invalid("%w", err)
	}
	pt, err := post.NewPartition(p, rnd, vs, part)
	if err != nil {
		return nil, k.invalid("%w", err)
	}
	workers := k.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := pt.Verify(ctx, workers); err != nil {
		if isContext(err) {
			return nil, err
		}
		return nil, k.invalid("vanilla_proofs check (partition %d): %w", part, err)
	}

	// The verifier's public inputs, from public values alone: the
	// randomness, the partition index and each sector's id and comm_r
	// (post.VerifyProof's).
	pub := post.NewPublic(p, rnd, part, vs)
	all, err := pub.Inputs()
	if err != nil {
		return nil, k.invalid("public inputs: %w", err)
	}
	inputs := all[0]

	dims, err := circuit.DimsOf(p)
	if err != nil {
		return nil, k.invalid("%w", err)
	}
	sectors, err := circuit.FromPartition(dims, pt)
	if err != nil {
		return nil, k.invalid("%w", err)
	}
	c, err := circuit.New(dims, sectors)
	if err != nil {
		return nil, k.invalid("%w", err)
	}
	// The circuit packs the leaf index of each path into a public input;
	// they must be the derived challenges (the native check above already
	// compared them, this keeps the circuit and the inputs tied).
	if err := sameInputs(c.PublicInputs(), inputs, dims.Challenges); err != nil {
		return nil, k.invalid("%w", err)
	}
	return &engine.Plan{
		CircuitID:  string(p.CircuitID()),
		Partitions: []engine.Partition{{Circuit: c, PublicInputs: inputs}},
	}, nil
}

// proofRange names the registered proofs of the kind.
func (k *Planner) proofRange() string {
	if k.Type == filecoin.WinningPoSt {
		return "0..4 (StackedDrgWinning*)"
	}
	return "5..14 (StackedDrgWindow*)"
}

// sameInputs compares the circuit's public inputs with the derived ones,
// naming the first difference by sector and challenge.
func sameInputs(got, want []fr.Element, challenges int) error {
	i, err := engine.FirstDifference(got, want)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrChallengeMismatch, err)
	case i < 0:
		return nil
	}
	per := 1 + challenges
	s, j := i/per, i%per
	if j == 0 {
		return fmt.Errorf("%w: circuit sector %d: comm_r differs from the public one", ErrChallengeMismatch, s)
	}
	return fmt.Errorf("%w: circuit sector %d challenge %d opens leaf %s, the challenge is %s", ErrChallengeMismatch, s, j-1, got[i].String(), want[i].String())
}
