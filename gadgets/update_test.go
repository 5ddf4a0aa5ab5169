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

func genRandNative(t testing.TB, a, b fr.Element) fr.Element {
	t.Helper()
	p, err := CustomPoseidonConstants(2, GenRandomnessTagID)
	if err != nil {
		t.Fatal(err)
	}
	return p.Hash([]fr.Element{a, b})
}

func TestCustomDomainTag(t *testing.T) {
	for _, id := range []uint64{0, 257} {
		if _, err := CustomPoseidonConstants(2, id); !errors.Is(err, ErrArity) {
			t.Errorf("id %d: %v", id, err)
		}
	}
	// The custom constants change only the tag: the plain algorithm
	// (which does not use the compressed constants) agrees with the
	// optimised one, and the digest differs from the Merkle-tree hash.
	p, err := CustomPoseidonConstants(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := []fr.Element{elem(3), elem(4)}
	a, b := p.Hash(x), p.HashCorrect(x)
	if !a.Equal(&b) {
		t.Fatal("optimised and plain Poseidon disagree with the custom tag")
	}
	if m := hash.Poseidon(2).Hash(x); m.Equal(&a) {
		t.Fatal("custom tag gives the Merkle-tree digest")
	}
	if def := hash.Poseidon(2).DomainTag; def.Equal(&p.DomainTag) || !hash.Poseidon(2).DomainTag.IsUint64() || hash.Poseidon(2).DomainTag.Uint64() != 3 {
		t.Fatal("shared constants modified")
	}
}

// The custom-tag hash has Poseidon-2's 311 rows and one allocation each,
// its digest is the native one, and its rows differ from the Merkle-tree
// hash's only in coefficients.
func TestPoseidonHashCustom(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	a, b := randFr(rng), randFr(rng)
	cs, ts := testCS(true)
	pre := allocNums(cs, []fr.Element{a, b})
	out := PoseidonGenRandomness(cs, pre[0], pre[1])
	requireSatisfied(t, ts)
	if cs.NumConstraints() != 311 || cs.NumAux() != 313 {
		t.Errorf("%d rows / %d aux, want 311 / 313", cs.NumConstraints(), cs.NumAux())
	}
	want, got := genRandNative(t, a, b), ts.Value(out.V)
	if !out.Val.Equal(&want) || !got.Equal(&want) {
		t.Errorf("digest %s, native %s", out.Val.String(), want.String())
	}
	cs2, ts2 := testCS(true)
	pre2 := allocNums(cs2, []fr.Element{a, b})
	if _, err := PoseidonHash(cs2, pre2); err != nil {
		t.Fatal(err)
	}
	differ := 0
	for i := range ts.Rows {
		r, q := ts.Rows[i], ts2.Rows[i]
		for k, pair := range [3][2][]r1cs.Term{{r.A, q.A}, {r.B, q.B}, {r.C, q.C}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("row %d %c: %d terms vs %d", i, "ABC"[k], len(pair[0]), len(pair[1]))
			}
			for j := range pair[0] {
				if pair[0][j].Var != pair[1][j].Var {
					t.Fatalf("row %d %c term %d: variable %v vs %v", i, "ABC"[k], j, pair[0][j].Var, pair[1][j].Var)
				}
				if !pair[0][j].Coeff.Equal(&pair[1][j].Coeff) {
					differ++
				}
			}
		}
	}
	if differ == 0 {
		t.Error("custom-tag rows identical to the Merkle-tree rows")
	}
	if _, err := PoseidonHashCustom(cs, pre, 0); !errors.Is(err, ErrArity) {
		t.Errorf("id 0: %v", err)
	}
	// Another (arity, id) goes through the general cache.
	cs3, ts3 := testCS(false)
	pre3 := allocNums(cs3, []fr.Element{a, b, a, b})
	o, err := PoseidonHashCustom(cs3, pre3, 7)
	if err != nil {
		t.Fatal(err)
	}
	requireSatisfied(t, ts3)
	p4, _ := CustomPoseidonConstants(4, 7)
	if want := p4.Hash([]fr.Element{a, b, a, b}); !o.Val.Equal(&want) || cs3.NumConstraints() != 377 {
		t.Errorf("arity 4 id 7: %d rows, digest mismatch %v", cs3.NumConstraints(), !o.Val.Equal(&want))
	}
}

func TestNumToAllocatedBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, v := range []fr.Element{elem(0), elem(1), elem(-1), randFr(rng)} {
		cs, ts := testCS(true)
		x := AllocNum(cs, v)
		bits := NumToAllocatedBits(cs, nil, x)
		requireSatisfied(t, ts)
		if len(bits) != NumBits || cs.NumConstraints() != NumBits+1 || cs.NumAux() != NumBits+1 {
			t.Fatalf("%d bits, %d rows, %d aux", len(bits), cs.NumConstraints(), cs.NumAux())
		}
		limbs := v.Bits()
		for i, b := range bits {
			if b.Value() != (limbs[i/64]>>(uint(i)%64)&1 == 1) || b.Variable() != aux(i+1) {
				t.Fatalf("bit %d wrong", i)
			}
		}
		// The packing row: (Σ 2^i·b_i)·(ONE) = (x).
		last := ts.Rows[len(ts.Rows)-1]
		var want []r1cs.Term
		var pw fr.Element
		pw.SetOne()
		for i := range bits {
			want = append(want, termFr(aux(i+1), pw))
			pw.Double(&pw)
		}
		checkRow(t, "binary decomp", last, want, []r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(0), 1)})
	}
	// Corrupting the number or any bit breaks a row.
	v := randFr(rng)
	checkCorruptionDetected(t, func(cs *r1cs.CS) { NumToAllocatedBits(cs, nil, AllocNum(cs, v)) }, 0, 1, 100, 255)
}

// challengesNative is storage-proofs-update Challenges::new: digest j of
// partition k is H(comm_r_new, k·D + j), its bits cut into challenges with
// k appended above them.
func challengesNative(t testing.TB, commRNew fr.Element, k, count, randBits, partitionBits int) []uint64 {
	per := Capacity / randBits
	d := (count + per - 1) / per
	var out []uint64
	for j := 0; len(out) < count; j++ {
		var idx fr.Element
		idx.SetUint64(uint64(k*d + j))
		h := genRandNative(t, commRNew, idx)
		limbs := h.Bits()
		for i := 0; i < per && len(out) < count; i++ {
			var c uint64
			for b := 0; b < randBits; b++ {
				p := i*randBits + b
				c |= (limbs[p/64] >> (uint(p) % 64) & 1) << uint(b)
			}
			out = append(out, c|uint64(k)<<uint(randBits))
		}
	}
	return out
}

// Upstream test_gen_challenge_bits_gadget: rows per sector size
// (ALLOWED_SECTOR_SIZES: 1, 2, 4, 8, 16, 32 KiB, 8, 16, 512 MiB, 32, 64 GiB)
// and the challenges equal to the native ones for every partition.
func TestGenChallengeBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	for _, tc := range []struct {
		log2Nodes, partitions, challenges, rows int
	}{
		{5, 1, 10, 568}, {6, 1, 10, 568}, {7, 1, 10, 568}, {8, 1, 10, 568},
		{9, 2, 10, 568}, {10, 2, 10, 568}, {18, 4, 10, 568}, {19, 4, 10, 568},
		{24, 16, 86, 4544}, {30, 16, 86, 5680}, {31, 16, 86, 5680},
	} {
		pbits := 0
		for 1<<pbits < tc.partitions {
			pbits++
		}
		rb := tc.log2Nodes - pbits
		commRNew := randFr(rng)
		for k := 0; k < tc.partitions; k++ {
			if testing.Short() && k > 1 {
				break
			}
			cs, ts := testCS(false)
			cr := AllocNum(cs, commRNew)
			part := AllocNum(cs, elem(int64(k)))
			pb := NumToAllocatedBits(cs, nil, part)[:pbits]
			before := cs.NumConstraints()
			got, err := GenChallengeBits(cs, cr, part, tc.challenges, rb)
			if err != nil {
				t.Fatal(err)
			}
			requireSatisfied(t, ts)
			if n := cs.NumConstraints() - before; n != tc.rows {
				t.Errorf("2^%d nodes: %d rows, upstream %d", tc.log2Nodes, n, tc.rows)
			}
			want := challengesNative(t, commRNew, k, tc.challenges, rb, pbits)
			if len(got) != len(want) {
				t.Fatalf("%d challenges, want %d", len(got), len(want))
			}
			for i := range got {
				var c uint64
				for b, bit := range append(append([]AllocatedBit(nil), got[i]...), pb...) {
					if bit.Value() {
						c |= 1 << uint(b)
					}
				}
				if c != want[i] {
					t.Fatalf("2^%d nodes k=%d challenge %d: circuit %d, native %d", tc.log2Nodes, k, i, c, want[i])
				}
			}
		}
	}
	cs, _ := testCS(false)
	if _, err := GenChallengeBits(cs, AllocNum(cs, elem(1)), AllocNum(cs, elem(0)), 10, 0); !errors.Is(err, ErrArity) {
		t.Errorf("0 bits per challenge: %v", err)
	}
}

func TestChallengeHighBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	hs := []int{7, 8, 9, 10, 11, 12}
	c := rng.Uint64() & (1<<30 - 1)
	for sel := range hs {
		cs, ts := testCS(true)
		var cb, hb []AllocatedBit
		for i := 0; i < 30; i++ {
			cb = append(cb, AllocBit(cs, c>>uint(i)&1 == 1))
		}
		for i := range hs {
			hb = append(hb, AllocBit(cs, i == sel))
		}
		before, auxBefore := cs.NumConstraints(), cs.NumAux()
		got, err := ChallengeHighBits(cs, cb, hb, hs)
		if err != nil {
			t.Fatal(err)
		}
		requireSatisfied(t, ts)
		if n := cs.NumConstraints() - before; n != 2*len(hs)+1 || cs.NumAux()-auxBefore != n {
			t.Errorf("%d rows, %d aux, want 13 each", n, cs.NumAux()-auxBefore)
		}
		want := elem(int64(c >> uint(30-hs[sel])))
		if !got.Val.Equal(&want) || got.V != aux(cs.NumAux()-1) {
			t.Errorf("h=%d: %s, want %s", hs[sel], got.Val.String(), want.String())
		}
		// c_high_or_zero rows: (c_high)·(h_select_k) = (c_high_or_zero).
		r := ts.Rows[before+1]
		checkRow(t, "c_high_or_zero", r, []r1cs.Term{term(aux(auxBefore), 1)}, []r1cs.Term{term(hb[0].Variable(), 1)}, []r1cs.Term{term(aux(auxBefore+1), 1)})
	}
	cs, _ := testCS(false)
	if _, err := ChallengeHighBits(cs, nil, make([]AllocatedBit, 2), hs); !errors.Is(err, ErrArity) {
		t.Errorf("mismatched h-select: %v", err)
	}
}

func TestLabelRNew(t *testing.T) {
	rng := rand.New(rand.NewPCG(49, 50))
	o, d, r := randFr(rng), randFr(rng), randFr(rng)
	build := func(cs *r1cs.CS) {
		LabelRNew(cs, AllocNum(cs, o), AllocNum(cs, d), AllocNum(cs, r))
	}
	cs, ts := testCS(true)
	out := LabelRNew(cs, AllocNum(cs, o), AllocNum(cs, d), AllocNum(cs, r))
	requireSatisfied(t, ts)
	var want fr.Element
	want.Mul(&d, &r)
	want.Add(&want, &o)
	if !out.Val.Equal(&want) || cs.NumConstraints() != 2 {
		t.Fatalf("%d rows, value %s", cs.NumConstraints(), out.Val.String())
	}
	checkRow(t, "d·ρ", ts.Rows[0], []r1cs.Term{term(aux(1), 1)}, []r1cs.Term{term(aux(2), 1)}, []r1cs.Term{term(aux(3), 1)})
	checkRow(t, "r_old + dρ", ts.Rows[1], []r1cs.Term{term(aux(0), 1), term(aux(3), 1)}, []r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(4), 1)})
	checkCorruptionDetected(t, build, 0, 3, 4)
}

// PoRNoChallenge over real trees: satisfied, rows of the insertions and
// hashes plus the root row, and broken by a wrong bit, sibling or root.
func TestPoRNoChallenge(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, tc := range []struct {
		shape merkle.Shape
		rows  int
	}{
		{merkle.Shape{Base: 8}, 2*527 + 1},
		{merkle.Shape{Base: 8, Sub: 4}, 2*527 + 8 + 377 + 1},
		{merkle.Shape{Base: 8, Sub: 8, Top: 2}, 3*527 + 2 + 311 + 1}, // base 8, base 8, sub 8, top 2
	} {
		t.Run(fmt.Sprint(tc.shape), func(t *testing.T) {
			ms := merkle.Shape{Base: tc.shape.Base, Sub: tc.shape.Sub, Top: tc.shape.Top}
			n := 64 * ms.BaseTreeCount()
			leaves := make([]fr.Element, n)
			for i := range leaves {
				leaves[i] = randFr(rng)
			}
			tree, err := merkle.BuildPoseidon(ms, leaves, 1)
			if err != nil {
				t.Fatal(err)
			}
			c := rng.IntN(n)
			proof, err := tree.Prove(c)
			if err != nil {
				t.Fatal(err)
			}
			nbits := 0
			for 1<<nbits < n {
				nbits++
			}
			build := func(cs *r1cs.CS, flipBit int) error {
				var cb []AllocatedBit
				for i := 0; i < nbits; i++ {
					b := c>>uint(i)&1 == 1
					if i == flipBit {
						b = !b
					}
					cb = append(cb, AllocBit(cs, b))
				}
				leaf := AllocNum(cs, proof.Leaf)
				path := make([][]AllocatedNum, len(proof.Path))
				for l, e := range proof.Path {
					path[l] = allocNums(cs, e.Hashes)
				}
				root := AllocNum(cs, tree.Root())
				p := PoRNoChallenge{Shape: tc.shape, Hasher: PoseidonHasher{}}
				before := cs.NumConstraints()
				if err := p.Synthesize(cs, cb, leaf, path, root); err != nil {
					return err
				}
				if n := cs.NumConstraints() - before; n != tc.rows {
					t.Errorf("%d rows, want %d", n, tc.rows)
				}
				return nil
			}
			cs, ts := testCS(false)
			if err := build(cs, -1); err != nil {
				t.Fatal(err)
			}
			requireSatisfied(t, ts)
			cs, ts = testCS(false)
			if err := build(cs, nbits-1); err != nil {
				t.Fatal(err)
			}
			if ts.IsSatisfied() {
				t.Error("wrong challenge bit accepted")
			}
			checkCorruptionDetected(t, func(cs *r1cs.CS) {
				if err := build(cs, -1); err != nil {
					t.Fatal(err)
				}
			}, nbits+3, -1) // a sibling, the root
		})
	}
	cs, _ := testCS(false)
	p := PoRNoChallenge{Shape: merkle.Shape{Base: 8}, Hasher: PoseidonHasher{}}
	x := AllocNum(cs, elem(1))
	sib := allocNums(cs, make([]fr.Element, 7))
	if err := p.Synthesize(cs, []AllocatedBit{AllocBit(cs, true)}, x, [][]AllocatedNum{sib}, x); !errors.Is(err, ErrPathShape) {
		t.Errorf("1 bit for an arity-8 level: %v", err)
	}
	if err := p.Synthesize(cs, nil, x, [][]AllocatedNum{sib[:3]}, x); !errors.Is(err, ErrPathShape) {
		t.Errorf("3 siblings: %v", err)
	}
}

// apexCase builds TreeD over 2^log2Nodes random leaves and synthesises
// ApexPoR for partition k (upstream test_apex_por_gadget).
func apexCase(t *testing.T, ts r1cs.Sink, log2Nodes, partitions, apexLeafs, k int) (*r1cs.CS, int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(log2Nodes), uint64(k)))
	n := 1 << log2Nodes
	raw := make([][32]byte, n)
	for i := range raw {
		fr.LittleEndian.PutElement(&raw[i], randFr(rng))
	}
	tree, err := merkle.BuildSha254(raw, 1)
	if err != nil {
		t.Fatal(err)
	}
	pbits, abits := 0, 0
	for 1<<pbits < partitions {
		pbits++
	}
	for 1<<abits < apexLeafs {
		abits++
	}
	rootsRow := log2Nodes - pbits
	leafsRow := rootsRow - abits
	cs := r1cs.New(ts)
	commD := AllocNum(cs, frLE(t, tree.Root()))
	var pb []AllocatedBit
	for i := 0; i < pbits; i++ {
		pb = append(pb, AllocBit(cs, k>>uint(i)&1 == 1))
	}
	var leafs []AllocatedNum
	for _, l := range tree.Level(leafsRow)[k*apexLeafs : (k+1)*apexLeafs] {
		leafs = append(leafs, AllocNum(cs, frLE(t, l)))
	}
	var path [][]AllocatedNum
	for i := 0; i < pbits; i++ {
		cur := k >> uint(i)
		path = append(path, []AllocatedNum{AllocNum(cs, frLE(t, tree.Level(rootsRow + i)[cur^1]))})
	}
	before := cs.NumConstraints()
	var sha Sha254Hasher
	var por PoRNoChallenge
	if err := ApexPoR(cs, &sha, &por, leafs, pb, path, commD); err != nil {
		t.Fatal(err)
	}
	return cs, cs.NumConstraints() - before
}

// Upstream test_apex_por_gadget_small_sector_sizes and
// test_apex_por_gadget_16kib_4_8_partitions.
func TestApexPoR(t *testing.T) {
	for _, tc := range []struct {
		log2Nodes, partitions, apexLeafs, rows int
		test                                   bool // in a test system (else counted)
	}{
		{6, 1, 8, 317654, true},      // 2 KiB
		{9, 4, 16, 771448, false},    // 16 KiB, 4 partitions of 16 apex leafs
		{9, 8, 8, 453797, true},      // 16 KiB, 8 partitions of 8
		{10, 2, 128, 5808515, false}, // 32 KiB
	} {
		for _, k := range []int{0, tc.partitions - 1} {
			name := fmt.Sprintf("2^%d_%dx%d_k%d", tc.log2Nodes, tc.partitions, tc.apexLeafs, k)
			t.Run(name, func(t *testing.T) {
				if tc.test && k > 0 {
					testenv.Short(t, "every partition but the first")
				}
				var b r1cs.Sink = r1cs.Counter{}
				ts := r1cs.NewTestSystem()
				if tc.test {
					b = ts
				}
				_, rows := apexCase(t, b, tc.log2Nodes, tc.partitions, tc.apexLeafs, k)
				if rows != tc.rows {
					t.Errorf("%d rows, upstream %d", rows, tc.rows)
				}
				if tc.test {
					requireSatisfied(t, ts)
				}
			})
		}
	}
}

// rowsOnly records canonical rows without values, as key generation does.
type rowsOnly struct{ rows [][3][]r1cs.Term }

func (r *rowsOnly) Needs() r1cs.Needs      { return r1cs.NeedRows }
func (r *rowsOnly) AllocInput(*fr.Element) {}
func (r *rowsOnly) Alloc(*fr.Element)      {}
func (r *rowsOnly) Enforce(_ *r1cs.CS, a, b, c *r1cs.LC) {
	r.rows = append(r.rows, [3][]r1cs.Term{r1cs.CanonicalTerms(a, nil), r1cs.CanonicalTerms(b, nil), r1cs.CanonicalTerms(c, nil)})
}

// Without values Poseidon skips the permutation's arithmetic; the rows must
// be the ones synthesised with values.
func TestPoseidonRowsWithoutValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	vals := make([]fr.Element, 8)
	for i := range vals {
		vals[i] = randFr(rng)
	}
	for _, h := range []func(cs *r1cs.CS, pre []AllocatedNum){
		func(cs *r1cs.CS, pre []AllocatedNum) { _, _ = PoseidonHash(cs, pre) },
		func(cs *r1cs.CS, pre []AllocatedNum) { PoseidonGenRandomness(cs, pre[0], pre[1]) },
	} {
		cs, ts := testCS(true)
		h(cs, allocNums(cs, vals))
		requireSatisfied(t, ts)
		ro := &rowsOnly{}
		cs2 := r1cs.New(ro)
		h(cs2, allocNums(cs2, vals))
		if len(ro.rows) != len(ts.Rows) || cs2.NumAux() != cs.NumAux() {
			t.Fatalf("%d rows / %d aux without values, %d / %d with", len(ro.rows), cs2.NumAux(), len(ts.Rows), cs.NumAux())
		}
		for i := range ro.rows {
			for k, terms := range [3][]r1cs.Term{ts.Rows[i].A, ts.Rows[i].B, ts.Rows[i].C} {
				got := ro.rows[i][k]
				ok := len(got) == len(terms)
				for j := 0; ok && j < len(got); j++ {
					ok = got[j].Var == terms[j].Var && got[j].Coeff.Equal(&terms[j].Coeff)
				}
				if !ok {
					t.Fatalf("row %d %c differs without values", i, "ABC"[k])
				}
			}
		}
	}
}
