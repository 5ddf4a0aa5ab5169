package gadgets

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func frLE(t testing.TB, b [32]byte) fr.Element {
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSha254Hash2(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	x, y := randFr(rng), randFr(rng)
	var h Sha254Hasher
	build := func(cs *r1cs.CS) AllocatedNum {
		return h.Hash2(cs, AllocNum(cs, x), AllocNum(cs, y))
	}
	cs, ts := testCS(false)
	out := build(cs)
	requireSatisfied(t, ts)
	// 2×(255 bits + unpacking row) + SHA-256 of 512 bits of which the two pad
	// bits are constants (44,866) + packing row.
	if cs.NumConstraints() != 45379 {
		t.Errorf("hash2: %d rows, want 45379", cs.NumConstraints())
	}
	var xb, yb [32]byte
	fr.LittleEndian.PutElement(&xb, x)
	fr.LittleEndian.PutElement(&yb, y)
	want := frLE(t, hash.Sha254Pair(&xb, &yb))
	if !out.Val.Equal(&want) {
		t.Fatalf("circuit %s, native %s", out.Val.String(), want.String())
	}
	checkCorruptionDetected(t, func(cs *r1cs.CS) { build(cs) }, 0, 3, 600, -1)
}

// rust-fil-proofs util.rs hash_leaf_bits_circuit: 45,387 rows including the
// 512 input bit allocations (bytes_into_boolean_vec of two Fr reprs).
func TestSha254HashLeafBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	x, y := randFr(rng), randFr(rng)
	var xb, yb [32]byte
	fr.LittleEndian.PutElement(&xb, x)
	fr.LittleEndian.PutElement(&yb, y)
	cs, ts := testCS(false)
	left := AllocBytesLE(cs, nil, xb[:])
	right := AllocBytesLE(cs, nil, yb[:])
	var h Sha254Hasher
	out := h.HashLeafBits(cs, left, right)
	requireSatisfied(t, ts)
	if cs.NumConstraints() != 45387 {
		t.Errorf("hash_leaf_bits_circuit: %d rows, want 45387", cs.NumConstraints())
	}
	want := frLE(t, hash.Sha254Pair(&xb, &yb))
	if !out.Val.Equal(&want) {
		t.Fatalf("circuit %s, native %s", out.Val.String(), want.String())
	}
}

func pathFromPoseidon(p *merkle.PoseidonProof) []PathElement {
	out := make([]PathElement, len(p.Path))
	for i, e := range p.Path {
		out[i] = PathElement{Siblings: e.Hashes, Index: e.Index}
	}
	return out
}

func pathFromSha(t testing.TB, p *merkle.Sha254Proof) []PathElement {
	out := make([]PathElement, len(p.Path))
	for i, e := range p.Path {
		sib := make([]fr.Element, len(e.Hashes))
		for k, h := range e.Hashes {
			sib[k] = frLE(t, h)
		}
		out[i] = PathElement{Siblings: sib, Index: e.Index}
	}
	return out
}

// rust-fil-proofs tests/por_circuit.rs: PoR over 64 leaves per base tree,
// public root (inputs ONE, the leaf index, the root) and private root.
func TestPoRPoseidonCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	cases := []struct {
		shape        merkle.Shape
		public, priv int
	}{
		{merkle.Shape{Base: 2}, 1887, 1886},
		{merkle.Shape{Base: 4}, 1164, 1163},
		{merkle.Shape{Base: 8}, 1063, 1062},
		{merkle.Shape{Base: 8, Sub: 2}, 1377, 1376},
		{merkle.Shape{Base: 8, Sub: 8}, 1593, 1592},
		{merkle.Shape{Base: 8, Sub: 8, Top: 2}, 1907, 1906},
		{merkle.Shape{Base: 8, Sub: 4, Top: 2}, 1764, 1763},
	}
	for _, tc := range cases {
		ms := tc.shape
		leaves := make([]fr.Element, 64*ms.BaseTreeCount())
		for i := range leaves {
			leaves[i] = randFr(rng)
		}
		tree, err := merkle.BuildPoseidon(ms, leaves, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, challenge := range []int{0, rng.IntN(len(leaves)), len(leaves) - 1} {
			proof, err := tree.Prove(challenge)
			if err != nil {
				t.Fatal(err)
			}
			for _, private := range []bool{false, true} {
				name := fmt.Sprintf("%v challenge %d private %v", ms, challenge, private)
				build := func(cs *r1cs.CS) error {
					p := PoR{Shape: tc.shape, Hasher: PoseidonHasher{}}
					return p.Synthesize(cs, RootVal(proof.Leaf), pathFromPoseidon(proof), RootVal(tree.Root()), private)
				}
				cs, ts := testCS(false)
				if err := build(cs); err != nil {
					t.Fatal(err)
				}
				requireSatisfied(t, ts)
				want, inputs := tc.public, 3
				if private {
					want, inputs = tc.priv, 2
				}
				if cs.NumConstraints() != want || cs.NumInputs() != inputs {
					t.Errorf("%s: %d rows / %d inputs, want %d / %d", name, cs.NumConstraints(), cs.NumInputs(), want, inputs)
				}
				idx := elem(int64(challenge))
				if !ts.Input[1].Equal(&idx) {
					t.Errorf("%s: path input %s", name, ts.Input[1].String())
				}
				if root := tree.Root(); !private && !ts.Input[2].Equal(&root) {
					t.Errorf("%s: root input %s", name, ts.Input[2].String())
				}
			}
		}
	}
}

func TestPoRSha254Binary(t *testing.T) {
	testenv.Short(t, "272k rows")
	rng := rand.New(rand.NewPCG(37, 38))
	leaves := make([][32]byte, 64)
	for i := range leaves {
		fr.LittleEndian.PutElement(&leaves[i], randFr(rng))
	}
	tree, err := merkle.BuildSha254(leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	challenge := 37
	proof, err := tree.Prove(challenge)
	if err != nil {
		t.Fatal(err)
	}
	p := PoR{Shape: merkle.Shape{Base: 2}, Hasher: &Sha254Hasher{}}
	cs, ts := testCS(false)
	err = p.Synthesize(cs, RootVal(frLE(t, proof.Leaf)), pathFromSha(t, proof), RootVal(frLE(t, tree.Root())), false)
	if err != nil {
		t.Fatal(err)
	}
	requireSatisfied(t, ts)
	// 6 levels of 45,382 rows, pack, equal, inputize.
	if cs.NumConstraints() != 272295 || cs.NumInputs() != 3 {
		t.Fatalf("%d rows, %d inputs; want 272295, 3", cs.NumConstraints(), cs.NumInputs())
	}
	if idx := elem(int64(challenge)); !ts.Input[1].Equal(&idx) {
		t.Errorf("path input %s", ts.Input[1].String())
	}
}

// A wrong root or a wrong sibling makes the root check fail; a corrupted
// witness anywhere is caught.
func TestPoRRejectsBadWitness(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 40))
	ms := merkle.Shape{Base: 8, Sub: 2}
	leaves := make([]fr.Element, 128)
	for i := range leaves {
		leaves[i] = randFr(rng)
	}
	tree, err := merkle.BuildPoseidon(ms, leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	proof, _ := tree.Prove(77)
	shape := merkle.Shape{Base: 8, Sub: 2}
	synth := func(cs *r1cs.CS, leaf fr.Element, path []PathElement, root fr.Element) {
		p := PoR{Shape: shape, Hasher: PoseidonHasher{}}
		leafNum := AllocNum(cs, leaf)
		rootNum := AllocNum(cs, root)
		if err := p.Synthesize(cs, RootVar(leafNum), path, RootVar(rootNum), true); err != nil {
			t.Fatal(err)
		}
	}
	path := pathFromPoseidon(proof)
	checkCorruptionDetected(t, func(cs *r1cs.CS) { synth(cs, proof.Leaf, path, tree.Root()) }, 0, 1, 2, 5, 500, -1)

	cs, ts := testCS(false)
	bad := tree.Root()
	bad.Add(&bad, &frOne)
	synth(cs, proof.Leaf, path, bad)
	if ts.IsSatisfied() || ts.NumUnsatisfied() != 1 {
		t.Errorf("wrong root: %d unsatisfied rows, want 1 (the root check)", ts.NumUnsatisfied())
	}
	cs, ts = testCS(false)
	path[1].Siblings = append([]fr.Element(nil), path[1].Siblings...)
	path[1].Siblings[0] = randFr(rng)
	synth(cs, proof.Leaf, path, tree.Root())
	if ts.IsSatisfied() {
		t.Error("wrong sibling accepted")
	}
}

func TestPoRShapeErrors(t *testing.T) {
	sib := func(n int) []fr.Element { return make([]fr.Element, n) }
	cases := []struct {
		name  string
		shape merkle.Shape
		path  []PathElement
		err   error
	}{
		{"sibling count", merkle.Shape{Base: 8}, []PathElement{{Siblings: sib(6)}}, ErrPathShape},
		{"index range", merkle.Shape{Base: 2}, []PathElement{{Siblings: sib(1), Index: 2}}, ErrPathShape},
		{"sub level arity", merkle.Shape{Base: 8, Sub: 2}, []PathElement{{Siblings: sib(7)}, {Siblings: sib(7)}}, ErrPathShape},
		{"too short for top", merkle.Shape{Base: 8, Sub: 8, Top: 2}, []PathElement{{Siblings: sib(7)}}, ErrPathShape},
		{"odd base arity", merkle.Shape{Base: 3}, nil, ErrArity},
		{"top without sub", merkle.Shape{Base: 8, Top: 2}, nil, ErrArity},
	}
	for _, tc := range cases {
		cs, _ := testCS(false)
		p := PoR{Shape: tc.shape, Hasher: PoseidonHasher{}}
		err := p.Synthesize(cs, RootVal(fr.Element{}), tc.path, RootVal(fr.Element{}), false)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
		}
		if cs.NumConstraints() != 0 || cs.NumAux() != 0 {
			t.Errorf("%s: synthesised before rejecting", tc.name)
		}
	}
}

func TestPoRAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	leaves := make([]fr.Element, 64)
	for i := range leaves {
		leaves[i] = randFr(rng)
	}
	tree, _ := merkle.BuildPoseidon(merkle.Shape{Base: 8}, leaves, 1)
	proof, _ := tree.Prove(9)
	path := pathFromPoseidon(proof)
	pa := r1cs.NewProvingAssignment(r1cs.Size{Constraints: 10000, Inputs: 10, Aux: 10000})
	cs := r1cs.New(pa)
	leaf, root := AllocNum(cs, proof.Leaf), AllocNum(cs, tree.Root())
	p := PoR{Shape: merkle.Shape{Base: 8}, Hasher: PoseidonHasher{}}
	run := func() {
		if err := p.Synthesize(cs, RootVar(leaf), path, RootVar(root), true); err != nil {
			t.Fatal(err)
		}
	}
	run()
	if allocs := testing.AllocsPerRun(3, run); allocs != 0 {
		t.Errorf("%v allocations per PoR, want 0", allocs)
	}
}

func TestSha254HasherAllocations(t *testing.T) {
	testenv.Short(t, "allocation count needs several SHA-254 nodes")
	const runs = 3
	pa := r1cs.NewProvingAssignment(r1cs.Size{Constraints: 45400 * (runs + 2), Inputs: 1, Aux: 45400 * (runs + 2)})
	cs := r1cs.New(pa)
	rng := rand.New(rand.NewPCG(43, 44))
	x, y := AllocNum(cs, randFr(rng)), AllocNum(cs, randFr(rng))
	var h Sha254Hasher
	h.Hash2(cs, x, y)
	if allocs := testing.AllocsPerRun(runs, func() { h.Hash2(cs, x, y) }); allocs != 0 {
		t.Errorf("%v allocations per SHA-254 node, want 0", allocs)
	}
}
