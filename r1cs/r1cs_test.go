package r1cs

import (
	"errors"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

func elem(v int64) fr.Element {
	var e fr.Element
	e.SetInt64(v)
	return e
}

// xorCircuit: bits x, y allocated with boolean checks, then z = x xor y as
// bellpepper's AllocatedBit::xor writes it: (2x)·(y) = (x + y − z); then an
// input w = z exposed with (w)·(ONE) = (z) like AllocatedNum::inputize.
type xorCircuit struct{ x, y bool }

func boolElem(b bool) fr.Element {
	if b {
		return fr.One()
	}
	return fr.Element{}
}

func (c xorCircuit) Synthesize(cs *CS) error {
	x := cs.Alloc(boolElem(c.x))
	cs.Enforce(func(a, b, cc *LC) { a.AddOne().Sub(x); b.Add(x) })
	y := cs.Alloc(boolElem(c.y))
	cs.Enforce(func(a, b, cc *LC) { a.AddOne().Sub(y); b.Add(y) })
	z := cs.Alloc(boolElem(c.x != c.y))
	cs.Enforce(func(a, b, cc *LC) {
		a.Add(x).Add(x)
		b.Add(y)
		cc.Add(x).Add(y).Sub(z)
	})
	w := cs.AllocInput(boolElem(c.x != c.y))
	cs.Enforce(func(a, b, cc *LC) { a.Add(w); b.Add(One); cc.Add(z) })
	return nil
}

func TestProvingAssignmentHandDerived(t *testing.T) {
	pa := NewProvingAssignment(Size{})
	cs, err := Synthesize(xorCircuit{x: true, y: false}, pa)
	if err != nil {
		t.Fatal(err)
	}
	cs.AppendInputRows()
	if got, want := pa.Size(), (Size{Constraints: 6, Inputs: 2, Aux: 3}); got != want {
		t.Fatalf("shape %+v, want %+v", got, want)
	}
	// x=1, y=0, z=1, w=1.
	wantA := []int64{0, 1, 2, 1, 1, 1} // ONE−x, ONE−y, 2x, w, then input rows ONE, w
	wantB := []int64{1, 0, 0, 1, 0, 0}
	wantC := []int64{0, 0, 0, 1, 0, 0} // x+y−z = 0; z = 1
	for i := range wantA {
		for name, pair := range map[string][2]fr.Element{
			"a": {pa.A[i], elem(wantA[i])}, "b": {pa.B[i], elem(wantB[i])}, "c": {pa.C[i], elem(wantC[i])},
		} {
			if !pair[0].Equal(&pair[1]) {
				t.Errorf("row %d %s = %s, want %s", i, name, pair[0].String(), pair[1].String())
			}
		}
	}
	// A touches x, y (boolean rows), x (xor). z only in C: not A-dense.
	checkBits(t, "a_aux", &pa.Density.AAux, []bool{true, true, false})
	// B touches x, y and ONE (inputize row) — w never appears in B.
	checkBits(t, "b_aux", &pa.Density.BAux, []bool{true, true, false})
	checkBits(t, "b_input", &pa.Density.BInput, []bool{true, false})
}

func checkBits(t *testing.T, name string, s *Bitset, want []bool) {
	t.Helper()
	if s.Len() != len(want) {
		t.Fatalf("%s: len %d, want %d", name, s.Len(), len(want))
	}
	for i, w := range want {
		if s.Get(i) != w {
			t.Errorf("%s[%d] = %v, want %v", name, i, s.Get(i), w)
		}
	}
}

// A variable whose coefficients cancel inside one LC must not be marked
// dense, as in bellperson's eval_with_trackers after bellpepper merged it.
func TestDensityIgnoresCancelledTerms(t *testing.T) {
	for _, n := range []int{2, 40} { // pairwise and hashed merge paths
		pa := NewProvingAssignment(Size{})
		cs := New(pa)
		u := cs.Alloc(elem(3))
		vs := make([]Variable, n)
		for i := range vs {
			vs[i] = cs.Alloc(elem(int64(i)))
		}
		cs.Enforce(func(a, b, c *LC) {
			a.Add(u)
			for _, v := range vs {
				a.Add(v)
			}
			a.Sub(u)
			b.Add(u).Sub(u)
			c.Add(vs[0])
		})
		if pa.Density.AAux.Get(0) || pa.Density.BAux.Get(0) {
			t.Errorf("n=%d: cancelled variable marked dense", n)
		}
		if !pa.Density.AAux.Get(1) {
			t.Errorf("n=%d: live variable not marked", n)
		}
		want := elem(int64(n * (n - 1) / 2))
		if !pa.A[0].Equal(&want) {
			t.Errorf("n=%d: a = %s, want %s", n, pa.A[0].String(), want.String())
		}
	}
}

func TestCanonicalMerge(t *testing.T) {
	var z canonicalizer
	for _, n := range []int{3, 30} {
		var lc LC
		two := elem(2)
		for i := 0; i < n; i++ {
			lc.AddScaled(&two, AuxVar(i))
		}
		lc.Add(AuxVar(1)).Sub(AuxVar(2)).Sub(AuxVar(2)).AddOne().Sub(One)
		z.canon(&lc)
		if got := len(lc.Terms()); got != n-1 {
			t.Fatalf("n=%d: %d terms after merge, want %d (cancelled term dropped)", n, got, n-1)
		}
		if got := len(CanonicalTerms(&lc, nil)); got != n-1 {
			t.Fatalf("n=%d: %d non-zero terms, want %d", n, got, n-1)
		}
		three := elem(3)
		if lc.Terms()[1].Var != AuxVar(1) || !lc.Terms()[1].Coeff.Equal(&three) {
			t.Errorf("n=%d: merged term %v", n, lc.Terms()[1])
		}
		if !lc.OneCoeff().IsZero() {
			t.Errorf("ONE coefficient not cancelled")
		}
		for _, tm := range lc.Terms() {
			if tm.Var == AuxVar(2) || tm.Coeff.IsZero() {
				t.Errorf("n=%d: cancelled term kept: %v", n, tm)
			}
		}
	}
}

// A zero coefficient never becomes a term, so it is never marked dense.
func TestZeroCoefficientAddsNoTerm(t *testing.T) {
	pa := NewProvingAssignment(Size{})
	cs := New(pa)
	x := cs.Alloc(elem(1))
	var zero fr.Element
	cs.Enforce(func(a, b, c *LC) {
		a.AddScaled(&zero, x)
		b.SubScaled(&zero, x)
		var o LC
		o.Add(x)
		c.AddScaledLC(&zero, &o)
	})
	if pa.Density.AAux.Get(0) || pa.Density.BAux.Get(0) {
		t.Error("zero-coefficient term marked dense")
	}
}

func TestTestSystemNamesFailingRow(t *testing.T) {
	ts := NewTestSystem()
	cs := New(ts)
	cs.Push("outer")
	cs.PushIdx("gadget", 7)
	x := cs.Alloc(elem(2)) // not a bit
	cs.Enforce(func(a, b, c *LC) { a.AddOne().Sub(x); b.Add(x) })
	cs.Pop()
	cs.Pop()
	if ts.IsSatisfied() {
		t.Fatal("non-boolean value accepted")
	}
	if msg := ts.WhichIsUnsatisfied(); !strings.Contains(msg, "outer/gadget[7]") || !strings.Contains(msg, "row 0") {
		t.Errorf("failure message %q lacks the path or row", msg)
	}

	ok := NewTestSystem()
	if _, err := Synthesize(xorCircuit{x: true, y: true}, ok); err != nil {
		t.Fatal(err)
	}
	if !ok.IsSatisfied() {
		t.Fatal(ok.WhichIsUnsatisfied())
	}
}

func TestCounterMatchesProving(t *testing.T) {
	pa := NewProvingAssignment(Size{})
	cs1, _ := Synthesize(xorCircuit{}, pa)
	cs2, _ := Synthesize(xorCircuit{}, Counter{})
	w := NewWitnessAssignment(Size{})
	cs3, _ := Synthesize(xorCircuit{}, w)
	if cs1.Size() != cs2.Size() || cs1.Size() != cs3.Size() || pa.Size() != cs1.Size() {
		t.Fatalf("sizes differ: proving %+v counter %+v witness %+v", cs1.Size(), cs2.Size(), cs3.Size())
	}
	if len(w.Aux) != 3 || len(w.Input) != 2 {
		t.Fatalf("witness sizes %d/%d", len(w.Input), len(w.Aux))
	}
}

// The QAP folds must equal Σ_j coeff·L_j computed from the recorded rows:
// U, V, W of the inputs and U, V of the aux variables by the UV assembly,
// β·U + α·V + W of the aux variables by the L assembly.
func TestQAPAssemblyMatchesRows(t *testing.T) {
	ts := NewTestSystem()
	ts.KeepRows = true
	cs, _ := Synthesize(xorCircuit{x: true}, ts)
	cs.AppendInputRows()
	lag := make(LagrangeTable, len(ts.Rows))
	for i := range lag {
		lag[i].SetUint64(uint64(1000 + 17*i))
	}
	q := NewQAPAssemblyUV(lag, Size{})
	qcs, _ := Synthesize(xorCircuit{x: true}, q)
	qcs.AppendInputRows()
	if q.Err() != nil {
		t.Fatal(q.Err())
	}
	alpha, beta := elem(11), elem(13)
	ql := NewQAPAssemblyL(lag, Size{}, alpha, beta)
	lcs, _ := Synthesize(xorCircuit{x: true}, ql)
	lcs.AppendInputRows()
	if ql.Err() != nil {
		t.Fatal(ql.Err())
	}
	want := map[Variable][3]fr.Element{}
	for j, r := range ts.Rows {
		for k, terms := range [][]Term{r.A, r.B, r.C} {
			for _, tm := range terms {
				e := want[tm.Var]
				var tmp fr.Element
				tmp.Mul(&tm.Coeff, &lag[j])
				e[k].Add(&e[k], &tmp)
				want[tm.Var] = e
			}
		}
	}
	for v, e := range want {
		if v.IsAux() {
			i := v.Index()
			if !q.UAux[i].Equal(&e[0]) || !q.VAux[i].Equal(&e[1]) {
				t.Errorf("%v: u, v = %s, %s, want %s, %s", v, q.UAux[i].String(), q.VAux[i].String(), e[0].String(), e[1].String())
			}
			var l, tmp fr.Element
			l.Mul(&e[0], &beta)
			tmp.Mul(&e[1], &alpha)
			l.Add(&l, &tmp).Add(&l, &e[2])
			if !ql.LAux[i].Equal(&l) {
				t.Errorf("%v: β·u + α·v + w = %s, want %s", v, ql.LAux[i].String(), l.String())
			}
			continue
		}
		i := v.Index()
		for k, got := range []*fr.Element{&q.UIn[i], &q.VIn[i], &q.WIn[i]} {
			if !got.Equal(&e[k]) {
				t.Errorf("%v poly %d = %s, want %s", v, k, got.String(), e[k].String())
			}
		}
	}
	if len(ql.LAux) != len(q.UAux) || len(q.UAux) != qcs.NumAux() {
		t.Fatalf("aux vectors: %d, %d, circuit %d", len(ql.LAux), len(q.UAux), qcs.NumAux())
	}
	for _, q2 := range []*QAPAssembly{NewQAPAssemblyUV(lag[:3], Size{}), NewQAPAssemblyL(lag[:3], Size{}, alpha, beta)} {
		Synthesize(xorCircuit{}, q2)
		if q2.Err() == nil {
			t.Error("overflowing the Lagrange table was not reported")
		}
	}
}

func TestRecorderDigestSensitivity(t *testing.T) {
	digest := func(c Circuit) Digest {
		r := NewRecorder()
		if _, err := Synthesize(c, r); err != nil {
			t.Fatal(err)
		}
		return r.Digest()
	}
	d1 := digest(xorCircuit{x: true})
	d2 := digest(xorCircuit{x: true})
	d3 := digest(xorCircuit{y: true})
	if d1.R1CS != d2.R1CS || d1.AuxHash != d2.AuxHash {
		t.Fatal("digest not deterministic")
	}
	if d1.R1CS != d3.R1CS {
		t.Error("structure digest depends on the witness")
	}
	if d1.AuxHash == d3.AuxHash {
		t.Error("aux digest ignores the witness")
	}
	if d1.Constraints != 4 || d1.Inputs != 2 || d1.Aux != 3 || len(d1.Chunks) != 1 {
		t.Errorf("counts %+v", d1)
	}
	// Swapping A and B of one row must change the digest.
	swapped := digest(circuitFunc(func(cs *CS) error {
		x := cs.Alloc(fr.One())
		cs.Enforce(func(a, b, c *LC) { b.AddOne().Sub(x); a.Add(x) })
		return nil
	}))
	plain := digest(circuitFunc(func(cs *CS) error {
		x := cs.Alloc(fr.One())
		cs.Enforce(func(a, b, c *LC) { a.AddOne().Sub(x); b.Add(x) })
		return nil
	}))
	if swapped.R1CS == plain.R1CS {
		t.Error("A/B swap not visible in the digest")
	}
}

type circuitFunc func(cs *CS) error

func (f circuitFunc) Synthesize(cs *CS) error { return f(cs) }

// Steady-state synthesis into a ProvingAssignment must not allocate per
// row once its vectors have capacity.
func TestProvingAllocations(t *testing.T) {
	pa := NewProvingAssignment(Size{Constraints: 1 << 16, Inputs: 4, Aux: 1 << 16})
	cs := New(pa)
	x := cs.Alloc(fr.One())
	allocs := testing.AllocsPerRun(1000, func() {
		y := cs.Alloc(fr.One())
		cs.Enforce(func(a, b, c *LC) { a.AddOne().Sub(y); b.Add(y) })
		cs.Enforce(func(a, b, c *LC) { a.Add(x).Add(x); b.Add(y); c.Add(x).Add(y).Sub(y) })
	})
	if allocs != 0 {
		t.Errorf("%v allocations per alloc+2 rows, want 0", allocs)
	}
}

// A templated assignment (densities from an exact run, rows evaluated while
// they are built) must produce exactly the exact assignment's vectors.
func TestTemplatedMatchesExact(t *testing.T) {
	circuits := []Circuit{
		xorCircuit{x: true, y: true},
		circuitFunc(func(cs *CS) error { // LCs added as whole LCs, scaled, subtracted
			x := cs.Alloc(elem(5))
			y := cs.Alloc(elem(7))
			var num LC
			three := elem(3)
			num.AddScaled(&three, x).Add(y).AddOne()
			z := cs.Alloc(elem(3*5 + 7 + 1 - 2))
			cs.Enforce(func(a, b, c *LC) {
				a.AddLC(&num).SubLC(&num).AddScaledLC(&three, &num)
				b.Add(One)
				c.Set(&num).Sub(z).AddConst(&three).SubScaled(&three, One).Add(z)
			})
			cs.Enforce(func(a, b, c *LC) { a.Add(x).Sub(x); b.Add(y); c.Add(z).Sub(z) })
			return nil
		}),
	}
	for i, c := range circuits {
		exact := NewProvingAssignment(Size{})
		cs, _ := Synthesize(c, exact)
		cs.AppendInputRows()
		tmpl := NewTemplatedAssignment(Size{}, exact.Density)
		cs2, _ := Synthesize(c, tmpl)
		cs2.AppendInputRows()
		if err := tmpl.Check(); err != nil {
			t.Fatal(err)
		}
		for name, pair := range map[string][2][]fr.Element{"a": {exact.A, tmpl.A}, "b": {exact.B, tmpl.B}, "c": {exact.C, tmpl.C}, "aux": {exact.Aux, tmpl.Aux}, "in": {exact.Input, tmpl.Input}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("circuit %d: %s lengths %d vs %d", i, name, len(pair[0]), len(pair[1]))
			}
			for j := range pair[0] {
				if !pair[0][j].Equal(&pair[1][j]) {
					t.Errorf("circuit %d: %s[%d] = %s templated, %s exact", i, name, j, pair[1][j].String(), pair[0][j].String())
				}
			}
		}
	}
	// A circuit that outgrows its template is caught.
	exact := NewProvingAssignment(Size{})
	Synthesize(xorCircuit{}, exact)
	tmpl := NewTemplatedAssignment(Size{}, exact.Density)
	cs, _ := Synthesize(xorCircuit{}, tmpl)
	cs.Alloc(elem(1))
	if tmpl.Check() == nil {
		t.Error("extra variable not detected")
	}
}

func TestTemplatedAllocations(t *testing.T) {
	exact := NewProvingAssignment(Size{})
	Synthesize(xorCircuit{}, exact)
	pa := NewTemplatedAssignment(Size{Constraints: 1 << 16, Inputs: 4, Aux: 1 << 16}, exact.Density)
	cs := New(pa)
	x := cs.Alloc(fr.One())
	allocs := testing.AllocsPerRun(1000, func() {
		y := cs.Alloc(fr.One())
		cs.Enforce(func(a, b, c *LC) { a.AddOne().Sub(y); b.Add(y) })
		cs.Enforce(func(a, b, c *LC) { a.Add(x).Add(x); b.Add(y); c.Add(x).Add(y).Sub(y) })
	})
	if allocs != 0 {
		t.Errorf("%v allocations per alloc+2 rows, want 0", allocs)
	}
}

// rowsCircuit enforces n rows (v)·(ONE) = (v).
type rowsCircuit int

func (n rowsCircuit) Synthesize(cs *CS) error {
	v := cs.Alloc(elem(3))
	for range int(n) {
		cs.Enforce(func(a, b, c *LC) { a.Add(v); b.AddOne(); c.Add(v) })
	}
	return nil
}

// TestSynthesizeYielding: the yield function runs once per YieldRows rows
// and the assignment is the one Synthesize makes.
func TestSynthesizeYielding(t *testing.T) {
	n := 3*YieldRows + 5
	calls := 0
	pa := NewProvingAssignment(Size{})
	cs, err := SynthesizeYielding(rowsCircuit(n), pa, func() error {
		calls++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || cs.NumConstraints() != n {
		t.Fatalf("%d yields over %d rows, want 3 over %d", calls, cs.NumConstraints(), n)
	}
	want := NewProvingAssignment(Size{})
	if _, err := Synthesize(rowsCircuit(n), want); err != nil {
		t.Fatal(err)
	}
	if len(pa.A) != len(want.A) || pa.A[n-1] != want.A[n-1] || pa.C[0] != want.C[0] {
		t.Fatal("yielding synthesis differs")
	}
}

// TestOmitC: an assignment that omits c records the same a, b, witness and
// densities as one that keeps it, in both modes, and no c; Check accepts it
// and rejects one that grew a c anyway.
func TestOmitC(t *testing.T) {
	c := xorCircuit{x: true, y: false}
	full := NewProvingAssignment(Size{})
	cs, _ := Synthesize(c, full)
	cs.AppendInputRows()
	for _, template := range []*Densities{nil, full.Density} {
		pa := NewAssignment(Size{Constraints: 16}, template, AssignmentOptions{OmitC: true})
		cs, err := Synthesize(c, pa)
		if err != nil {
			t.Fatal(err)
		}
		cs.AppendInputRows()
		if pa.HasC() || len(pa.C) != 0 || cap(pa.C) != 0 {
			t.Fatalf("templated=%v: c recorded (%d rows, capacity %d)", template != nil, len(pa.C), cap(pa.C))
		}
		if err := pa.Check(); err != nil {
			t.Fatalf("templated=%v: %v", template != nil, err)
		}
		for name, pair := range map[string][2][]fr.Element{"a": {full.A, pa.A}, "b": {full.B, pa.B}, "aux": {full.Aux, pa.Aux}, "in": {full.Input, pa.Input}} {
			if len(pair[0]) != len(pair[1]) {
				t.Fatalf("templated=%v: %s lengths %d vs %d", template != nil, name, len(pair[0]), len(pair[1]))
			}
			for j := range pair[0] {
				if !pair[0][j].Equal(&pair[1][j]) {
					t.Errorf("templated=%v: %s[%d] differs", template != nil, name, j)
				}
			}
		}
		if template == nil && (!pa.Density.AAux.Equal(&full.Density.AAux) || !pa.Density.BAux.Equal(&full.Density.BAux) || !pa.Density.BInput.Equal(&full.Density.BInput)) {
			t.Error("densities differ")
		}
		// c = a∘b row by row for this satisfied witness: what a prover recomputes.
		for j := range full.C {
			var ab fr.Element
			ab.Mul(&full.A[j], &full.B[j])
			if !ab.Equal(&full.C[j]) {
				t.Fatalf("row %d: a·b ≠ c in a satisfied witness", j)
			}
		}
		pa.C = append(pa.C, fr.Element{})
		if pa.Check() == nil {
			t.Error("a c row in an assignment that omits c was not caught")
		}
	}
}

// TestSynthesizeYieldingStops: an error from the yield function stops the
// synthesis at that row and is what SynthesizeYielding returns; a panic
// of the circuit's own still propagates, and a nested synthesis's stop
// ends only the nested one (whose error the circuit may return).
func TestSynthesizeYieldingStops(t *testing.T) {
	stop := errors.New("cancelled")
	rows := 0
	cs, err := SynthesizeYielding(rowsCircuit(10*YieldRows), NewProvingAssignment(Size{}), func() error {
		rows += YieldRows
		if rows == 2*YieldRows {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || cs != nil || rows != 2*YieldRows {
		t.Fatalf("got %v after %d rows, want %v after %d", err, rows, stop, 2*YieldRows)
	}

	func() {
		defer func() {
			if r := recover(); r != "circuit bug" {
				t.Fatalf("recovered %v, want the circuit's own panic", r)
			}
		}()
		_, _ = SynthesizeYielding(circuitFunc(func(*CS) error { panic("circuit bug") }), NewProvingAssignment(Size{}), func() error { return nil })
		t.Fatal("the circuit's panic was swallowed")
	}()

	outer := circuitFunc(func(cs *CS) error {
		_, err := SynthesizeYielding(rowsCircuit(YieldRows), NewProvingAssignment(Size{}), func() error { return stop })
		if !errors.Is(err, stop) {
			t.Errorf("nested: %v", err)
		}
		cs.Yield() // the outer yield lets it go on
		return rowsCircuit(3).Synthesize(cs)
	})
	if cs, err := SynthesizeYielding(outer, NewProvingAssignment(Size{}), func() error { return nil }); err != nil || cs.NumConstraints() != 3 {
		t.Fatalf("outer after a nested stop: %v", err)
	}
	if _, err := SynthesizeYielding(circuitFunc(func(cs *CS) error { cs.Yield(); return nil }), NewProvingAssignment(Size{}), func() error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("CS.Yield with a stopping yield: %v", err)
	}
}

// cSpy records the C every row reaches it with.
type cSpy struct {
	needs Needs
	terms int
	one   int
	rows  int
}

func (s *cSpy) Needs() Needs           { return s.needs }
func (s *cSpy) AllocInput(*fr.Element) {}
func (s *cSpy) Alloc(*fr.Element)      {}
func (s *cSpy) Enforce(_ *CS, _, _, c *LC) {
	s.rows++
	s.terms += len(c.Terms())
	if !c.OneCoeff().IsZero() {
		s.one++
	}
}

// TestIgnoreC: a sink that ignores C gets an empty C whatever the circuit
// adds to it (every LC method, whole LCs included), and the circuit's A
// and B are untouched by it; without IgnoreC it gets the terms.
func TestIgnoreC(t *testing.T) {
	c := circuitFunc(func(cs *CS) error {
		x := cs.Alloc(elem(5))
		y := cs.Alloc(elem(7))
		var num LC
		three := elem(3)
		num.AddScaled(&three, x).Add(y)
		cs.Enforce(func(a, b, c *LC) {
			a.Add(x)
			b.Add(y)
			c.Add(x).Sub(y).AddScaled(&three, x).SubScaled(&three, y).AddLC(&num).SubLC(&num).AddScaledLC(&three, &num)
		})
		cs.Enforce(func(a, b, c *LC) { a.Add(y); b.AddOne(); c.Set(&num) })
		return nil
	})
	for _, tc := range []struct {
		needs     Needs
		wantTerms int
	}{{NeedValues | NeedRows, 2 + 2}, {NeedValues | NeedRows | IgnoreC, 0}} {
		s := &cSpy{needs: tc.needs}
		if _, err := Synthesize(c, s); err != nil {
			t.Fatal(err)
		}
		if s.rows != 2 || s.terms != tc.wantTerms || (tc.needs&IgnoreC != 0 && s.one != 0) {
			t.Errorf("needs %b: %d rows, %d C terms (want %d), %d C with a constant", tc.needs, s.rows, s.terms, tc.wantTerms, s.one)
		}
	}
}

// TestEnforceKnown: a row enforced with its values gives the assignment
// Enforce gives, exact (densities from the built A and B) and templated;
// the values are what the assignments record, and a recorder still gets
// the built row.
func TestEnforceKnown(t *testing.T) {
	circuit := func(known bool) Circuit {
		return circuitFunc(func(cs *CS) error {
			x := cs.Alloc(elem(5))
			w := cs.AllocInput(elem(2))
			y := cs.Alloc(elem(3*5 + 2))
			three := elem(3)
			build := func(a, b, c *LC) { a.AddScaled(&three, x).Add(w).Add(x).Sub(x); b.AddOne().Add(w); c.Add(y).Add(y) }
			if known {
				va, vb, vc := elem(17), elem(3), elem(34)
				cs.EnforceKnown(&va, &vb, &vc, build)
			} else {
				cs.Enforce(build)
			}
			return nil
		})
	}
	want := NewProvingAssignment(Size{})
	Synthesize(circuit(false), want)
	for _, template := range []*Densities{nil, want.Density} {
		pa := NewAssignment(Size{}, template, AssignmentOptions{})
		Synthesize(circuit(true), pa)
		if pa.Digest() != want.Digest() {
			t.Errorf("templated=%v: assignment differs: a %v b %v c %v", template != nil, pa.A, pa.B, pa.C)
		}
	}
	if !want.Density.AAux.Get(0) || want.Density.AAux.Get(1) || !want.Density.BInput.Get(0) || !want.Density.BInput.Get(1) || want.Density.BAux.Get(0) {
		t.Error("densities of the built row are wrong")
	}
	recorded := func(c Circuit) string {
		rec := NewRecorder()
		Synthesize(c, rec)
		return rec.Digest().R1CS
	}
	if recorded(circuit(true)) != recorded(circuit(false)) {
		t.Error("a recorder got a different row from EnforceKnown")
	}
}
