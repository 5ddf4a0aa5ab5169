package r1cs

import (
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ProvingAssignment records what the Groth16 prover needs from synthesis,
// exactly as bellperson's ProvingAssignment does: the evaluations of A, B and
// C at the witness for every row, the input and aux assignments, and three
// density bitmaps. A variable is marked dense in a query only when its merged
// coefficient in some row's LC is non-zero (bellperson lc.rs
// eval_with_trackers). Inputs are not tracked for A: the input rows make
// them dense there anyway.
//
// Memory: 3×32 bytes per row, 32 bytes per variable, 3 bits per variable.
type ProvingAssignment struct {
	A, B, C []fr.Element
	Input   []fr.Element
	Aux     []fr.Element

	AAuxDensity   Bitset
	BInputDensity Bitset
	BAuxDensity   Bitset
}

// NewProvingAssignment returns an empty assignment with capacity for shape
// (zero values are fine; a right-sized hint avoids regrowing huge slices).
func NewProvingAssignment(hint Shape) *ProvingAssignment {
	return &ProvingAssignment{
		A:             make([]fr.Element, 0, hint.Constraints),
		B:             make([]fr.Element, 0, hint.Constraints),
		C:             make([]fr.Element, 0, hint.Constraints),
		Input:         make([]fr.Element, 0, hint.Inputs),
		Aux:           make([]fr.Element, 0, hint.Aux),
		AAuxDensity:   NewBitset(hint.Aux),
		BInputDensity: NewBitset(hint.Inputs),
		BAuxDensity:   NewBitset(hint.Aux),
	}
}

// Needs implements Backend.
func (pa *ProvingAssignment) Needs() Needs { return NeedValues | NeedRows }

// AllocInput implements Backend.
func (pa *ProvingAssignment) AllocInput(v *fr.Element) {
	pa.Input = append(pa.Input, *v)
	pa.BInputDensity.Append()
}

// Alloc implements Backend.
func (pa *ProvingAssignment) Alloc(v *fr.Element) {
	pa.Aux = append(pa.Aux, *v)
	pa.AAuxDensity.Append()
	pa.BAuxDensity.Append()
}

// Enforce implements Backend.
func (pa *ProvingAssignment) Enforce(_ *CS, a, b, c *LC) {
	pa.A = append(pa.A, pa.eval(a, nil, &pa.AAuxDensity))
	pa.B = append(pa.B, pa.eval(b, &pa.BInputDensity, &pa.BAuxDensity))
	pa.C = append(pa.C, pa.eval(c, nil, nil))
}

// eval evaluates a canonical LC and marks the variables it touches. Witness
// values of SHA-heavy circuits are overwhelmingly 0 or 1, so those skip the
// multiplication.
func (pa *ProvingAssignment) eval(lc *LC, in, aux *Bitset) fr.Element {
	acc := lc.one
	if in != nil && !lc.one.IsZero() {
		in.Set(0)
	}
	for i := range lc.terms {
		t := &lc.terms[i]
		var val *fr.Element
		if idx := t.Var.Index(); t.Var.IsAux() {
			val = &pa.Aux[idx]
			if aux != nil {
				aux.Set(idx)
			}
		} else {
			val = &pa.Input[idx]
			if in != nil {
				in.Set(idx)
			}
		}
		switch {
		case val.IsZero():
		case val.IsOne():
			acc.Add(&acc, &t.Coeff)
		default:
			var tmp fr.Element
			tmp.Mul(val, &t.Coeff)
			acc.Add(&acc, &tmp)
		}
	}
	return acc
}

// Shape returns the recorded counts.
func (pa *ProvingAssignment) Shape() Shape {
	return Shape{Constraints: len(pa.A), Inputs: len(pa.Input), Aux: len(pa.Aux)}
}

// Bytes is the heap footprint of the recorded vectors (capacity, not length).
func (pa *ProvingAssignment) Bytes() int64 {
	n := int64(cap(pa.A)+cap(pa.B)+cap(pa.C)+cap(pa.Input)+cap(pa.Aux)) * fr.Bytes
	n += int64(cap(pa.AAuxDensity.words)+cap(pa.BInputDensity.words)+cap(pa.BAuxDensity.words)) * 8
	return n
}

// WitnessAssignment records only the input and aux values; it skips every
// row. It is what a pre-compiled constraint evaluator needs per proof.
type WitnessAssignment struct {
	Input []fr.Element
	Aux   []fr.Element
}

// NewWitnessAssignment returns an empty witness with capacity for hint.
func NewWitnessAssignment(hint Shape) *WitnessAssignment {
	return &WitnessAssignment{
		Input: make([]fr.Element, 0, hint.Inputs),
		Aux:   make([]fr.Element, 0, hint.Aux),
	}
}

// Needs implements Backend.
func (w *WitnessAssignment) Needs() Needs { return NeedValues }

// AllocInput implements Backend.
func (w *WitnessAssignment) AllocInput(v *fr.Element) { w.Input = append(w.Input, *v) }

// Alloc implements Backend.
func (w *WitnessAssignment) Alloc(v *fr.Element) { w.Aux = append(w.Aux, *v) }

// Enforce implements Backend; it is never called.
func (w *WitnessAssignment) Enforce(*CS, *LC, *LC, *LC) {}

// Counter consumes nothing: the CS's own counts are the result. Use it to
// size circuits far too large to hold (a 32 GiB partition).
type Counter struct{}

// Needs implements Backend.
func (Counter) Needs() Needs { return 0 }

// AllocInput implements Backend.
func (Counter) AllocInput(*fr.Element) {}

// Alloc implements Backend.
func (Counter) Alloc(*fr.Element) {}

// Enforce implements Backend; it is never called.
func (Counter) Enforce(*CS, *LC, *LC, *LC) {}
