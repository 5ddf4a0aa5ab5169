package bincode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/merkle"
)

// TestProofLayouts round-trips proofs of every ProofData variant and checks
// the serialisation order by hand: Single{root, leaf, path},
// Sub{base_proof, sub_proof, root, leaf}, Top{base_proof, sub_proof,
// top_proof, root, leaf}, each path a Vec of {hashes: Vec, index: u64}.
func TestProofLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		shape   merkle.Shape
		leaves  int
		variant uint32
		parts   []int // path elements per InclusionPath
	}{
		{merkle.ShapeBase, 64, VariantSingle, []int{2}},
		{merkle.ShapeSub8, 8 * 64, VariantSub, []int{2, 1}},
		{merkle.ShapeTop2, 16 * 8, VariantTop, []int{1, 1, 1}},
	}
	for _, c := range cases {
		leaves := make([]fr.Element, c.leaves)
		for i := range leaves {
			leaves[i].SetUint64(rng.Uint64())
		}
		tree, err := merkle.BuildPoseidon(c.shape, leaves, 1)
		if err != nil {
			t.Fatal(err)
		}
		lay, err := NewTree(c.shape, c.leaves)
		if err != nil {
			t.Fatal(err)
		}
		if lay.Variant() != c.variant {
			t.Fatalf("%s: variant %d", c.shape, lay.Variant())
		}
		idx := rng.IntN(c.leaves)
		p, _ := tree.Prove(idx)
		w := &Writer{}
		if err := WritePoseidonProof(w, lay, p); err != nil {
			t.Fatal(err)
		}
		if len(w.Buf) != lay.EncodedSize() {
			t.Fatalf("%s: %d bytes, EncodedSize %d", c.shape, len(w.Buf), lay.EncodedSize())
		}
		// Hand-written expected layout.
		var want []byte
		le := binary.LittleEndian
		want = le.AppendUint32(want, c.variant)
		fe := func(e *fr.Element) {
			b := e.Bytes()
			for i := 31; i >= 0; i-- {
				want = append(want, b[i])
			}
		}
		if c.variant == VariantSingle {
			fe(&p.Root)
			fe(&p.Leaf)
		}
		level := 0
		for _, n := range c.parts {
			want = le.AppendUint64(want, uint64(n))
			for range n {
				e := p.Path[level]
				want = le.AppendUint64(want, uint64(len(e.Hashes)))
				for k := range e.Hashes {
					fe(&e.Hashes[k])
				}
				want = le.AppendUint64(want, uint64(e.Index))
				level++
			}
		}
		if c.variant != VariantSingle {
			fe(&p.Root)
			fe(&p.Leaf)
		}
		if !bytes.Equal(w.Buf, want) {
			t.Fatalf("%s: layout differs from the hand-written one", c.shape)
		}
		r := NewReader(w.Buf)
		back, err := ReadPoseidonProof(r, lay)
		if err != nil || r.Done() != nil {
			t.Fatalf("%s: %v", c.shape, err)
		}
		if back.LeafIndex() != uint64(idx) || merkle.VerifyPoseidon(back, c.shape, c.leaves) != nil {
			t.Fatalf("%s: decoded proof does not verify", c.shape)
		}
		// Another shape's layout rejects it by variant.
		other := cases[(int(c.variant)+1)%3]
		olay, _ := NewTree(other.shape, other.leaves)
		if _, err := ReadPoseidonProof(NewReader(w.Buf), olay); !errors.Is(err, ErrVariant) || !errors.Is(err, ErrInvalid) {
			t.Fatalf("%s read as %s: %v", c.shape, other.shape, err)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	r := NewReader([]byte{1, 2, 3})
	r.Push("a", 2)
	r.Push("b", -1)
	if _, err := r.U64(); err == nil || err.Error() != "bincode: a[2].b: truncated: need 8 bytes, 3 left at offset 0" {
		t.Fatalf("got %v", err)
	}
	r = NewReader(binary.LittleEndian.AppendUint64(nil, 5))
	if _, err := r.Len(4, 1); !errors.Is(err, ErrLength) {
		t.Fatalf("got %v", err)
	}
	r = NewReader(binary.LittleEndian.AppendUint64(make([]byte, 0, 16), ^uint64(0)))
	if _, err := r.Len(-1, 32); !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v", err)
	}
	var nc [32]byte
	for i := range nc {
		nc[i] = 0xff
	}
	r = NewReader(nc[:])
	if _, err := r.Fr(); !errors.Is(err, ErrNotCanonical) {
		t.Fatalf("got %v", err)
	}
	r = NewReader([]byte{0})
	if err := r.Done(); !errors.Is(err, ErrTrailing) {
		t.Fatalf("got %v", err)
	}
	var e fr.Element
	e.SetUint64(0x0102)
	w := &Writer{}
	w.Fr(&e)
	if w.Buf[0] != 2 || w.Buf[1] != 1 || len(w.Buf) != 32 {
		t.Fatalf("Fr is not little-endian: %x", w.Buf)
	}
}
