package porep

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"

	"golang.org/x/crypto/blake2b"
	"golang.org/x/crypto/chacha20"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// challengeFromDigest maps 32 bytes read as a little-endian integer x to
// (x mod (nodes-1)) + 1 (bigint_to_challenge): never node 0.
func challengeFromDigest(x *[32]byte, nodes uint64) uint64 {
	m := nodes - 1
	var r uint64
	for i := 3; i >= 0; i-- {
		// r < m, so the quotient fits and Div64 cannot panic.
		_, r = bits.Div64(r, binary.LittleEndian.Uint64(x[8*i:]), m)
	}
	return r + 1
}

// InteractiveChallenges are the n challenges of partition k of an
// interactive PoRep (InteractiveChallenges::derive): for j = k·n + i (u32),
// sha256(replica_id || seed || j LE) mapped into [1, nodes).
func InteractiveChallenges(nodes uint64, replicaID, seed [32]byte, k, n int) []uint64 {
	out := make([]uint64, n)
	var buf [68]byte
	copy(buf[:32], replicaID[:])
	copy(buf[32:64], seed[:])
	for i := range out {
		binary.LittleEndian.PutUint32(buf[64:], uint32(n*k+i))
		d := sha256.Sum256(buf[:])
		out[i] = challengeFromDigest(&d, nodes)
	}
	return out
}

// niTag is the NI-PoRep challenge domain separator.
const niTag = "filecoin.io|PoRep|1|NonInteractive|1"

// NIChallenges are the n challenges of partition k of a non-interactive
// PoRep (NiChallenges::derive): sha256(tag || replica_id || comm_r || j LE)
// with j = k·n + i.
func NIChallenges(nodes uint64, replicaID, commR [32]byte, k, n int) []uint64 {
	out := make([]uint64, n)
	buf := make([]byte, 0, len(niTag)+68)
	buf = append(buf, niTag...)
	buf = append(buf, replicaID[:]...)
	buf = append(buf, commR[:]...)
	buf = append(buf, 0, 0, 0, 0)
	for i := range out {
		binary.LittleEndian.PutUint32(buf[len(buf)-4:], uint32(n*k+i))
		d := sha256.Sum256(buf)
		out[i] = challengeFromDigest(&d, nodes)
	}
	return out
}

// Synthetic PoRep constants (challenges.rs, mod synthetic).
const (
	// DefaultSynthChallenges caps the synthetic challenge count.
	DefaultSynthChallenges = 1 << 18
	synthGenTag            = "filecoin.io|PoRep|1|Synthetic|1|Generation"
	synthSelectTag         = "filecoin.io|PoRep|1|Synthetic|1|Selection"
	synthNonce             = "synth-porep\x00"
	synthChallengeSize     = 32
	synthIndexSize         = 4
)

// SynthChallenges generates synthetic PoRep challenges
// (SynthChallengeGenerator). Synthetic challenge i is the 32 bytes at
// keystream offset 32·i of ChaCha20 keyed with blake2b-256 keyed by the
// generation tag over replica_id || comm_r, mapped into [1, nodes). The
// PoRep challenges of a partition are synthetic challenges picked by u32 LE
// indexes from a second ChaCha20 keyed with the selection tag over
// replica_id || seed.
type SynthChallenges struct {
	nodes     uint64
	count     int
	replicaID [32]byte
	genKey    [32]byte
}

// NewSynthChallenges is SynthChallengeGenerator::default: min(nodes, 2^18)
// synthetic challenges.
func NewSynthChallenges(nodes uint64, replicaID, commR [32]byte) *SynthChallenges {
	return NewSynthChallengesN(nodes, replicaID, commR, int(min(nodes, DefaultSynthChallenges)))
}

// NewSynthChallengesN is SynthChallengeGenerator::new with an explicit
// count (upstream's hard-coded test vector uses 21).
func NewSynthChallengesN(nodes uint64, replicaID, commR [32]byte, count int) *SynthChallenges {
	return &SynthChallenges{nodes: nodes, count: count, replicaID: replicaID, genKey: blake2bKey(synthGenTag, replicaID, commR)}
}

func blake2bKey(tag string, a, b [32]byte) [32]byte {
	h, err := blake2b.New(32, []byte(tag))
	if err != nil {
		panic(err) // the tags are shorter than blake2b's 64-byte key limit
	}
	h.Write(a[:])
	h.Write(b[:])
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// keystream returns n bytes of ChaCha20(key, synth nonce) from byte offset
// off (what chacha20's try_seek then apply_keystream give).
func keystream(key *[32]byte, off uint64, n int) []byte {
	c, err := chacha20.NewUnauthenticatedCipher(key[:], []byte(synthNonce))
	if err != nil {
		panic(err) // fixed key and nonce sizes
	}
	c.SetCounter(uint32(off / 64))
	skip := int(off % 64)
	buf := make([]byte, skip+n)
	c.XORKeyStream(buf, buf)
	return buf[skip:]
}

// Count is the number of synthetic challenges.
func (s *SynthChallenges) Count() int { return s.count }

// Challenge is synthetic challenge i (gen_synth_challenge); i < Count().
func (s *SynthChallenges) Challenge(i int) uint64 {
	var x [32]byte
	copy(x[:], keystream(&s.genKey, uint64(i)*synthChallengeSize, synthChallengeSize))
	return challengeFromDigest(&x, s.nodes)
}

// All lists every synthetic challenge in order.
func (s *SynthChallenges) All() []uint64 {
	ks := keystream(&s.genKey, 0, s.count*synthChallengeSize)
	out := make([]uint64, s.count)
	for i := range out {
		out[i] = challengeFromDigest((*[32]byte)(ks[i*synthChallengeSize:]), s.nodes)
	}
	return out
}

// Indexes are the synthetic challenge indexes selected for the n PoRep
// challenges of partition k (gen_partition_synth_indexes).
func (s *SynthChallenges) Indexes(seed [32]byte, k, n int) []int {
	key := blake2bKey(synthSelectTag, s.replicaID, seed)
	ks := keystream(&key, uint64(k*n)*synthIndexSize, n*synthIndexSize)
	out := make([]int, n)
	for i := range out {
		out[i] = int(uint64(binary.LittleEndian.Uint32(ks[synthIndexSize*i:])) % uint64(s.count))
	}
	return out
}

// PoRepChallenges are the n challenges of partition k
// (gen_porep_partition_challenges).
func (s *SynthChallenges) PoRepChallenges(seed [32]byte, k, n int) []uint64 {
	idx := s.Indexes(seed, k, n)
	out := make([]uint64, n)
	for i, j := range idx {
		out[i] = s.Challenge(j)
	}
	return out
}

// Challenges are the challenges of partition k in c's mode
// (PublicInputs::challenges): interactive ones need the seed, NI ones
// comm_r, synthetic ones both.
func (c Config) Challenges(replicaID, commR, seed [32]byte, k int) ([]uint64, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.checkPartition(k); err != nil {
		return nil, err
	}
	n, nodes := c.ChallengesPerPartition(), c.Nodes()
	switch c.Mode {
	case filecoin.Interactive:
		return InteractiveChallenges(nodes, replicaID, seed, k, n), nil
	case filecoin.Synthetic:
		return NewSynthChallenges(nodes, replicaID, commR).PoRepChallenges(seed, k, n), nil
	case filecoin.NonInteractive:
		return NIChallenges(nodes, replicaID, commR, k, n), nil
	}
	return nil, fmt.Errorf("%w: mode %v", ErrConfig, c.Mode)
}
