package post

import (
	"context"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/sectordir"
)

// Verification sentinels. Each wraps ErrInvalidProof.
var (
	// ErrInvalidProof is wrapped by every vanilla verification failure.
	ErrInvalidProof = errors.New("post: invalid vanilla proof")
	// ErrSectorCount is returned when a partition has the wrong number of
	// sectors or a vanilla proof the wrong number of sector proofs.
	ErrSectorCount = fmt.Errorf("%w: wrong sector count", ErrInvalidProof)
	// ErrDuplicateSector is returned when a sector appears twice.
	ErrDuplicateSector = fmt.Errorf("%w: duplicate sector", ErrInvalidProof)
	// ErrChallengeCount is returned for the wrong number of inclusion proofs.
	ErrChallengeCount = fmt.Errorf("%w: wrong number of inclusion proofs", ErrInvalidProof)
	// ErrCommR is returned when Poseidon2(comm_c, comm_r_last) is not comm_r.
	ErrCommR = fmt.Errorf("%w: comm_r is not H(comm_c, comm_r_last)", ErrInvalidProof)
	// ErrCommRLast is returned when an inclusion proof's root is not the
	// sector's comm_r_last.
	ErrCommRLast = fmt.Errorf("%w: inclusion proof root is not comm_r_last", ErrInvalidProof)
	// ErrChallenge is returned when an inclusion proof opens another leaf
	// than the derived challenge.
	ErrChallenge = fmt.Errorf("%w: challenged leaf mismatch", ErrInvalidProof)
	// ErrMerklePath is returned when an inclusion path is malformed or does
	// not hash to its root.
	ErrMerklePath = fmt.Errorf("%w: inclusion path does not verify", ErrInvalidProof)
	// ErrPartition is returned for a partition index out of range.
	ErrPartition = fmt.Errorf("%w: bad partition index", ErrInvalidProof)
)

// PublicSector is a challenged sector's public data.
type PublicSector struct {
	ID    uint64
	CommR fr.Element
}

// Partition is everything one FallbackPoSt circuit proves, in the circuit's
// layout: exactly Proof.CircuitSectorCount() sectors and sector proofs of
// Proof.CircuitChallengeCount() inclusion proofs each. A Window partition's
// sectors are the given ones in order, padded by repeating the last; a
// Winning partition is the one sector's 66 challenges unrolled into 66
// one-challenge sectors (post_util.rs single_partition_vanilla_proofs).
type Partition struct {
	Proof      filecoin.RegisteredPoStProof
	Randomness [32]byte
	// Index is the partition index k that numbers the sectors in the
	// challenge derivation (sector index = k*sector_count + i, before V1_2).
	Index int
	// Real is the number of sectors before padding; padded entries repeat
	// sector Real-1 and are challenged as it is.
	Real    int
	Sectors []PublicSector
	Proofs  []SectorProof
}

func checkPoSt(p filecoin.RegisteredPoStProof, want filecoin.PoStType) error {
	if err := checkProof(p); err != nil {
		return err
	}
	if p.Type() != want {
		return fmt.Errorf("%w: %v is not a %v proof", ErrRegisteredProof, p, want)
	}
	return nil
}

// NewPartition assembles a Window (k is the partition index) or Winning
// (k must be 0) partition from the vanilla proofs Curio sends.
func NewPartition(p filecoin.RegisteredPoStProof, randomness [32]byte, vanilla []*VanillaProof, k int) (*Partition, error) {
	if p.Type() == filecoin.WinningPoSt {
		if k != 0 {
			return nil, fmt.Errorf("%w: winning proofs have partition 0 only, got %d", ErrPartition, k)
		}
		return NewWinningPartition(p, randomness, vanilla)
	}
	return NewWindowPartition(p, randomness, vanilla, k)
}

// NewWindowPartition assembles WindowPoSt partition k from one vanilla
// proof per sector (each with exactly one sector proof), in order.
//
// Note on k: upstream's generate_single_window_post_with_vanilla verifies
// the vanilla proofs with k = partition_index but builds the circuit (and
// its public inputs) as partition 0; the two agree only for V1_2, the
// version the network uses. Pass the k the challenges were derived with.
func NewWindowPartition(p filecoin.RegisteredPoStProof, randomness [32]byte, vanilla []*VanillaProof, k int) (*Partition, error) {
	if err := checkPoSt(p, filecoin.WindowPoSt); err != nil {
		return nil, err
	}
	if err := CheckRandomness(randomness); err != nil {
		return nil, err
	}
	n := p.CircuitSectorCount()
	if len(vanilla) == 0 || len(vanilla) > n {
		return nil, fmt.Errorf("%w: %d vanilla proofs, a %v partition holds 1..%d", ErrSectorCount, len(vanilla), p, n)
	}
	if k < 0 {
		return nil, fmt.Errorf("%w: %d", ErrPartition, k)
	}
	pt := &Partition{Proof: p, Randomness: randomness, Index: k, Real: len(vanilla),
		Sectors: make([]PublicSector, 0, n), Proofs: make([]SectorProof, 0, n)}
	seen := make(map[uint64]int, len(vanilla))
	for i, v := range vanilla {
		if j, dup := seen[v.SectorID]; dup {
			return nil, fmt.Errorf("vanilla_proofs[%d]: sector %d also at %d: %w", i, v.SectorID, j, ErrDuplicateSector)
		}
		seen[v.SectorID] = i
		if len(v.Sectors) != 1 {
			return nil, fmt.Errorf("vanilla_proofs[%d] (sector %d): %d sector proofs, want 1: %w", i, v.SectorID, len(v.Sectors), ErrSectorCount)
		}
		pt.Sectors = append(pt.Sectors, PublicSector{ID: v.SectorID, CommR: v.CommR})
		pt.Proofs = append(pt.Proofs, v.Sectors[0])
	}
	pt.pad()
	return pt, nil
}

func (pt *Partition) pad() {
	n := pt.Proof.CircuitSectorCount()
	for len(pt.Sectors) < n {
		pt.Sectors = append(pt.Sectors, pt.Sectors[len(pt.Sectors)-1])
		pt.Proofs = append(pt.Proofs, pt.Proofs[len(pt.Proofs)-1])
	}
}

// NewWinningPartition unrolls the one vanilla proof of a WinningPoSt (one
// sector proof with 66 inclusion proofs) into the circuit's 66
// one-challenge sectors.
func NewWinningPartition(p filecoin.RegisteredPoStProof, randomness [32]byte, vanilla []*VanillaProof) (*Partition, error) {
	if err := checkPoSt(p, filecoin.WinningPoSt); err != nil {
		return nil, err
	}
	if err := CheckRandomness(randomness); err != nil {
		return nil, err
	}
	if len(vanilla) != p.SectorCount() {
		return nil, fmt.Errorf("%w: %d vanilla proofs, winning takes %d", ErrSectorCount, len(vanilla), p.SectorCount())
	}
	v := vanilla[0]
	if len(v.Sectors) != 1 {
		return nil, fmt.Errorf("vanilla_proofs[0] (sector %d): %d sector proofs, want 1: %w", v.SectorID, len(v.Sectors), ErrSectorCount)
	}
	sp := &v.Sectors[0]
	n := p.CircuitSectorCount()
	if len(sp.InclusionProofs) != p.ChallengeCount() {
		return nil, fmt.Errorf("vanilla_proofs[0].sectors[0].inclusion_proofs: %d, want %d: %w", len(sp.InclusionProofs), p.ChallengeCount(), ErrChallengeCount)
	}
	pt := &Partition{Proof: p, Randomness: randomness, Real: n,
		Sectors: make([]PublicSector, n), Proofs: make([]SectorProof, n)}
	for i, ip := range sp.InclusionProofs {
		pt.Sectors[i] = PublicSector{ID: v.SectorID, CommR: v.CommR}
		pt.Proofs[i] = SectorProof{InclusionProofs: []*merkle.PoseidonProof{ip}, CommC: sp.CommC, CommRLast: sp.CommRLast}
	}
	return pt, nil
}

// SectorChallenges are the leaves the circuit's sector i opens (i < the
// circuit sector count; padded sectors are challenged as sector Real-1).
func SectorChallenges(p filecoin.RegisteredPoStProof, randomness *[32]byte, sectorID uint64, k, i int) []uint64 {
	cc := p.CircuitChallengeCount()
	leaves := p.SectorSize().Nodes()
	sectorIndex := k*p.CircuitSectorCount() + i
	out := make([]uint64, cc)
	for n := range out {
		out[n] = LeafChallenge(randomness, sectorID, ChallengeIndex(p.APIVersion(), sectorIndex, cc, n), leaves)
	}
	return out
}

// Challenges are the leaves sector i of the partition must open.
func (pt *Partition) Challenges(i int) []uint64 {
	j := min(i, pt.Real-1)
	return SectorChallenges(pt.Proof, &pt.Randomness, pt.Sectors[j].ID, pt.Index, j)
}

// PublicInputs is FallbackPoStCompound::generate_public_inputs without
// ONE: for each of the circuit's sectors its comm_r, then the challenged
// leaf index of each challenge as a field element. sectors are the real
// sectors of partition k in order (at most the circuit's sector count);
// the last is repeated to fill the circuit, as upstream does.
func PublicInputs(p filecoin.RegisteredPoStProof, randomness [32]byte, sectors []PublicSector, k int) ([]fr.Element, error) {
	if err := checkProof(p); err != nil {
		return nil, err
	}
	if err := CheckRandomness(randomness); err != nil {
		return nil, err
	}
	n := p.CircuitSectorCount()
	if len(sectors) == 0 || len(sectors) > n {
		return nil, fmt.Errorf("%w: %d sectors, a %v circuit holds 1..%d", ErrSectorCount, len(sectors), p, n)
	}
	if k < 0 || p.Type() == filecoin.WinningPoSt && k != 0 {
		return nil, fmt.Errorf("%w: %d", ErrPartition, k)
	}
	per := 1 + p.CircuitChallengeCount()
	out := make([]fr.Element, 0, n*per)
	for i, s := range sectors {
		out = append(out, s.CommR)
		for _, c := range SectorChallenges(p, &randomness, s.ID, k, i) {
			var e fr.Element
			e.SetUint64(c)
			out = append(out, e)
		}
	}
	last := out[len(out)-per:]
	for len(out) < n*per {
		out = append(out, last...)
	}
	return out, nil
}

// WinningPublicSectors is the public sector list of a WinningPoSt circuit:
// the one sector repeated for each of the 66 unrolled challenges, as
// verify_winning_post builds it.
func WinningPublicSectors(p filecoin.RegisteredPoStProof, s PublicSector) []PublicSector {
	out := make([]PublicSector, p.CircuitSectorCount())
	for i := range out {
		out[i] = s
	}
	return out
}

// PublicInputs of the partition's circuit (see the function PublicInputs).
func (pt *Partition) PublicInputs() ([]fr.Element, error) {
	return PublicInputs(pt.Proof, pt.Randomness, pt.Sectors[:pt.Real], pt.Index)
}

// Verify checks the partition as FallbackPoSt::verify does, every sector of
// the circuit included (padding that shares the last real sector's proofs
// is not verified twice): per sector
// comm_r = Poseidon2(comm_c, comm_r_last), the circuit's number of
// inclusion proofs, each rooted at comm_r_last (upstream takes the first
// proof's root; the comm_r_last field must equal it too), of the right
// path length, hashing to its root and opening the derived challenge.
// It uses up to workers goroutines and stops early when ctx is done.
func (pt *Partition) Verify(ctx context.Context, workers int) error {
	p := pt.Proof
	if err := checkProof(p); err != nil {
		return err
	}
	if err := CheckRandomness(pt.Randomness); err != nil {
		return err
	}
	n := p.CircuitSectorCount()
	if len(pt.Sectors) != n || len(pt.Proofs) != n || pt.Real < 1 || pt.Real > n {
		return fmt.Errorf("%w: partition has %d sectors, %d proofs, %d real; circuit takes %d", ErrSectorCount, len(pt.Sectors), len(pt.Proofs), pt.Real, n)
	}
	if pt.Index < 0 {
		return fmt.Errorf("%w: %d", ErrPartition, pt.Index)
	}
	shape, err := TreeShape(p.SectorSize())
	if err != nil {
		return err
	}
	leaves := int(p.SectorSize().Nodes())
	// One sector per chunk, handed out in order: par.Do reports the lowest
	// failing sector, for a deterministic message.
	return par.Do(ctx, n, 1, workers, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			if pt.isPadding(i) {
				continue
			}
			if err := pt.verifySector(i, shape, leaves); err != nil {
				return err
			}
		}
		return nil
	})
}

// isPadding reports whether sector i repeats sector Real-1 exactly (the
// same inclusion proof values), so that verifying it again would only
// repeat work: a full 32 GiB partition padded from one sector would
// otherwise verify 23,490 paths.
func (pt *Partition) isPadding(i int) bool {
	if i < pt.Real {
		return false
	}
	a, b := &pt.Proofs[i], &pt.Proofs[pt.Real-1]
	if pt.Sectors[i] != pt.Sectors[pt.Real-1] || a.CommC != b.CommC || a.CommRLast != b.CommRLast || len(a.InclusionProofs) != len(b.InclusionProofs) {
		return false
	}
	for j := range a.InclusionProofs {
		if a.InclusionProofs[j] != b.InclusionProofs[j] {
			return false
		}
	}
	return true
}

func (pt *Partition) verifySector(i int, shape merkle.Shape, leaves int) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("sectors[%d] (sector %d): "+format, append([]any{i, pt.Sectors[i].ID}, args...)...)
	}
	s, sp := &pt.Sectors[i], &pt.Proofs[i]
	if want := pt.Proof.CircuitChallengeCount(); len(sp.InclusionProofs) != want {
		return fail("%d inclusion proofs, want %d: %w", len(sp.InclusionProofs), want, ErrChallengeCount)
	}
	commRLast := sp.InclusionProofs[0].Root
	if commRLast != sp.CommRLast {
		return fail("inclusion_proofs[0] root differs from comm_r_last: %w", ErrCommRLast)
	}
	if sectordir.CommR(sp.CommC, commRLast) != s.CommR {
		return fail("%w", ErrCommR)
	}
	challenges := pt.Challenges(i)
	for j, ip := range sp.InclusionProofs {
		if ip.Root != commRLast {
			return fail("inclusion_proofs[%d]: %w", j, ErrCommRLast)
		}
		if err := merkle.VerifyPoseidon(ip, shape, leaves); err != nil {
			return fail("inclusion_proofs[%d]: %w: %w", j, ErrMerklePath, err)
		}
		if got := ip.LeafIndex(); got != challenges[j] {
			return fail("inclusion_proofs[%d] opens leaf %d, challenge is %d: %w", j, got, challenges[j], ErrChallenge)
		}
	}
	return nil
}

// ErrSectorMismatch is returned when a partition's sectors are not the
// expected ones.
var ErrSectorMismatch = fmt.Errorf("%w: sectors differ from the expected ones", ErrInvalidProof)

// CheckSectors fails with ErrSectorMismatch unless the partition's real
// sectors are want, in order (ids and comm_r).
func (pt *Partition) CheckSectors(want []PublicSector) error {
	got := pt.Sectors[:pt.Real]
	if pt.Proof.Type() == filecoin.WinningPoSt {
		got = got[:1] // the unrolled copies of the one sector
	}
	if len(got) != len(want) {
		return fmt.Errorf("%w: %d sectors, want %d", ErrSectorMismatch, len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID {
			return fmt.Errorf("%w: sectors[%d] is sector %d, want %d", ErrSectorMismatch, i, got[i].ID, want[i].ID)
		}
		if got[i].CommR != want[i].CommR {
			return fmt.Errorf("%w: sectors[%d] (sector %d): comm_r differs", ErrSectorMismatch, i, got[i].ID)
		}
	}
	return nil
}
