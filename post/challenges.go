package post

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// ErrRandomness is returned for randomness (or a prover id) that is not a
// canonical field element; filecoin-proofs rejects it in
// as_safe_commitment. The chain's randomness has its top two bits cleared
// by the caller (Lotus/Curio) before it gets here.
var ErrRandomness = errors.New("post: randomness is not a canonical field element")

// ErrSectorSet is returned for an empty winning sector set.
var ErrSectorSet = errors.New("post: empty sector set")

// CheckRandomness fails with ErrRandomness unless b encodes a canonical
// field element (little-endian).
func CheckRandomness(b [32]byte) error {
	if _, err := fr.LittleEndian.Element(&b); err != nil {
		return fmt.Errorf("%w: %x", ErrRandomness, b)
	}
	return nil
}

// ChallengeIndex is get_challenge_index: the index hashed into the leaf
// challenge of challenge n of the sector at sectorIndex (its position
// across all partitions). Api V1_2 dropped the sector index, which made
// the challenges of a sector independent of its place in the proof.
func ChallengeIndex(v filecoin.APIVersion, sectorIndex, challengeCount, n int) uint64 {
	if v == filecoin.V1_2_0 {
		return uint64(n)
	}
	return uint64(sectorIndex*challengeCount + n)
}

// LeafChallenge is generate_leaf_challenge: the challenged tree_r_last
// leaf, u64_le(sha256(randomness ‖ u64_le(sector) ‖ u64_le(index))[0..8])
// mod leaves.
func LeafChallenge(randomness *[32]byte, sectorID, index, leaves uint64) uint64 {
	var buf [32 + 8 + 8]byte
	copy(buf[:32], randomness[:])
	binary.LittleEndian.PutUint64(buf[32:], sectorID)
	binary.LittleEndian.PutUint64(buf[40:], index)
	d := sha256.Sum256(buf[:])
	return binary.LittleEndian.Uint64(d[:8]) % leaves
}

// VanillaChallenges are the leaves a vanilla proof of sectorID must open,
// as generate_fallback_sector_challenges derives them for the proof's
// post_config (challenge_count 10 for window, 66 for winning, one sector
// for winning). sectorIndex is the sector's position among all sectors of
// the proof (partition*sector_count + i); it only matters before V1_2 and
// is 0 for winning.
func VanillaChallenges(p filecoin.RegisteredPoStProof, randomness [32]byte, sectorID uint64, sectorIndex int) ([]uint64, error) {
	if err := checkProof(p); err != nil {
		return nil, err
	}
	if err := CheckRandomness(randomness); err != nil {
		return nil, err
	}
	n := p.ChallengeCount()
	leaves := p.SectorSize().Nodes()
	out := make([]uint64, n)
	for i := range out {
		out[i] = LeafChallenge(&randomness, sectorID, ChallengeIndex(p.APIVersion(), sectorIndex, n, i), leaves)
	}
	return out, nil
}

// WinningSectorChallenges is generate_winning_post_sector_challenge: the
// indices in 0..sectorSetSize of the sectors a WinningPoSt proves
// (WinningPoStSectorCount of them): u64_le(sha256(prover_id ‖ randomness ‖
// u64_le(n))[0..8]) mod sectorSetSize.
func WinningSectorChallenges(p filecoin.RegisteredPoStProof, randomness, proverID [32]byte, sectorSetSize uint64) ([]uint64, error) {
	if err := checkProof(p); err != nil {
		return nil, err
	}
	if p.Type() != filecoin.WinningPoSt {
		return nil, fmt.Errorf("%w: %v is not a winning proof", ErrRegisteredProof, p)
	}
	if sectorSetSize == 0 {
		return nil, ErrSectorSet
	}
	if err := CheckRandomness(randomness); err != nil {
		return nil, err
	}
	if err := CheckRandomness(proverID); err != nil {
		return nil, fmt.Errorf("prover id: %w", err)
	}
	out := make([]uint64, p.SectorCount())
	var buf [32 + 32 + 8]byte
	copy(buf[:32], proverID[:])
	copy(buf[32:64], randomness[:])
	for n := range out {
		binary.LittleEndian.PutUint64(buf[64:], uint64(n))
		d := sha256.Sum256(buf[:])
		out[n] = binary.LittleEndian.Uint64(d[:8]) % sectorSetSize
	}
	return out, nil
}
