package circuit

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func rustC1(t testing.TB, size string) *c1.Output {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(golden.Dir(), "seal", size, "c1.json"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := c1.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func partition(t testing.TB, o *c1.Output, k int) *Stacked {
	t.Helper()
	in, err := porep.CircuitInputs(o, k)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := DimsOf(o.RegisteredProof)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(shape, in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func digest(t testing.TB, c r1cs.Circuit) r1cs.Digest {
	t.Helper()
	rec := r1cs.NewRecorder()
	if _, err := r1cs.Synthesize(c, rec); err != nil {
		t.Fatal(err)
	}
	return rec.Digest()
}

// The 2 KiB circuit synthesised from a C1 that rust-fil-proofs sealed must
// be rust-fil-proofs' circuit: same rows, coefficients, variables, witness.
func TestGoldenPoRep2KiB(t *testing.T) {
	testenv.Short(t, "2.7 M rows")
	g := golden.Require(t, "porep_2KiB")
	s := partition(t, rustC1(t, "2KiB"), 0)
	golden.Compare(t, g, digest(t, s))
	// The inputs the circuit exposes are the ones the prover's inputs say.
	want := s.In.PublicInputs()
	if len(g.PublicInputs) != len(want) {
		t.Fatalf("golden has %d public inputs, circuit %d", len(g.PublicInputs), len(want))
	}
	for i, h := range g.PublicInputs {
		b := fr32.FromElement(&want[i])
		if hex.EncodeToString(b[:]) != h {
			t.Errorf("public input %d: %x, rust %s", i, b, h)
		}
	}
}

func TestGoldenPoRep8MiB(t *testing.T) {
	testenv.Short(t, "3.8 M rows")
	g := golden.Require(t, "porep_8MiB")
	golden.Compare(t, g, digest(t, partition(t, rustC1(t, "8MiB"), 0)))
}

// The four upstream stacked-circuit test shapes, from the vanilla proofs the
// Rust harness made for them.
func TestGoldenStackedShapes(t *testing.T) {
	testenv.Short(t, "1.2 M rows each")
	for _, name := range []string{"stacked_2_0_0", "stacked_8_0_0", "stacked_8_4_0", "stacked_8_4_2"} {
		t.Run(name, func(t *testing.T) {
			g := golden.Require(t, name)
			s := stackedCase(t, name)
			golden.Compare(t, g, digest(t, s))
		})
	}
}

type stackedVanilla struct {
	CommC         string          `json:"comm_c"`
	CommD         string          `json:"comm_d"`
	CommR         string          `json:"comm_r"`
	CommRLast     string          `json:"comm_r_last"`
	ReplicaID     string          `json:"replica_id"`
	Layers        int             `json:"layers"`
	Nodes         int             `json:"nodes"`
	TreeArities   []int           `json:"tree_arities"`
	VanillaProofs json.RawMessage `json:"vanilla_proofs"`
}

func hexElement(t testing.TB, h string) fr.Element {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 32 {
		t.Fatalf("bad hex %q", h)
	}
	e, err := fr32.ToElement([32]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// stackedCase builds the circuit of an upstream test shape (not a
// registered proof, so the inputs are assembled here from the rfp-level
// vanilla proofs).
func stackedCase(t testing.TB, name string) *Stacked {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(golden.Dir(), "stacked", name+".vanilla.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v stackedVanilla
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	proofs, err := c1.UnmarshalVanillaProofs(v.VanillaProofs)
	if err != nil {
		t.Fatal(err)
	}
	ps := proofs[0]
	in := &porep.PartitionInputs{
		ReplicaID: hexElement(t, v.ReplicaID),
		CommD:     hexElement(t, v.CommD),
		CommR:     hexElement(t, v.CommR),
		CommRLast: hexElement(t, v.CommRLast),
		CommC:     hexElement(t, v.CommC),
	}
	toElems := func(ds [][32]byte) []fr.Element {
		out := make([]fr.Element, len(ds))
		for i, d := range ds {
			out[i], _ = fr32.ToElement(d)
		}
		return out
	}
	path := func(m *c1.MerkleProof) []porep.PathLevel {
		var out []porep.PathLevel
		for _, e := range m.Path() {
			out = append(out, porep.PathLevel{Siblings: toElems(e.Hashes), Index: int(e.Index)})
		}
		return out
	}
	cols := func(cs []c1.ColumnProof) []porep.ColumnOpening {
		var out []porep.ColumnOpening
		for i := range cs {
			out = append(out, porep.ColumnOpening{Rows: toElems(cs[i].Column.Rows), Path: path(&cs[i].InclusionProof)})
		}
		return out
	}
	for i := range ps {
		p := &ps[i]
		leaf, _ := fr32.ToElement(p.CommDProofs.Leaf)
		in.Challenges = append(in.Challenges, porep.ChallengeInputs{
			Challenge:     p.LabelingProofs[0].Node,
			DataLeaf:      leaf,
			CommDPath:     path(&p.CommDProofs),
			CommRLastPath: path(&p.CommRLastProof),
			CommCPath:     path(&p.ReplicaColumnProofs.CX.InclusionProof),
			DRGParents:    cols(p.ReplicaColumnProofs.DRGParents),
			ExpParents:    cols(p.ReplicaColumnProofs.ExpParents),
		})
	}
	a := v.TreeArities
	shape := Dims{
		Tree:       merkle.Shape{Base: a[0], Sub: a[1], Top: a[2]},
		TreeLevels: len(in.Challenges[0].CommCPath),
		Layers:     v.Layers,
		TreeDDepth: len(in.Challenges[0].CommDPath),
		Challenges: len(in.Challenges),
	}
	s, err := New(shape, in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Counts for every published sector size, with the counting system
// (REFERENCES §8.3; 32 GiB is stated upstream: 130,278,541 rows before the
// input rows, 328 inputs with ONE, 130,169,893 aux).
func TestCounts(t *testing.T) {
	cases := []struct {
		proof       filecoin.RegisteredSealProof
		rows, aux   int
		inputs      int
		slowInShort bool
	}{
		{filecoin.StackedDrg2KiBV1_1, 2687921, 2685673, 40, false},
		{filecoin.StackedDrg8MiBV1_1, 3844929, 3842449, 40, false},
		{filecoin.StackedDrg512MiBV1_1, 4423433, 0, 40, true},
		{filecoin.StackedDrg32GiBV1_1, 130278541, 130169893, 328, true},
		{filecoin.StackedDrg64GiBV1_1, 131185849, 0, 328, true},
	}
	for _, c := range cases {
		t.Run(c.proof.String(), func(t *testing.T) {
			if c.slowInShort {
				testenv.Short(t, "large circuit")
			}
			shape, in, err := Blank(c.proof)
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(shape, in)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := r1cs.Synthesize(s, r1cs.Counter{})
			if err != nil {
				t.Fatal(err)
			}
			got := cs.Size()
			if got.Constraints != c.rows || got.Inputs != c.inputs || (c.aux != 0 && got.Aux != c.aux) {
				t.Errorf("rows %d inputs %d aux %d; want %d / %d / %d", got.Constraints, got.Inputs, got.Aux, c.rows, c.inputs, c.aux)
			}
			t.Logf("%s: %d rows (+%d input rows), %d inputs, %d aux", c.proof, got.Constraints, got.Inputs, got.Inputs, got.Aux)
		})
	}
}

// A real 2 KiB C1 gives a satisfied circuit; a tampered one does not.
func TestSatisfiedAndTampered(t *testing.T) {
	testenv.Short(t, "2.7 M rows per synthesis")
	o := rustC1(t, "2KiB")
	check := func(s *Stacked) *r1cs.TestSystem {
		ts := r1cs.NewTestSystem()
		if _, err := r1cs.Synthesize(s, ts); err != nil {
			t.Fatal(err)
		}
		return ts
	}
	s := partition(t, o, 0)
	if ts := check(s); !ts.IsSatisfied() {
		t.Fatalf("honest C1 unsatisfied: %s", ts.WhichIsUnsatisfied())
	}
	one := fr.One()
	tamper := []struct {
		name string
		f    func(in *porep.PartitionInputs)
	}{
		{"parent label", func(in *porep.PartitionInputs) {
			r := &in.Challenges[0].DRGParents[2].Rows[1]
			r.Add(r, &one)
		}},
		{"tree_d sibling", func(in *porep.PartitionInputs) {
			s := &in.Challenges[1].CommDPath[3].Siblings[0]
			s.Add(s, &one)
		}},
		{"tree_r path index", func(in *porep.PartitionInputs) {
			l := &in.Challenges[0].CommRLastPath[0]
			l.Index = (l.Index + 1) % 8
		}},
		{"data leaf", func(in *porep.PartitionInputs) {
			d := &in.Challenges[1].DataLeaf
			d.Add(d, &one)
		}},
	}
	for _, tc := range tamper {
		s := partition(t, o, 0)
		tc.f(s.In)
		if ts := check(s); ts.IsSatisfied() {
			t.Errorf("%s: tampered C1 still satisfies the circuit", tc.name)
		} else {
			t.Logf("%s: %s", tc.name, ts.WhichIsUnsatisfied())
		}
	}
}

// New refuses inputs whose dimensions differ from the shape anywhere.
func TestNewChecksDimensions(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(in *porep.PartitionInputs)
	}{
		{"extra tree_r level", func(in *porep.PartitionInputs) {
			c := &in.Challenges[0]
			c.CommRLastPath = append(c.CommRLastPath, c.CommRLastPath[0])
		}},
		{"short parent path", func(in *porep.PartitionInputs) {
			p := &in.Challenges[1].ExpParents[3]
			p.Path = p.Path[:1]
		}},
		{"sibling count", func(in *porep.PartitionInputs) {
			l := &in.Challenges[0].CommCPath[0]
			l.Siblings = l.Siblings[:3]
		}},
		{"tree_d depth", func(in *porep.PartitionInputs) {
			c := &in.Challenges[0]
			c.CommDPath = c.CommDPath[1:]
		}},
	} {
		shape, in, err := Blank(filecoin.StackedDrg2KiBV1_1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(shape, in); err != nil {
			t.Fatalf("blank inputs rejected: %v", err)
		}
		tc.f(in)
		if _, err := New(shape, in); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
