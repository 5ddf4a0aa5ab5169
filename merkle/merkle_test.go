package merkle

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
)

func limbs(t testing.TB, ls []string) fr.Element {
	t.Helper()
	var b [32]byte
	for i, l := range ls {
		v, err := strconv.ParseUint(strings.TrimPrefix(l, "0x"), 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 8; k++ {
			b[8*i+k] = byte(v >> (8 * k))
		}
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func loadVectors(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	var top map[string]json.RawMessage
	golden.ReadJSON(t, "../testdata/upstream/test_vectors.json", &top)
	return top
}

// filecoin-hashers test_poseidon_hasher: a binary Poseidon tree over [1,0,0,1].
func TestPoseidonBinaryRootVector(t *testing.T) {
	var hv map[string]json.RawMessage
	if err := json.Unmarshal(loadVectors(t)["poseidon_filecoin_hashers"], &hv); err != nil {
		t.Fatal(err)
	}
	var tv map[string]json.RawMessage
	if err := json.Unmarshal(hv["test_poseidon_hasher"], &tv); err != nil {
		t.Fatal(err)
	}
	var root struct {
		Limbs []string `json:"u64_limbs_le"`
	}
	if err := json.Unmarshal(tv["root = H2(H2(1,0),H2(0,1))"], &root); err != nil || len(root.Limbs) != 4 {
		t.Fatalf("vector missing: %v", err)
	}
	want := limbs(t, root.Limbs)
	one := fr.One()
	leaves := []fr.Element{one, {}, {}, one}
	tree, err := BuildPoseidon(Shape{Base: 2}, leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.Root(); got != want {
		t.Fatalf("root %s, want %s", got.String(), want.String())
	}
	for i := range leaves {
		p, err := tree.Prove(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyPoseidon(p, Shape{Base: 2}, 4); err != nil {
			t.Fatalf("leaf %d: %v", i, err)
		}
	}
}

// rust-fil-proofs test_compute_comm_d_empty.
func TestEmptyCommD(t *testing.T) {
	var v struct {
		Cases []struct {
			SectorSize int    `json:"sector_size"`
			CommDHex   string `json:"comm_d_hex"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(loadVectors(t)["comm_d_empty_sector"], &v); err != nil || len(v.Cases) < 2 {
		t.Fatalf("vectors: %v", err)
	}
	for _, c := range v.Cases {
		leaves := make([][32]byte, c.SectorSize/32)
		tree, err := BuildSha254(leaves, 2)
		if err != nil {
			t.Fatal(err)
		}
		root := tree.Root()
		if got := hex.EncodeToString(root[:]); got != c.CommDHex {
			t.Errorf("%d-byte sector: comm_d %s, want %s", c.SectorSize, got, c.CommDHex)
		}
		empty := EmptySha254Root(tree.Depth())
		if got := hex.EncodeToString(empty[:]); got != c.CommDHex {
			t.Errorf("EmptySha254Root(%d) = %s, want %s", tree.Depth(), got, c.CommDHex)
		}
	}
	// Doubling agrees with a built tree well beyond the vectors.
	tree, err := BuildSha254(make([][32]byte, 1<<12), 2)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Root() != EmptySha254Root(12) {
		t.Fatal("EmptySha254Root(12) differs from the built tree")
	}
}

// refRoot builds a compound tree the way merkletree does: every base tree on
// its own, then the sub trees from consecutive groups of base roots, then the
// top tree from the sub roots. It shares nothing with buildLevels.
func refRoot(t testing.TB, s Shape, leaves []fr.Element) fr.Element {
	t.Helper()
	var baseRoot func(nodes []fr.Element) fr.Element
	baseRoot = func(nodes []fr.Element) fr.Element {
		if len(nodes) == 1 {
			return nodes[0]
		}
		parents := make([]fr.Element, 0, len(nodes)/s.Base)
		for i := 0; i < len(nodes); i += s.Base {
			parents = append(parents, hash.Poseidon(s.Base).Hash(nodes[i:i+s.Base]))
		}
		return baseRoot(parents)
	}
	n := s.BaseTreeCount()
	per := len(leaves) / n
	roots := make([]fr.Element, n)
	for j := range roots {
		roots[j] = baseRoot(leaves[j*per : (j+1)*per])
	}
	if s.Sub == 0 {
		return roots[0]
	}
	var subRoots []fr.Element
	for j := 0; j < n; j += s.Sub {
		subRoots = append(subRoots, hash.Poseidon(s.Sub).Hash(roots[j:j+s.Sub]))
	}
	if s.Top == 0 {
		return subRoots[0]
	}
	return hash.Poseidon(s.Top).Hash(subRoots)
}

func randomLeaves(rng *rand.Rand, n int) []fr.Element {
	leaves := make([]fr.Element, n)
	for i := range leaves {
		leaves[i].SetUint64(rng.Uint64())
		leaves[i].Square(&leaves[i])
	}
	return leaves
}

// The shapes of Filecoin sectors and of rust-fil-proofs' tests, with small
// base trees.
var testShapes = []struct {
	shape     Shape
	perBase   int
	wantLevel int // path length = base levels + sub + top
}{
	{Shape{2, 0, 0}, 8, 3},
	{Shape{4, 0, 0}, 16, 2},
	{Shape{8, 0, 0}, 64, 2},
	{Shape{8, 2, 0}, 8, 2},
	{Shape{8, 4, 0}, 8, 2},
	{Shape{8, 8, 0}, 64, 3},
	{Shape{8, 4, 2}, 8, 3},
	{Shape{8, 8, 2}, 8, 3},
	{Shape{8, 2, 4}, 8, 3},
}

func TestPoseidonShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range testShapes {
		t.Run(c.shape.String(), func(t *testing.T) {
			n := c.perBase * c.shape.BaseTreeCount()
			leaves := randomLeaves(rng, n)
			tree, err := BuildPoseidon(c.shape, leaves, 3)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := tree.Root(), refRoot(t, c.shape, leaves); got != want {
				t.Fatalf("root differs from the merkletree-style reference")
			}
			serial, err := BuildPoseidon(c.shape, leaves, 1)
			if err != nil || serial.Root() != tree.Root() {
				t.Fatalf("serial build differs: %v", err)
			}
			if len(tree.Arities()) != c.wantLevel || tree.NumLeaves() != n || tree.Shape() != c.shape {
				t.Fatalf("arities %v", tree.Arities())
			}
			for i := 0; i < n; i++ {
				p, err := tree.Prove(i)
				if err != nil {
					t.Fatal(err)
				}
				if p.Leaf != leaves[i] || p.Root != tree.Root() || p.LeafIndex() != uint64(i) {
					t.Fatalf("leaf %d: proof carries the wrong leaf, root or index", i)
				}
				if err := VerifyPoseidon(p, c.shape, n); err != nil {
					t.Fatalf("leaf %d: %v", i, err)
				}
				base, sub, top := p.Split(c.shape)
				if (c.shape.Sub > 0) != (len(sub) == 1) || (c.shape.Top > 0) != (len(top) == 1) ||
					len(base)+len(sub)+len(top) != len(p.Path) {
					t.Fatalf("split %d/%d/%d", len(base), len(sub), len(top))
				}
				for _, e := range base {
					if len(e.Hashes) != c.shape.Base-1 {
						t.Fatalf("base element with %d hashes", len(e.Hashes))
					}
				}
				if len(sub) == 1 && len(sub[0].Hashes) != c.shape.Sub-1 || len(top) == 1 && len(top[0].Hashes) != c.shape.Top-1 {
					t.Fatal("sub/top element has the wrong arity")
				}
			}
		})
	}
}

// A proof of leaf i must carry the right siblings, not just verify: check one
// by hand on an 8-2-0 tree (two base trees of 8 leaves).
func TestPoseidonProofContents(t *testing.T) {
	leaves := randomLeaves(rand.New(rand.NewPCG(7, 8)), 16)
	s := Shape{Base: 8, Sub: 2}
	tree, err := BuildPoseidon(s, leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tree.Prove(11) // base tree 1, position 3
	if err != nil {
		t.Fatal(err)
	}
	want0 := append(append([]fr.Element{}, leaves[8:11]...), leaves[12:16]...)
	if p.Path[0].Index != 3 || fmt.Sprint(p.Path[0].Hashes) != fmt.Sprint(want0) {
		t.Fatalf("base level: index %d", p.Path[0].Index)
	}
	root0 := hash.Poseidon(8).Hash(leaves[0:8])
	if p.Path[1].Index != 1 || len(p.Path[1].Hashes) != 1 || p.Path[1].Hashes[0] != root0 {
		t.Fatalf("sub level: index %d", p.Path[1].Index)
	}
}

func TestProofTampering(t *testing.T) {
	leaves := randomLeaves(rand.New(rand.NewPCG(9, 10)), 128)
	s := Shape{Base: 8, Sub: 2}
	tree, err := BuildPoseidon(s, leaves, 1)
	if err != nil {
		t.Fatal(err)
	}
	one := fr.One()
	clone := func() *PoseidonProof {
		p, err := tree.Prove(77)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name   string
		mutate func(p *PoseidonProof)
		want   error
	}{
		{"leaf", func(p *PoseidonProof) { p.Leaf.Add(&p.Leaf, &one) }, ErrRootMismatch},
		{"root", func(p *PoseidonProof) { p.Root.Add(&p.Root, &one) }, ErrRootMismatch},
		{"sibling", func(p *PoseidonProof) { p.Path[1].Hashes[6].Add(&p.Path[1].Hashes[6], &one) }, ErrRootMismatch},
		{"sub sibling", func(p *PoseidonProof) { p.Path[2].Hashes[0].Add(&p.Path[2].Hashes[0], &one) }, ErrRootMismatch},
		{"index", func(p *PoseidonProof) { p.Path[0].Index = (p.Path[0].Index + 1) % 8 }, ErrRootMismatch},
		{"index out of range", func(p *PoseidonProof) { p.Path[0].Index = 8 }, ErrMalformedProof},
		{"negative index", func(p *PoseidonProof) { p.Path[2].Index = -1 }, ErrMalformedProof},
		{"missing sibling", func(p *PoseidonProof) { p.Path[1].Hashes = p.Path[1].Hashes[:6] }, ErrMalformedProof},
		{"missing level", func(p *PoseidonProof) { p.Path = p.Path[:2] }, ErrMalformedProof},
		{"extra level", func(p *PoseidonProof) { p.Path = append(p.Path, p.Path[2]) }, ErrMalformedProof},
	}
	if err := VerifyPoseidon(clone(), s, 128); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		p := clone()
		c.mutate(p)
		if err := VerifyPoseidon(p, s, 128); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	// The right proof checked against another shape or size is malformed.
	if err := VerifyPoseidon(clone(), Shape{Base: 8}, 64); !errors.Is(err, ErrMalformedProof) {
		t.Errorf("wrong shape: got %v", err)
	}
	if err := VerifyPoseidon(clone(), Shape{Base: 8, Sub: 2}, 1024); !errors.Is(err, ErrMalformedProof) {
		t.Errorf("wrong size: got %v", err)
	}
}

func TestLeafCountAndShapeErrors(t *testing.T) {
	cases := []struct {
		shape  Shape
		leaves int
		want   error
	}{
		{Shape{8, 0, 0}, 16, ErrLeafCount},
		{Shape{8, 0, 0}, 8 * 8 * 2, ErrLeafCount},
		{Shape{8, 0, 0}, 1, ErrLeafCount},
		{Shape{8, 0, 0}, 0, ErrLeafCount},
		{Shape{2, 0, 0}, 6, ErrLeafCount},
		{Shape{8, 8, 0}, 8 * 7, ErrLeafCount},
		{Shape{8, 8, 2}, 64, ErrLeafCount},
		{Shape{8, 8, 2}, 16, ErrLeafCount},
		{Shape{3, 0, 0}, 9, ErrShape},
		{Shape{0, 0, 0}, 1, ErrShape},
		{Shape{8, 0, 2}, 16, ErrShape},
		{Shape{8, 1, 0}, 8, ErrShape},
		{Shape{8, -2, 0}, 8, ErrShape},
		{Shape{64, 0, 0}, 64, ErrShape}, // no Poseidon-64
		{Shape{8, 64, 0}, 8 * 64, ErrShape},
	}
	for _, c := range cases {
		_, err := BuildPoseidon(c.shape, make([]fr.Element, c.leaves), 1)
		if !errors.Is(err, c.want) {
			t.Errorf("%s with %d leaves: got %v, want %v", c.shape, c.leaves, err, c.want)
		}
	}
	for _, n := range []int{0, 1, 3, 6, 12} {
		if _, err := BuildSha254(make([][32]byte, n), 1); !errors.Is(err, ErrLeafCount) {
			t.Errorf("sha254 with %d leaves: got %v", n, err)
		}
	}
	if _, err := Sha254Leaves(make([]byte, 33)); !errors.Is(err, ErrLeafCount) {
		t.Errorf("Sha254Leaves(33 bytes): got %v", err)
	}
	tree, _ := BuildPoseidon(ShapeBase, make([]fr.Element, 64), 1)
	for _, i := range []int{-1, 64} {
		if _, err := tree.Prove(i); !errors.Is(err, ErrIndex) {
			t.Errorf("Prove(%d): got %v", i, err)
		}
	}
}

func TestFilecoinShapeArities(t *testing.T) {
	cases := []struct {
		shape  Shape
		leaves int
		want   string
	}{
		{ShapeBase, 1 << 6, "[8 8]"},                     // 2 KiB
		{ShapeBase, 1 << 18, "[8 8 8 8 8 8]"},            // 8 MiB
		{ShapeBase, 1 << 24, "[8 8 8 8 8 8 8 8]"},        // 512 MiB
		{ShapeSub8, 1 << 30, "[8 8 8 8 8 8 8 8 8 8]"},    // 32 GiB
		{ShapeTop2, 1 << 31, "[8 8 8 8 8 8 8 8 8 8 2]"},  // 64 GiB
		{ShapeBinary, 1 << 30, fmt.Sprint(make30Twos())}, // tree_d 32 GiB
		{Shape{8, 4, 2}, 64, "[8 4 2]"},                  // stacked_circuit test 8-4-2
		{Shape{8, 2, 4}, 8 * 8 * 8, "[8 8 2 4]"},
	}
	for _, c := range cases {
		ar, err := c.shape.Arities(c.leaves)
		if err != nil || fmt.Sprint(ar) != c.want {
			t.Errorf("%s/%d: %v %v, want %s", c.shape, c.leaves, ar, err, c.want)
		}
	}
}

func make30Twos() []int {
	a := make([]int, 30)
	for i := range a {
		a[i] = 2
	}
	return a
}

// refSha254Root is a recursive reference for the binary tree.
func refSha254Root(nodes [][32]byte) [32]byte {
	if len(nodes) == 1 {
		return nodes[0]
	}
	h := len(nodes) / 2
	l, r := refSha254Root(nodes[:h]), refSha254Root(nodes[h:])
	return hash.Sha254(l[:], r[:])
}

func TestSha254Tree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	data := make([]byte, 64*32)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	leaves, err := Sha254Leaves(data)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := BuildSha254(leaves, 2)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Root() != refSha254Root(leaves) {
		t.Fatal("root differs from the recursive reference")
	}
	if tree.Depth() != 6 || tree.NumLeaves() != 64 || len(tree.Level(6)) != 1 {
		t.Fatalf("depth %d", tree.Depth())
	}
	for i := range leaves {
		p, err := tree.Prove(i)
		if err != nil {
			t.Fatal(err)
		}
		if p.LeafIndex() != uint64(i) || p.Leaf != leaves[i] {
			t.Fatalf("leaf %d: wrong index/leaf", i)
		}
		if err := VerifySha254(p, 64); err != nil {
			t.Fatalf("leaf %d: %v", i, err)
		}
		p.Path[3].Hashes[0][5] ^= 1
		if err := VerifySha254(p, 64); !errors.Is(err, ErrRootMismatch) {
			t.Fatalf("tampered leaf %d: got %v", i, err)
		}
	}
	p, _ := tree.Prove(0)
	if err := VerifySha254(p, 128); !errors.Is(err, ErrMalformedProof) {
		t.Fatalf("wrong size: got %v", err)
	}
}

// The 8 MiB tree_c/tree_r_last size, built in parallel; skipped under -short.
func TestPoseidon8MiBTree(t *testing.T) {
	testenv.Short(t, "2^18-leaf tree")
	leaves := randomLeaves(rand.New(rand.NewPCG(13, 14)), 1<<18)
	tree, err := BuildPoseidon(ShapeBase, leaves, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 12345, 1<<18 - 1} {
		p, err := tree.Prove(i)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Path) != 6 {
			t.Fatalf("path length %d", len(p.Path))
		}
		if err := VerifyPoseidon(p, ShapeBase, 1<<18); err != nil {
			t.Fatalf("leaf %d: %v", i, err)
		}
	}
}

func BenchmarkBuildPoseidon8MiB(b *testing.B) {
	leaves := randomLeaves(rand.New(rand.NewPCG(1, 1)), 1<<18)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if _, err := BuildPoseidon(ShapeBase, leaves, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(1<<18), "ns/leaf")
		})
	}
}

func BenchmarkBuildSha254_8MiB(b *testing.B) {
	leaves := make([][32]byte, 1<<18)
	b.SetBytes(int64(len(leaves)) * 32)
	for b.Loop() {
		if _, err := BuildSha254(leaves, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// AppendPathArities, which the PoR circuit uses, agrees with Arities for
// every shape, and rejects paths too short for the sub and top levels and
// arities the circuit cannot index (not a power of two).
func TestPathArities(t *testing.T) {
	for _, c := range testShapes {
		n := c.perBase * c.shape.BaseTreeCount()
		want, err := c.shape.Arities(n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.shape.AppendPathArities([]int{99}, len(want))
		if err != nil || fmt.Sprint(got[1:]) != fmt.Sprint(want) || got[0] != 99 {
			t.Errorf("%s: %v %v, want %v after the prefix", c.shape, got, err, want)
		}
	}
	if _, err := ShapeTop2.AppendPathArities(nil, 1); !errors.Is(err, ErrMalformedProof) {
		t.Errorf("one-level 8-8-2 path: %v", err)
	}
	for _, s := range []Shape{{8, 3, 0}, {8, 8, 6}, {6, 0, 0}} {
		if _, err := s.AppendPathArities(nil, 4); !errors.Is(err, ErrShape) {
			t.Errorf("%s: %v", s, err)
		}
	}
}
