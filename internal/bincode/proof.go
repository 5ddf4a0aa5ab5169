package bincode

import (
	"fmt"

	"github.com/cuzk-dev/cuzk/merkle"
)

// Variants of storage-proofs-core's ProofData enum, its bincode tag.
const (
	VariantSingle uint32 = 0 // Single{root, leaf, path}
	VariantSub    uint32 = 1 // Sub{base_proof, sub_proof, root, leaf}
	VariantTop    uint32 = 2 // Top{base_proof, sub_proof, top_proof, root, leaf}
)

// Tree is the layout a Merkle proof must have: the tree shape (which picks
// the ProofData variant) and the arity of every level from the leaves up.
type Tree struct {
	Shape   merkle.Shape
	Arities []int
}

// NewTree is the layout of proofs in a tree of shape over leaves leaves.
func NewTree(shape merkle.Shape, leaves int) (Tree, error) {
	ar, err := shape.Arities(leaves)
	if err != nil {
		return Tree{}, err
	}
	return Tree{Shape: shape, Arities: ar}, nil
}

// Variant is the ProofData tag a proof in this tree carries: upstream picks
// Top when the tree has a top layer, Sub when it has a sub layer
// (MerkleProof::try_from_proof).
func (t Tree) Variant() uint32 {
	switch {
	case t.Shape.Top > 0:
		return VariantTop
	case t.Shape.Sub > 0:
		return VariantSub
	}
	return VariantSingle
}

// parts splits the level arities into the InclusionPath fields of the
// variant, in serialisation order.
func (t Tree) parts() (names []string, levels [][]int) {
	n := len(t.Arities)
	switch t.Variant() {
	case VariantTop:
		return []string{"base_proof", "sub_proof", "top_proof"}, [][]int{t.Arities[:n-2], t.Arities[n-2 : n-1], t.Arities[n-1:]}
	case VariantSub:
		return []string{"base_proof", "sub_proof"}, [][]int{t.Arities[:n-1], t.Arities[n-1:]}
	}
	return []string{"path"}, [][]int{t.Arities}
}

// EncodedSize is the exact size in bytes of one proof in this tree (every
// length is fixed by the shape).
func (t Tree) EncodedSize() int {
	names, levels := t.parts()
	size := 4 + 64 // tag, root and leaf
	for i := range names {
		size += 8
		for _, a := range levels[i] {
			size += 8 + 32*(a-1) + 8
		}
	}
	return size
}

func (t Tree) siblings() int {
	n := 0
	for _, a := range t.Arities {
		n += a - 1
	}
	return n
}

// ReadPoseidonProof reads a MerkleProof<PoseidonHasher, ...> laid out as t.
func ReadPoseidonProof(r *Reader, t Tree) (*merkle.PoseidonProof, error) {
	return readProof(r, t, (*Reader).Fr)
}

// ReadSha254Proof reads a MerkleProof<Sha256Hasher, U2> laid out as t.
func ReadSha254Proof(r *Reader, t Tree) (*merkle.Sha254Proof, error) {
	return readProof(r, t, (*Reader).Bytes32)
}

func readProof[N any](r *Reader, t Tree, node func(*Reader) (N, error)) (*merkle.Proof[N], error) {
	off := r.Offset()
	tag, err := r.U32()
	if err != nil {
		return nil, err
	}
	if want := t.Variant(); tag != want {
		return nil, r.Errorf(off, ErrVariant, "ProofData variant %d, tree %s uses %d", tag, t.Shape, want)
	}
	p := &merkle.Proof[N]{Path: make([]merkle.PathElement[N], len(t.Arities))}
	hashes := make([]N, t.siblings())
	names, levels := t.parts()
	if tag == VariantSingle {
		// Single serialises root and leaf before its path.
		if err := readRootLeaf(r, p, node); err != nil {
			return nil, err
		}
	}
	level := 0
	for i, name := range names {
		r.Push(name, -1)
		if _, err := r.Len(len(levels[i]), 1); err != nil {
			return nil, err
		}
		r.Pop()
		r.Push(name, 0)
		for j, a := range levels[i] {
			r.Index(j)
			e := &p.Path[level]
			e.Hashes, hashes = hashes[:a-1:a-1], hashes[a-1:]
			r.Push("hashes", -1)
			if _, err := r.Len(a-1, 32); err != nil {
				return nil, err
			}
			for k := range e.Hashes {
				if e.Hashes[k], err = node(r); err != nil {
					return nil, err
				}
			}
			r.Pop()
			r.Push("index", -1)
			ioff := r.Offset()
			idx, err := r.U64()
			if err != nil {
				return nil, err
			}
			if idx >= uint64(a) {
				return nil, r.Errorf(ioff, ErrIndex, "index %d, arity %d", idx, a)
			}
			r.Pop()
			e.Index = int(idx)
			level++
		}
		r.Pop()
	}
	if tag != VariantSingle {
		if err := readRootLeaf(r, p, node); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func readRootLeaf[N any](r *Reader, p *merkle.Proof[N], node func(*Reader) (N, error)) error {
	var err error
	r.Push("root", -1)
	if p.Root, err = node(r); err != nil {
		return err
	}
	r.Pop()
	r.Push("leaf", -1)
	if p.Leaf, err = node(r); err != nil {
		return err
	}
	r.Pop()
	return nil
}

// WritePoseidonProof appends p laid out as t.
func WritePoseidonProof(w *Writer, t Tree, p *merkle.PoseidonProof) error {
	return writeProof(w, t, p, (*Writer).Fr)
}

// WriteSha254Proof appends p laid out as t.
func WriteSha254Proof(w *Writer, t Tree, p *merkle.Sha254Proof) error {
	return writeProof(w, t, p, (*Writer).Bytes32)
}

func writeProof[N any](w *Writer, t Tree, p *merkle.Proof[N], node func(*Writer, *N)) error {
	if len(p.Path) != len(t.Arities) {
		return fmt.Errorf("bincode: proof has %d levels, tree %s has %d: %w", len(p.Path), t.Shape, len(t.Arities), merkle.ErrMalformedProof)
	}
	for l, e := range p.Path {
		if len(e.Hashes) != t.Arities[l]-1 || e.Index < 0 || e.Index >= t.Arities[l] {
			return fmt.Errorf("bincode: proof level %d does not fit arity %d: %w", l, t.Arities[l], merkle.ErrMalformedProof)
		}
	}
	tag := t.Variant()
	w.U32(tag)
	if tag == VariantSingle {
		node(w, &p.Root)
		node(w, &p.Leaf)
	}
	_, levels := t.parts()
	level := 0
	for _, part := range levels {
		w.Len(len(part))
		for range part {
			e := &p.Path[level]
			w.Len(len(e.Hashes))
			for k := range e.Hashes {
				node(w, &e.Hashes[k])
			}
			w.U64(uint64(e.Index))
			level++
		}
	}
	if tag != VariantSingle {
		node(w, &p.Root)
		node(w, &p.Leaf)
	}
	return nil
}
