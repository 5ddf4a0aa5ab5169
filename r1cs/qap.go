package r1cs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Lagrange gives L_j(τ), the Lagrange basis of the evaluation domain at τ,
// for rows j in increasing order: a QAP assembly asks for every row once,
// in order, so a source can compute them a chunk at a time instead of
// holding 32 bytes per row.
type Lagrange interface {
	// At returns L_j(τ); the pointer is valid until the next call.
	At(row int) (*fr.Element, error)
}

// LagrangeTable is a Lagrange source over values held in memory
// (tests, small circuits): LagrangeTable[j] = L_j(τ).
type LagrangeTable []fr.Element

// At implements Lagrange.
func (t LagrangeTable) At(row int) (*fr.Element, error) {
	if row >= len(t) {
		return nil, fmt.Errorf("r1cs: circuit has more than the %d rows it was sized for", len(t))
	}
	return &t[row], nil
}

// QAPAssembly is the key-generation system. Instead of keeping per-variable
// lists of (coefficient, row) as bellperson's KeypairAssembly does, it folds
// each row into the QAP polynomials evaluated at τ as the row is enforced:
// variable i gets U_i = Σ_j A_ij·L_j(τ) (likewise V from B and W from C).
// That needs the row count in advance (count with Counter first) but only
// 32 bytes per variable and polynomial, whatever the number of rows.
//
// A setup needs U and V of every variable (the A and B queries), W of the
// inputs and, for the L query, β·U + α·V + W of every aux variable. An
// assembly folds one of two sets, so that a 2^27-row setup holds two
// aux-sized vectors at a time instead of three:
//
//   - NewQAPAssemblyUV: U and V of every variable, W of the inputs, and the
//     structural densities the prover will observe (same rule as
//     ProvingAssignment), which decide which a/b query points exist;
//   - NewQAPAssemblyL: β·U + α·V + W of the aux variables only.
type QAPAssembly struct {
	lagrange Lagrange

	// Folded by the UV assembly.
	UIn, VIn, WIn []fr.Element
	UAux, VAux    []fr.Element
	AAuxDensity   Bitset
	BInputDensity Bitset
	BAuxDensity   Bitset

	// Folded by the L assembly.
	LAux        []fr.Element
	alpha, beta fr.Element
	lMode       bool

	err error
}

// NewQAPAssemblyUV returns the assembly of U, V (every variable), W (the
// inputs) and the densities, over Lagrange values from lagrange; hint sizes
// its vectors.
func NewQAPAssemblyUV(lagrange Lagrange, hint Size) *QAPAssembly {
	return &QAPAssembly{
		lagrange: lagrange,
		UIn:      make([]fr.Element, 0, hint.Inputs),
		VIn:      make([]fr.Element, 0, hint.Inputs),
		WIn:      make([]fr.Element, 0, hint.Inputs),
		UAux:     make([]fr.Element, 0, hint.Aux),
		VAux:     make([]fr.Element, 0, hint.Aux),
	}
}

// NewQAPAssemblyL returns the assembly of LAux_i = β·U_i + α·V_i + W_i for
// every aux variable i.
func NewQAPAssemblyL(lagrange Lagrange, hint Size, alpha, beta fr.Element) *QAPAssembly {
	return &QAPAssembly{
		lagrange: lagrange,
		LAux:     make([]fr.Element, 0, hint.Aux),
		alpha:    alpha,
		beta:     beta,
		lMode:    true,
	}
}

// Needs implements Sink.
func (q *QAPAssembly) Needs() Needs { return NeedRows }

// AllocInput implements Sink.
func (q *QAPAssembly) AllocInput(*fr.Element) {
	if q.lMode {
		return
	}
	var z fr.Element
	q.UIn, q.VIn, q.WIn = append(q.UIn, z), append(q.VIn, z), append(q.WIn, z)
	q.BInputDensity.Append()
}

// Alloc implements Sink.
func (q *QAPAssembly) Alloc(*fr.Element) {
	var z fr.Element
	if q.lMode {
		q.LAux = append(q.LAux, z)
		return
	}
	q.UAux, q.VAux = append(q.UAux, z), append(q.VAux, z)
	q.AAuxDensity.Append()
	q.BAuxDensity.Append()
}

// Enforce implements Sink.
func (q *QAPAssembly) Enforce(cs *CS, a, b, c *LC) {
	if q.err != nil {
		return
	}
	l, err := q.lagrange.At(cs.NumConstraints() - 1)
	if err != nil {
		q.err = err
		return
	}
	if q.lMode {
		var bl, al fr.Element
		bl.Mul(l, &q.beta)
		al.Mul(l, &q.alpha)
		foldAux(a, &bl, q.LAux)
		foldAux(b, &al, q.LAux)
		foldAux(c, l, q.LAux)
		return
	}
	q.fold(a, l, q.UIn, q.UAux, nil, &q.AAuxDensity)
	q.fold(b, l, q.VIn, q.VAux, &q.BInputDensity, &q.BAuxDensity)
	q.fold(c, l, q.WIn, nil, nil, nil)
}

// fold adds coeff·l to in or aux (nil: skip that kind) for every term of lc,
// marking the densities given.
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
		idx := t.Var.Index()
		if t.Var.IsAux() {
			if auxD != nil {
				auxD.Set(idx)
			}
			if aux != nil {
				addScaled(&aux[idx], &t.Coeff, l)
			}
		} else {
			if inD != nil {
				inD.Set(idx)
			}
			addScaled(&in[idx], &t.Coeff, l)
		}
	}
}

// foldAux adds coeff·l to aux for the aux terms of lc.
func foldAux(lc *LC, l *fr.Element, aux []fr.Element) {
	for i := range lc.terms {
		if t := &lc.terms[i]; t.Var.IsAux() {
			addScaled(&aux[t.Var.Index()], &t.Coeff, l)
		}
	}
}

// addScaled adds coeff·l to dst; most coefficients are 1 (or 0, after
// cancellation), which skips the multiplication.
func addScaled(dst, coeff, l *fr.Element) {
	switch {
	case coeff.IsZero():
	case coeff.IsOne():
		dst.Add(dst, l)
	default:
		var tmp fr.Element
		tmp.Mul(coeff, l)
		dst.Add(dst, &tmp)
	}
}

// Err reports a circuit that outgrew its Lagrange source (or the source's
// own failure).
func (q *QAPAssembly) Err() error { return q.err }
