package circuit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func randFr(rng *rand.Rand) fr.Element {
	var le [32]byte
	for i := 0; i < 31; i++ {
		le[i] = byte(rng.Uint32())
	}
	le[31] = byte(rng.Uint32()) & 0x1f
	e, err := fr.LittleEndian.Element(&le)
	if err != nil {
		panic(err)
	}
	return e
}

func genRand(t testing.TB, a, b fr.Element) fr.Element {
	t.Helper()
	p, err := gadgets.CustomPoseidonConstants(2, gadgets.GenRandomnessTagID)
	if err != nil {
		t.Fatal(err)
	}
	return p.Hash([]fr.Element{a, b})
}

// updatedSector is a sector updated natively as storage-proofs-update's
// tests do (tests/common encode_new_replica): random old replica labels and
// new data, label_r_new = label_r_old + label_d_new·ρ(high bits of the node).
type updatedSector struct {
	p                            Params
	h                            int
	treeROld, treeRNew           *merkle.PoseidonTree
	treeDNew                     *merkle.Sha254Tree
	commC                        fr.Element
	commROld, commDNew, commRNew fr.Element
}

func frLE(t testing.TB, b [32]byte) fr.Element {
	t.Helper()
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newUpdatedSector(t testing.TB, rng *rand.Rand, p Params) *updatedSector {
	t.Helper()
	n := int(p.SectorNodes)
	shape := merkle.Shape{Base: p.Tree.Base, Sub: p.Tree.Sub, Top: p.Tree.Top}
	old := make([]fr.Element, n)
	data := make([][32]byte, n)
	for i := range old {
		old[i] = randFr(rng)
		d := randFr(rng)
		fr.LittleEndian.PutElement(&data[i], d)
	}
	u := &updatedSector{p: p, h: p.HDefault(), commC: randFr(rng)}
	var err error
	if u.treeROld, err = merkle.BuildPoseidon(shape, old, 1); err != nil {
		t.Fatal(err)
	}
	if u.treeDNew, err = merkle.BuildSha254(data, 1); err != nil {
		t.Fatal(err)
	}
	u.commROld = hash.Poseidon(2).Hash([]fr.Element{u.commC, u.treeROld.Root()})
	u.commDNew = frLE(t, u.treeDNew.Root())
	phi := genRand(t, u.commDNew, u.commROld)
	shr := p.ChallengeBits - u.h
	rhos := map[int]fr.Element{}
	enc := make([]fr.Element, n)
	for i := range enc {
		high := i >> uint(shr)
		rho, ok := rhos[high]
		if !ok {
			var hv fr.Element
			hv.SetUint64(uint64(high))
			rho = genRand(t, phi, hv)
			rhos[high] = rho
		}
		d := frLE(t, data[i])
		enc[i].Mul(&d, &rho)
		enc[i].Add(&enc[i], &old[i])
	}
	if u.treeRNew, err = merkle.BuildPoseidon(shape, enc, 1); err != nil {
		t.Fatal(err)
	}
	u.commRNew = hash.Poseidon(2).Hash([]fr.Element{u.commC, u.treeRNew.Root()})
	return u
}

// challenges is storage-proofs-update Challenges::new natively.
func (u *updatedSector) challenges(t testing.TB, k int) []int {
	p := u.p
	rb := p.ChallengeBits - p.PartitionBits
	per := gadgets.Capacity / rb
	digests := (p.Challenges + per - 1) / per
	var out []int
	for j := 0; len(out) < p.Challenges; j++ {
		var idx fr.Element
		idx.SetUint64(uint64(k*digests + j))
		d := genRand(t, u.commRNew, idx)
		bits := d.Bits()
		for i := 0; i < per && len(out) < p.Challenges; i++ {
			c := 0
			for b := 0; b < rb; b++ {
				pos := i*rb + b
				if bits[pos/64]>>(uint(pos)%64)&1 == 1 {
					c |= 1 << uint(b)
				}
			}
			out = append(out, c|k<<uint(rb))
		}
	}
	return out
}

func (u *updatedSector) circuit(t testing.TB, k int) *EmptySectorUpdate {
	t.Helper()
	p := u.p
	pub, err := NewPublicInputs(p, k, u.h, u.commROld, u.commDNew, u.commRNew)
	if err != nil {
		t.Fatal(err)
	}
	priv := PrivateInputs{CommC: u.commC, RootROld: u.treeROld.Root(), RootRNew: u.treeRNew.Root()}
	apexLevel := p.ChallengeBits - p.PartitionBits - p.ApexLeafBits
	for _, l := range u.treeDNew.Level(apexLevel)[k*p.ApexLeafs : (k+1)*p.ApexLeafs] {
		priv.ApexLeafs = append(priv.ApexLeafs, frLE(t, l))
	}
	siblings := func(pp *merkle.PoseidonProof) [][]fr.Element {
		var out [][]fr.Element
		for _, e := range pp.Path {
			out = append(out, e.Hashes)
		}
		return out
	}
	for _, c := range u.challenges(t, k) {
		po, err := u.treeROld.Prove(c)
		if err != nil {
			t.Fatal(err)
		}
		pn, err := u.treeRNew.Prove(c)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := u.treeDNew.Prove(c)
		if err != nil {
			t.Fatal(err)
		}
		cp := ChallengeProof{LeafROld: po.Leaf, PathROld: siblings(po), LeafDNew: frLE(t, pd.Leaf), LeafRNew: pn.Leaf, PathRNew: siblings(pn)}
		for _, e := range pd.Path {
			cp.PathDNew = append(cp.PathDNew, []fr.Element{frLE(t, e.Hashes[0])})
		}
		priv.Challenges = append(priv.Challenges, cp)
	}
	c, err := New(p, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func synthTest(t testing.TB, c r1cs.Circuit) (*r1cs.CS, *r1cs.TestSystem, error) {
	t.Helper()
	ts := r1cs.NewTestSystem()
	cs, err := r1cs.Synthesize(c, ts)
	return cs, ts, err
}

func mustParams(t testing.TB, bytes uint64) Params {
	t.Helper()
	p, err := ParamsFor(bytes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A sector updated natively gives a satisfied circuit with upstream's row
// count (tests/circuit.rs), and its public inputs are exactly the four
// values PublicInputs.Vector lists. (Several partitions, with rust-made
// vanilla proofs: the 8 MiB goldens.)
func TestSatisfied(t *testing.T) {
	cases := []struct {
		bytes uint64
		k     int
		rows  int
		short bool
	}{
		{2 << 10, 0, 1705039, true},
		{1 << 10, 0, 1248389, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%dB_k%d", tc.bytes, tc.k), func(t *testing.T) {
			if !tc.short {
				testenv.Short(t, "several million rows in a test system")
			}
			rng := rand.New(rand.NewPCG(tc.bytes, 7))
			u := newUpdatedSector(t, rng, mustParams(t, tc.bytes))
			c := u.circuit(t, tc.k)
			cs, ts, err := synthTest(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if !ts.IsSatisfied() {
				t.Fatalf("honest witness unsatisfied: %s", ts.WhichIsUnsatisfied())
			}
			if cs.NumConstraints() != tc.rows || cs.NumInputs() != 5 {
				t.Errorf("%d rows / %d inputs, upstream %d / 5", cs.NumConstraints(), cs.NumInputs(), tc.rows)
			}
			for i, v := range c.Public.Vector() {
				if !v.Equal(&ts.Input[i+1]) {
					t.Errorf("public input %d: %s, want %s", i, ts.Input[i+1].String(), v.String())
				}
			}
		})
	}
}

// Changing any value of a satisfying witness breaks a row, named by path.
func TestTampered(t *testing.T) {
	rng := rand.New(rand.NewPCG(99, 7))
	u := newUpdatedSector(t, rng, mustParams(t, 2<<10))
	one := fr.One()
	for _, tc := range []struct {
		name string
		f    func(c *EmptySectorUpdate)
		path string
	}{
		{"root_r_old", func(c *EmptySectorUpdate) { c.Private.RootROld.Add(&c.Private.RootROld, &one) }, ""}, // comm_r_old_calc == comm_r_old
		{"apex leaf", func(c *EmptySectorUpdate) { c.Private.ApexLeafs[5].Add(&c.Private.ApexLeafs[5], &one) }, "apex_gadget/partition-tree por"},
		{"path_r_old sibling", func(c *EmptySectorUpdate) {
			s := &c.Private.Challenges[4].PathROld[1][6]
			s.Add(s, &one)
		}, "challenge[4]/por tree_r_old"},
		{"path_d_new sibling", func(c *EmptySectorUpdate) {
			s := &c.Private.Challenges[9].PathDNew[0][0]
			s.Add(s, &one)
		}, "challenge[9]/por to_apex_leaf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name != "path_r_old sibling" && tc.name != "root_r_old" {
				testenv.Short(t, "1.7 M rows each")
			}
			c := u.circuit(t, 0)
			tc.f(c)
			_, ts, err := synthTest(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if ts.IsSatisfied() {
				t.Fatal("tampered witness satisfies the circuit")
			}
			u0 := ts.Unsatisfied()[0]
			if u0.Path != tc.path {
				t.Errorf("first failing row %s, want one at %q", u0, tc.path)
			}
			t.Log(u0)
		})
	}
}

// A leaf_r_new that is not the encoding of its leafs is refused, as the
// upstream circuit asserts.
func TestLeafRNewChecked(t *testing.T) {
	testenv.Short(t, "1.7 M rows")
	rng := rand.New(rand.NewPCG(5, 7))
	u := newUpdatedSector(t, rng, mustParams(t, 2<<10))
	c := u.circuit(t, 0)
	one := fr.One()
	c.Private.Challenges[2].LeafRNew.Add(&c.Private.Challenges[2].LeafRNew, &one)
	if _, _, err := synthTest(t, c); !errors.Is(err, ErrLeafRNew) {
		t.Fatalf("got %v, want ErrLeafRNew", err)
	}
	// A changed comm_r_new moves the challenges and so every ρ: the first
	// challenge's leafs no longer encode, which upstream asserts too.
	c = u.circuit(t, 0)
	c.Public.CommRNew.Add(&c.Public.CommRNew, &one)
	if _, _, err := synthTest(t, c); !errors.Is(err, ErrLeafRNew) {
		t.Fatalf("comm_r_new changed: got %v, want ErrLeafRNew", err)
	}
}

func TestNewRejects(t *testing.T) {
	p := mustParams(t, 16<<10)
	blank, err := Blank(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPublicInputs(p, 2, 1, fr.Element{}, fr.Element{}, fr.Element{}); !errors.Is(err, ErrInputs) {
		t.Errorf("k = 2 of 2 partitions: %v", err)
	}
	if _, err := NewPublicInputs(p, 0, 10, fr.Element{}, fr.Element{}, fr.Element{}); !errors.Is(err, ErrInputs) {
		t.Errorf("h = 10 for 16 KiB: %v", err)
	}
	for _, tc := range []struct {
		name string
		f    func(pub *PublicInputs, priv *PrivateInputs)
	}{
		{"two h-select bits", func(pub *PublicInputs, _ *PrivateInputs) { pub.KAndHSelect.SetUint64(0b110) }},
		{"no h-select bit", func(pub *PublicInputs, _ *PrivateInputs) { pub.KAndHSelect.SetUint64(1) }},
		{"apex leafs", func(_ *PublicInputs, priv *PrivateInputs) { priv.ApexLeafs = priv.ApexLeafs[1:] }},
		{"challenges", func(_ *PublicInputs, priv *PrivateInputs) { priv.Challenges = priv.Challenges[1:] }},
		{"path_r_new levels", func(_ *PublicInputs, priv *PrivateInputs) {
			priv.Challenges[3].PathRNew = priv.Challenges[3].PathRNew[1:]
		}},
		{"partition path", func(_ *PublicInputs, priv *PrivateInputs) {
			c := &priv.Challenges[3]
			c.PathDNew = append([][]fr.Element(nil), c.PathDNew...)
			c.PathDNew[len(c.PathDNew)-1] = []fr.Element{fr.One()}
		}},
	} {
		pub := blank.Public
		priv := blank.Private
		priv.ApexLeafs = append([]fr.Element(nil), priv.ApexLeafs...)
		priv.Challenges = append([]ChallengeProof(nil), priv.Challenges...)
		tc.f(&pub, &priv)
		if _, err := New(p, pub, priv); !errors.Is(err, ErrInputs) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := ParamsFor(3 << 10); !errors.Is(err, ErrSectorSize) {
		t.Errorf("3 KiB: %v", err)
	}
}

// The counts TestCounts expects are those of upstream's blank circuit
// (tools/rustref update-counts, testdata/rustref/update/counts.json): at
// 2 KiB, 8 MiB, 32 GiB and at 64 GiB, which no upstream test states.
func TestCountsAreUpstreams(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/rustref/update/counts.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Sizes []struct {
			SectorSize  uint64 `json:"sector_size"`
			Constraints int    `json:"constraints"`
			Inputs      int    `json:"inputs"`
		} `json:"sizes"`
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Sizes) != 4 {
		t.Fatalf("%d sizes in the golden", len(g.Sizes))
	}
	for _, u := range g.Sizes {
		if want, ok := countRows[u.SectorSize]; !ok || want != u.Constraints || u.Inputs != 5 {
			t.Errorf("%d bytes: upstream %d rows / %d inputs, TestCounts expects %d / 5", u.SectorSize, u.Constraints, u.Inputs, want)
		}
	}
}

// countRows are the rows of the update circuit per sector size: upstream's
// assertions (tests/circuit.rs) for the testing sizes and 32 GiB; 64 GiB
// (8-8-2, 86 challenges) derived, and equal to upstream's blank circuit
// (TestCountsAreUpstreams).
var countRows = map[uint64]int{
	1 << 10: 1248389, 2 << 10: 1705039, 4 << 10: 2165109, 8 << 10: 2620359, 16 << 10: 6300021, 32 << 10: 6760091,
	8 << 20: 10007503, 32 << 30: 81049499,
	// The same 16 partitions as 32 GiB, 86 challenges, 10 challenge digests
	// (⌊254/27⌋ = ⌊254/26⌋ = 9 challenges each) and h = 10, but one more
	// tree level everywhere: both TreeR proofs gain the top arity-2 level
	// (insert 2 rows + Poseidon-2 311) and the TreeD path below the apex
	// leaf one SHA-254 level (insert 2 + 45,379), so 86 × 46,007 =
	// 3,956,602 rows more than 32 GiB.
	64 << 30: 81049499 + 86*(2*(2+311)+2+45379),
}

// Counts with the counting system for every size upstream allows
// (countRows).
func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		bytes uint64
		short bool
	}{
		{1 << 10, true}, {2 << 10, true}, {4 << 10, true}, {8 << 10, true}, {16 << 10, true}, {32 << 10, true},
		{8 << 20, true}, {32 << 30, false}, {64 << 30, false},
	} {
		t.Run(fmt.Sprint(tc.bytes), func(t *testing.T) {
			if !tc.short {
				testenv.Short(t, "large circuit")
			}
			c, err := Blank(mustParams(t, tc.bytes))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cs, err := r1cs.Synthesize(c, r1cs.Counter{})
			if err != nil {
				t.Fatal(err)
			}
			if rows := countRows[tc.bytes]; cs.NumConstraints() != rows || cs.NumInputs() != 5 {
				t.Errorf("%d rows / %d inputs, want %d / 5", cs.NumConstraints(), cs.NumInputs(), rows)
			}
			t.Logf("%d bytes: %d rows, %d inputs, %d aux in %v", tc.bytes, cs.NumConstraints(), cs.NumInputs(), cs.NumAux(), time.Since(start))
		})
	}
}
