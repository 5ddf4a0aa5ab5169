package r1cs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// QAPAssembly is the key-generation system. Instead of keeping per-variable
// lists of (coefficient, row) as bellperson's KeypairAssembly does, it folds
// each row into the QAP polynomials evaluated at τ as the row is enforced:
// with L_j(τ) the Lagrange basis of the evaluation domain at τ, variable i
// gets U_i = Σ_j A_ij·L_j(τ) (likewise V from B and W from C). That needs the
// row count in advance (count with Counter first) but only 3×32 bytes per
// variable, whatever the number of rows.
//
// It also records the structural densities the prover will observe (same
// rule as ProvingAssignment), which decide which a/b query points exist.
type QAPAssembly struct {
	lagrange []fr.Element

	UIn, VIn, WIn    []fr.Element
	UAux, VAux, WAux []fr.Element

	AAuxDensity   Bitset
	BInputDensity Bitset
	BAuxDensity   Bitset

	err error
}

// NewQAPAssembly returns an assembly for a circuit of at most len(lagrange)
// rows (input rows included); lagrange[j] = L_j(τ).
func NewQAPAssembly(lagrange []fr.Element, hint Size) *QAPAssembly {
	return &QAPAssembly{
		lagrange: lagrange,
		UIn:      make([]fr.Element, 0, hint.Inputs),
		VIn:      make([]fr.Element, 0, hint.Inputs),
		WIn:      make([]fr.Element, 0, hint.Inputs),
		UAux:     make([]fr.Element, 0, hint.Aux),
		VAux:     make([]fr.Element, 0, hint.Aux),
		WAux:     make([]fr.Element, 0, hint.Aux),
	}
}

// Needs implements Sink.
func (q *QAPAssembly) Needs() Needs { return NeedRows }

// AllocInput implements Sink.
func (q *QAPAssembly) AllocInput(*fr.Element) {
	var z fr.Element
	q.UIn, q.VIn, q.WIn = append(q.UIn, z), append(q.VIn, z), append(q.WIn, z)
	q.BInputDensity.Append()
}

// Alloc implements Sink.
func (q *QAPAssembly) Alloc(*fr.Element) {
	var z fr.Element
	q.UAux, q.VAux, q.WAux = append(q.UAux, z), append(q.VAux, z), append(q.WAux, z)
	q.AAuxDensity.Append()
	q.BAuxDensity.Append()
}

// Enforce implements Sink.
func (q *QAPAssembly) Enforce(cs *CS, a, b, c *LC) {
	row := cs.NumConstraints() - 1
	if row >= len(q.lagrange) {
		if q.err == nil {
			q.err = fmt.Errorf("r1cs: circuit has more than the %d rows it was sized for", len(q.lagrange))
		}
		return
	}
	l := &q.lagrange[row]
	q.fold(a, l, q.UIn, q.UAux, nil, &q.AAuxDensity)
	q.fold(b, l, q.VIn, q.VAux, &q.BInputDensity, &q.BAuxDensity)
	q.fold(c, l, q.WIn, q.WAux, nil, nil)
}

func (q *QAPAssembly) fold(lc *LC, l *fr.Element, in, aux []fr.Element, inD, auxD *Bitset) {
	var tmp fr.Element
	if !lc.one.IsZero() {
		tmp.Mul(&lc.one, l)
		in[0].Add(&in[0], &tmp)
		if inD != nil {
			inD.Set(0)
		}
	}
	for i := range lc.terms {
		t := &lc.terms[i]
		if t.Coeff.IsZero() {
			continue // cancelled out: must not be marked dense
		}
		tmp.Mul(&t.Coeff, l)
		idx := t.Var.Index()
		if t.Var.IsAux() {
			aux[idx].Add(&aux[idx], &tmp)
			if auxD != nil {
				auxD.Set(idx)
			}
		} else {
			in[idx].Add(&in[idx], &tmp)
			if inD != nil {
				inD.Set(idx)
			}
		}
	}
}

// Err reports a circuit that outgrew its Lagrange table.
func (q *QAPAssembly) Err() error { return q.err }
