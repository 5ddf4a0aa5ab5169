package circuit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func randFr(rng *rand.Rand) fr.Element {
	var e fr.Element
	e.SetUint64(rng.Uint64())
	var h fr.Element
	h.SetUint64(rng.Uint64())
	e.Mul(&e, &h)
	h.SetUint64(rng.Uint64())
	e.Add(&e, &h)
	return e
}

// testSector builds a Poseidon tree of shape over leaves random leaves, a
// random comm_c, comm_r = Poseidon-2(comm_c, comm_r_last) and challenges
// random challenged leaves with their paths.
func testSector(t testing.TB, rng *rand.Rand, shape merkle.Shape, leaves, challenges int) Sector {
	t.Helper()
	data := make([]fr.Element, leaves)
	for i := range data {
		data[i] = randFr(rng)
	}
	tree, err := merkle.BuildPoseidon(shape, data, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := Sector{CommC: randFr(rng), CommRLast: tree.Root()}
	s.CommR = hash.Poseidon(2).Hash([]fr.Element{s.CommC, s.CommRLast})
	for j := 0; j < challenges; j++ {
		p, err := tree.Prove(rng.IntN(leaves))
		if err != nil {
			t.Fatal(err)
		}
		c := Challenge{Leaf: p.Leaf}
		for _, e := range p.Path {
			c.Path = append(c.Path, gadgets.PathElement{Siblings: e.Hashes, Index: e.Index})
		}
		s.Challenges = append(s.Challenges, c)
	}
	return s
}

func synthTest(t testing.TB, f *FallbackPoSt) (*r1cs.CS, *r1cs.TestSystem) {
	t.Helper()
	ts := r1cs.NewTestSystem()
	cs, err := r1cs.Synthesize(f, ts)
	if err != nil {
		t.Fatal(err)
	}
	return cs, ts
}

// storage-proofs-post tests/fallback_circuit.rs: 64 leaves per base tree,
// 5 challenges per sector; (tree, sectors per partition) → inputs, rows.
// The Go circuit is built from real trees and must be satisfied, expose
// comm_r and the leaf indices, and match upstream's counts.
func TestUpstreamFallbackCircuitShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		tree         merkle.Shape
		sectors      int
		inputs, rows int
	}{
		{merkle.Shape{Base: 8}, 3, 19, 16869},
		{merkle.Shape{Base: 8, Sub: 4}, 3, 19, 22674},
		{merkle.Shape{Base: 8, Sub: 4, Top: 2}, 3, 19, 27384},
		{merkle.Shape{Base: 8}, 2, 13, 11246},
	} {
		t.Run(fmt.Sprintf("%v_%d", tc.tree, tc.sectors), func(t *testing.T) {
			leaves := 64 * tc.tree.BaseTreeCount()
			arities, err := tc.tree.Arities(leaves)
			if err != nil {
				t.Fatal(err)
			}
			shape := Dims{Tree: merkle.Shape{Base: tc.tree.Base, Sub: tc.tree.Sub, Top: tc.tree.Top}, TreeLevels: len(arities), Sectors: tc.sectors, Challenges: 5}
			var sectors []Sector
			for i := 0; i < tc.sectors; i++ {
				sectors = append(sectors, testSector(t, rng, tc.tree, leaves, 5))
			}
			f, err := New(shape, sectors)
			if err != nil {
				t.Fatal(err)
			}
			cs, ts := synthTest(t, f)
			if !ts.IsSatisfied() {
				t.Fatalf("honest witness unsatisfied: %s", ts.WhichIsUnsatisfied())
			}
			if cs.NumConstraints() != tc.rows || cs.NumInputs() != tc.inputs {
				t.Errorf("%d rows / %d inputs, upstream %d / %d", cs.NumConstraints(), cs.NumInputs(), tc.rows, tc.inputs)
			}
			want := f.PublicInputs()
			if len(want)+1 != len(ts.Input) {
				t.Fatalf("%d public inputs, circuit has %d", len(want), len(ts.Input)-1)
			}
			for i := range want {
				if !want[i].Equal(&ts.Input[i+1]) {
					t.Errorf("public input %d: circuit %s, PublicInputs %s", i, ts.Input[i+1].String(), want[i].String())
				}
			}
		})
	}
}

// Any changed value of a satisfying witness breaks a row, and the report
// names where.
func TestTampered(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	shape, err := DimsOf(filecoin.StackedDrgWindow2KiBV1_2)
	if err != nil {
		t.Fatal(err)
	}
	base := []Sector{testSector(t, rng, merkle.ShapeBase, 64, 10), testSector(t, rng, merkle.ShapeBase, 64, 10)}
	clone := func() []Sector {
		out := make([]Sector, len(base))
		for i, s := range base {
			out[i] = s
			out[i].Challenges = make([]Challenge, len(s.Challenges))
			for j, c := range s.Challenges {
				out[i].Challenges[j] = Challenge{Leaf: c.Leaf, Path: make([]gadgets.PathElement, len(c.Path))}
				for l, e := range c.Path {
					out[i].Challenges[j].Path[l] = gadgets.PathElement{Siblings: append([]fr.Element(nil), e.Siblings...), Index: e.Index}
				}
			}
		}
		return out
	}
	one := fr.One()
	for _, tc := range []struct {
		name string
		f    func(s []Sector)
		path string
	}{
		{"none", func([]Sector) {}, ""},
		{"leaf", func(s []Sector) { s[1].Challenges[3].Leaf.Add(&s[1].Challenges[3].Leaf, &one) }, "sector[1]/challenge_inclusion[3]"},
		{"comm_r", func(s []Sector) { s[0].CommR.Add(&s[0].CommR, &one) }, "sector[0]"},
		{"comm_c", func(s []Sector) { s[1].CommC.Add(&s[1].CommC, &one) }, "sector[1]"},
		{"sibling", func(s []Sector) {
			e := &s[0].Challenges[7].Path[1].Siblings[4]
			e.Add(e, &one)
		}, "sector[0]/challenge_inclusion[7]"},
		{"index", func(s []Sector) {
			e := &s[1].Challenges[0].Path[0]
			e.Index = (e.Index + 1) % 8
		}, "sector[1]/challenge_inclusion[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := clone()
			tc.f(s)
			f, err := New(shape, s)
			if err != nil {
				t.Fatal(err)
			}
			_, ts := synthTest(t, f)
			if tc.path == "" {
				if !ts.IsSatisfied() {
					t.Fatalf("honest witness unsatisfied: %s", ts.WhichIsUnsatisfied())
				}
				return
			}
			if ts.IsSatisfied() {
				t.Fatal("tampered witness satisfies the circuit")
			}
			if u := ts.Unsatisfied()[0]; u.Path != tc.path {
				t.Errorf("first failing row %s, want one at %q", u, tc.path)
			} else {
				t.Log(u)
			}
		})
	}
}

func TestNewChecksDimensions(t *testing.T) {
	shape, err := DimsOf(filecoin.StackedDrgWindow2KiBV1_2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    func(f *FallbackPoSt) []Sector
	}{
		{"sector count", func(f *FallbackPoSt) []Sector { return f.Sectors[:1] }},
		{"challenge count", func(f *FallbackPoSt) []Sector {
			f.Sectors[1].Challenges = f.Sectors[1].Challenges[:9]
			return f.Sectors
		}},
		{"path length", func(f *FallbackPoSt) []Sector {
			c := &f.Sectors[0].Challenges[2]
			c.Path = c.Path[:1]
			return f.Sectors
		}},
		{"siblings", func(f *FallbackPoSt) []Sector {
			c := &f.Sectors[0].Challenges[2]
			c.Path = []gadgets.PathElement{c.Path[0], {Siblings: make([]fr.Element, 3)}}
			return f.Sectors
		}},
		{"index", func(f *FallbackPoSt) []Sector {
			c := &f.Sectors[1].Challenges[0]
			c.Path = []gadgets.PathElement{c.Path[0], {Siblings: c.Path[1].Siblings, Index: 8}}
			return f.Sectors
		}},
	} {
		f, err := Blank(shape)
		if err != nil {
			t.Fatal(err)
		}
		f.Sectors = append([]Sector(nil), f.Sectors...)
		for i := range f.Sectors {
			f.Sectors[i].Challenges = append([]Challenge(nil), f.Sectors[i].Challenges...)
		}
		if _, err := New(shape, tc.f(f)); !errors.Is(err, ErrInputs) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// Counts for every registered PoSt proof. Upstream states Window 32 GiB
// (125,279,217) and 64 GiB (129,887,900); Winning 32 GiB 370,590 and the
// others are derived (REFERENCES-POST-SNAP §4): per sector 313 rows
// (inputize, Poseidon-2, equality) plus a 530·L + 2 row PoR per challenge
// over L arity-8 levels.
func TestCounts(t *testing.T) {
	cases := []struct {
		proof        filecoin.RegisteredPoStProof
		rows, inputs int
		short        bool // run in -short
	}{
		{filecoin.StackedDrgWinning2KiBV1, 90750, 133, true},
		{filecoin.StackedDrgWinning8MiBV1, 0, 133, true},
		{filecoin.StackedDrgWinning512MiBV1, 0, 133, true},
		{filecoin.StackedDrgWinning32GiBV1, 370590, 133, true},
		{filecoin.StackedDrgWinning64GiBV1, 391314, 133, true},
		{filecoin.StackedDrgWindow2KiBV1_2, 21866, 23, true},
		{filecoin.StackedDrgWindow8MiBV1_2, 0, 23, true},
		{filecoin.StackedDrgWindow512MiBV1_2, 0, 23, true},
		{filecoin.StackedDrgWindow32GiBV1_2, 125279217, 25840, false},
		{filecoin.StackedDrgWindow64GiBV1_2, 129887900, 25301, false},
	}
	for _, c := range cases {
		t.Run(c.proof.String(), func(t *testing.T) {
			if !c.short {
				testenv.Short(t, "125 M rows")
			}
			shape, err := DimsOf(c.proof)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Blank(shape)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cs, err := r1cs.Synthesize(f, r1cs.Counter{})
			if err != nil {
				t.Fatal(err)
			}
			got := cs.Size()
			if (c.rows != 0 && got.Constraints != c.rows) || got.Inputs != c.inputs {
				t.Errorf("%d rows / %d inputs, want %d / %d", got.Constraints, got.Inputs, c.rows, c.inputs)
			}
			t.Logf("%s: %d rows, %d inputs, %d aux in %v", c.proof, got.Constraints, got.Inputs, got.Aux, time.Since(start))
		})
	}
}

// storage-proofs-post test_fallback_post_circuit_poseidon_base_8_bench_cs:
// the blank circuit of 5 sectors × 10 challenges over a 32 GiB 8-0-0 tree
// (10 levels) has 266,665 rows.
func TestUpstreamBenchCSCount(t *testing.T) {
	f, err := Blank(Dims{Tree: merkle.Shape{Base: 8}, TreeLevels: 10, Sectors: 5, Challenges: 10})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := r1cs.Synthesize(f, r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	if cs.NumConstraints() != 266665 || cs.NumInputs() != 56 {
		t.Errorf("%d rows / %d inputs, upstream 266,665 / 56", cs.NumConstraints(), cs.NumInputs())
	}
}
