package circuit

import (
	"encoding/binary"
	"fmt"
)

// A minimal test-only reader of rust-fil-proofs' bincode (1.x: little-endian
// fixed-size integers, u64 lengths, u32 enum tags), enough to turn the
// harness's PartitionProof bytes into circuit inputs. The real
// decoder lives in package snap.

type binReader struct {
	b   []byte
	off int
	err error
}

func (r *binReader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("offset %d: %s: truncated", r.off, what)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *binReader) u64(what string) uint64 {
	s := r.take(8, what)
	if s == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(s)
}

func (r *binReader) u32(what string) uint32 {
	s := r.take(4, what)
	if s == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(s)
}

func (r *binReader) d32(what string) (d [32]byte) {
	copy(d[:], r.take(32, what))
	return d
}

// length reads a Vec length, bounded by what the remaining bytes can hold.
func (r *binReader) length(minElem int, what string) int {
	n := r.u64(what)
	if r.err == nil && n > uint64((len(r.b)-r.off)/minElem) {
		r.err = fmt.Errorf("offset %d: %s: length %d exceeds the input", r.off, what, n)
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

type binPathElem struct {
	hashes [][32]byte
	index  uint64
}

type binMerkleProof struct {
	root, leaf [32]byte
	path       []binPathElem // base, then sub, then top
}

func (r *binReader) inclusionPath(dst []binPathElem) []binPathElem {
	n := r.length(16, "path")
	for i := 0; i < n && r.err == nil; i++ {
		var e binPathElem
		m := r.length(32, "hashes")
		for j := 0; j < m; j++ {
			e.hashes = append(e.hashes, r.d32("hash"))
		}
		e.index = r.u64("index")
		dst = append(dst, e)
	}
	return dst
}

// merkleProof reads MerkleProof { data: ProofData }: 0 Single{root, leaf,
// path}, 1 Sub{base, sub, root, leaf}, 2 Top{base, sub, top, root, leaf}.
func (r *binReader) merkleProof() binMerkleProof {
	var p binMerkleProof
	switch tag := r.u32("proof tag"); tag {
	case 0:
		p.root, p.leaf = r.d32("root"), r.d32("leaf")
		p.path = r.inclusionPath(nil)
	case 1, 2:
		p.path = r.inclusionPath(nil)
		p.path = r.inclusionPath(p.path)
		if tag == 2 {
			p.path = r.inclusionPath(p.path)
		}
		p.root, p.leaf = r.d32("root"), r.d32("leaf")
	default:
		if r.err == nil {
			r.err = fmt.Errorf("offset %d: proof tag %d", r.off-4, tag)
		}
	}
	return p
}

type binChallengeProof struct {
	rOld, dNew, rNew binMerkleProof
}

type binPartitionProof struct {
	commC      [32]byte
	apexLeafs  [][32]byte
	challenges []binChallengeProof
}

// decodePartitionProof reads storage_proofs_update::PartitionProof:
// comm_c, apex_leafs, challenge_proofs (proof_r_old, proof_d_new,
// proof_r_new each a MerkleProof).
func decodePartitionProof(b []byte) (*binPartitionProof, error) {
	r := &binReader{b: b}
	p := &binPartitionProof{commC: r.d32("comm_c")}
	n := r.length(32, "apex_leafs")
	for i := 0; i < n; i++ {
		p.apexLeafs = append(p.apexLeafs, r.d32("apex_leaf"))
	}
	m := r.length(12, "challenge_proofs")
	for i := 0; i < m && r.err == nil; i++ {
		p.challenges = append(p.challenges, binChallengeProof{rOld: r.merkleProof(), dNew: r.merkleProof(), rNew: r.merkleProof()})
	}
	if r.err == nil && r.off != len(b) {
		r.err = fmt.Errorf("%d trailing bytes", len(b)-r.off)
	}
	return p, r.err
}
