package r1cs

import (
	"fmt"
	"slices"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Row is a recorded constraint in canonical form: ONE appears as input 0 and
// the terms are sorted, inputs first, each kind by index.
type Row struct {
	A, B, C []Term
	Path    string
}

// Unsatisfied describes a row whose A·B differs from C at the witness.
type Unsatisfied struct {
	Index   int    // row number
	Path    string // namespace path when it was enforced
	A, B, C fr.Element
}

func (u Unsatisfied) String() string {
	return fmt.Sprintf("row %d at %q: A·B ≠ C (A=%s B=%s C=%s)", u.Index, u.Path, u.A.String(), u.B.String(), u.C.String())
}

// TestSystem checks every row against the witness as it is enforced and
// remembers which ones fail, with their namespace paths. With KeepRows set it
// also keeps every row in canonical form for row-level assertions (small
// circuits only).
type TestSystem struct {
	KeepRows bool

	Input []fr.Element
	Aux   []fr.Element
	Rows  []Row

	failures []Unsatisfied
	nfail    int
}

// MaxReportedFailures bounds how many unsatisfied rows are kept in detail.
const MaxReportedFailures = 16

// NewTestSystem returns an empty test system.
func NewTestSystem() *TestSystem { return &TestSystem{} }

// Needs implements Sink.
func (t *TestSystem) Needs() Needs { return NeedValues | NeedRows | NeedNames }

// AllocInput implements Sink.
func (t *TestSystem) AllocInput(v *fr.Element) { t.Input = append(t.Input, *v) }

// Alloc implements Sink.
func (t *TestSystem) Alloc(v *fr.Element) { t.Aux = append(t.Aux, *v) }

// Enforce implements Sink.
func (t *TestSystem) Enforce(cs *CS, a, b, c *LC) {
	av := a.Eval(t.Input, t.Aux)
	bv := b.Eval(t.Input, t.Aux)
	cv := c.Eval(t.Input, t.Aux)
	var ab fr.Element
	ab.Mul(&av, &bv)
	row := cs.NumConstraints() - 1
	if !ab.Equal(&cv) {
		t.nfail++
		if len(t.failures) < MaxReportedFailures {
			t.failures = append(t.failures, Unsatisfied{Index: row, Path: cs.Path(), A: av, B: bv, C: cv})
		}
	}
	if t.KeepRows {
		t.Rows = append(t.Rows, Row{A: CanonicalTerms(a, nil), B: CanonicalTerms(b, nil), C: CanonicalTerms(c, nil), Path: cs.Path()})
	}
}

// IsSatisfied reports whether every row holds.
func (t *TestSystem) IsSatisfied() bool { return t.nfail == 0 }

// NumUnsatisfied is the number of failing rows.
func (t *TestSystem) NumUnsatisfied() int { return t.nfail }

// Unsatisfied returns the first failing rows (up to MaxReportedFailures).
func (t *TestSystem) Unsatisfied() []Unsatisfied { return t.failures }

// WhichIsUnsatisfied describes the first failing row, or "" when all hold.
func (t *TestSystem) WhichIsUnsatisfied() string {
	if len(t.failures) == 0 {
		return ""
	}
	return t.failures[0].String()
}

// Value returns the value of v.
func (t *TestSystem) Value(v Variable) fr.Element {
	if v.IsAux() {
		return t.Aux[v.Index()]
	}
	return t.Input[v.Index()]
}

// CanonicalTerms appends lc's terms in canonical order to dst: ONE (input 0)
// folded in, zero coefficients dropped, inputs before aux, each by index. lc
// must already be merged (as every LC a Sink receives is).
func CanonicalTerms(lc *LC, dst []Term) []Term {
	dst = dst[:0]
	if !lc.one.IsZero() {
		dst = append(dst, Term{Var: One, Coeff: lc.one})
	}
	for i := range lc.terms {
		if !lc.terms[i].Coeff.IsZero() {
			dst = append(dst, lc.terms[i])
		}
	}
	slices.SortFunc(dst, func(x, y Term) int {
		switch {
		case x.Var < y.Var:
			return -1
		case x.Var > y.Var:
			return 1
		}
		return 0
	})
	return dst
}
