package gadgets

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// NodeHasher hashes one group of Merkle-tree children in the circuit
// (filecoin-hashers HashFunction::hash_multi_leaf_circuit). The PoR gadget is
// generic over it.
type NodeHasher interface {
	HashNodes(cs *r1cs.CS, children []AllocatedNum) (AllocatedNum, error)
}

// PoseidonHasher is PoseidonFunction's circuit side: a node of arity a is
// PoseidonHash over its a children.
type PoseidonHasher struct{}

// HashNodes implements NodeHasher.
func (PoseidonHasher) HashNodes(cs *r1cs.CS, children []AllocatedNum) (AllocatedNum, error) {
	return PoseidonHash(cs, children)
}

// Hash2 is PoseidonFunction::hash2_circuit (and hash_leaf_circuit):
// Poseidon-2 of (a, b).
func (PoseidonHasher) Hash2(cs *r1cs.CS, a, b AllocatedNum) AllocatedNum {
	pre := [2]AllocatedNum{a, b}
	h, err := PoseidonHash(cs, pre[:])
	if err != nil {
		panic(err) // arity 2 always exists
	}
	return h
}

// Sha254Hasher is Sha256Function's circuit side ("SHA-254": SHA-256 with the
// digest read little-endian and truncated to 254 bits). It holds SHA-256
// scratch space: reuse one per synthesis goroutine.
type Sha254Hasher struct {
	sha  Sha256
	bits []Boolean // preimage bits
	tmp  []Boolean // a child's bits
	out  []Boolean // digest bits
}

// HashBits is Sha256Function::hash_circuit: SHA-256 of bits, the digest bits
// reversed within each byte (the digest bytes read as a little-endian
// integer), the first 254 packed into one number.
func (h *Sha254Hasher) HashBits(cs *r1cs.CS, bits []Boolean) AllocatedNum {
	h.out = h.sha.Hash(cs, h.out[:0], bits)
	le := h.tmp[:0]
	le = ReverseBitNumbering(le, h.out)
	h.tmp = le
	return PackBits(cs, le[:Capacity])
}

// HashNodes is Sha256Function::hash_multi_leaf_circuit (hash2_circuit for
// two children): each child in order becomes its 255 bits by to_bits_le, is
// padded with constant false to 256 and reversed within each byte (the
// child's little-endian bytes, most significant bit first); the
// concatenation goes through HashBits. A tree_d level costs 45,379 rows.
func (h *Sha254Hasher) HashNodes(cs *r1cs.CS, children []AllocatedNum) (AllocatedNum, error) {
	if len(children) == 0 {
		return AllocatedNum{}, fmt.Errorf("sha254 node of no children: %w", ErrArity)
	}
	h.bits = h.bits[:0]
	for _, c := range children {
		h.tmp = c.ToBitsLE(cs, h.tmp[:0])
		h.bits = ReverseBitNumbering(h.bits, h.tmp)
	}
	return h.HashBits(cs, h.bits), nil
}

// Hash2 is Sha256Function::hash2_circuit (and hash_leaf_circuit, which emits
// the same rows): HashNodes of (a, b).
func (h *Sha254Hasher) Hash2(cs *r1cs.CS, a, b AllocatedNum) AllocatedNum {
	pre := [2]AllocatedNum{a, b}
	n, _ := h.HashNodes(cs, pre[:])
	return n
}

// HashLeafBits is Sha256Function::hash_leaf_bits_circuit: left and right are
// each padded with constant false to whole bytes and reversed within each
// byte, then hashed by HashBits.
func (h *Sha254Hasher) HashLeafBits(cs *r1cs.CS, left, right []Boolean) AllocatedNum {
	h.bits = ReverseBitNumbering(h.bits[:0], left)
	h.bits = ReverseBitNumbering(h.bits, right)
	return h.HashBits(cs, h.bits)
}
