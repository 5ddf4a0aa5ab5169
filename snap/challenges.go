package snap

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/hash"
)

// frCapacity is Fr::CAPACITY, the bits of a digest challenges may use.
const frCapacity = 254

// Phi is φ = H(comm_d_new, comm_r_old), Poseidon-2 with the gen-randomness
// domain tag (vanilla.rs phi). comm_d_new must be a canonical element.
func Phi(commDNew [32]byte, commROld fr.Element) (fr.Element, error) {
	d, err := fr.LittleEndian.Element(&commDNew)
	if err != nil {
		return fr.Element{}, fmt.Errorf("%w: comm_d_new %x", ErrCommD, commDNew)
	}
	return hash.PoseidonGenRandomness(d, commROld), nil
}

// Rho is ρ = H(φ, high), high being the h high bits of a node index
// (vanilla.rs rho).
func Rho(phi fr.Element, high uint32) fr.Element {
	return hash.PoseidonGenRandomness(phi, fr.NewElement(uint64(high)))
}

// HighShift is the right shift that leaves a node index's h high bits:
// log2(nodes) - h.
func HighShift(p filecoin.RegisteredUpdateProof) int { return p.ChallengeBits() - p.H() }

// Challenges are the challenged node indices of partition k (challenges.rs
// Challenges::new): each digest H(comm_r_new, digest_index) (gen-randomness
// tag; digest_index counts across partitions, k·digests_per_partition + j)
// gives floor(254 / random_bits) challenges of random_bits = log2(nodes) -
// log2(partitions) little-endian bits each, with k appended as the high
// bits, so that partition k's challenges lie in its k-th slice of nodes.
func Challenges(p filecoin.RegisteredUpdateProof, commRNew fr.Element, k int) ([]uint32, error) {
	if !p.Valid() {
		return nil, fmt.Errorf("%w: %d", ErrRegisteredProof, int64(p))
	}
	if k < 0 || k >= p.Partitions() {
		return nil, fmt.Errorf("%w: %d of %d", ErrPartition, k, p.Partitions())
	}
	randomBits := p.ChallengeBits() - p.PartitionBits()
	perDigest := frCapacity / randomBits
	count := p.ChallengeCount()
	digestsPerPartition := (count + perDigest - 1) / perDigest
	partitionBits := uint32(k) << randomBits
	out := make([]uint32, count)
	digestIndex := k * digestsPerPartition
	var limbs [4]uint64
	for i := range out {
		j := i % perDigest
		if j == 0 {
			d := hash.PoseidonGenRandomness(commRNew, fr.NewElement(uint64(digestIndex)))
			limbs = d.Bits()
			digestIndex++
		}
		out[i] = uint32(bitsAt(&limbs, j*randomBits, randomBits)) | partitionBits
	}
	return out, nil
}

// bitsAt reads n <= 32 bits starting at bit start of a little-endian
// 256-bit integer.
func bitsAt(l *[4]uint64, start, n int) uint64 {
	w, s := start/64, start%64
	v := l[w] >> s
	if s+n > 64 && w+1 < 4 {
		v |= l[w+1] << (64 - s)
	}
	return v & (1<<n - 1)
}
