package r1cs

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Densities are the three density bitmaps of bellperson's prover: which
// aux variables have a non-zero coefficient in some A row, and which inputs
// and aux variables in some B row. They depend only on the circuit's
// structure, never on the witness, so one exact synthesis can supply them to
// every later proof of the same circuit.
type Densities struct {
	AAux   Bitset
	BInput Bitset
	BAux   Bitset
}

// ProvingAssignment records what the Groth16 prover needs from synthesis,
// exactly as bellperson's ProvingAssignment does: the evaluations of A, B and
// C at the witness for every row, the input and aux assignments, and the
// density bitmaps. A variable is marked dense only when its merged
// coefficient in some row's LC is non-zero (bellperson lc.rs
// eval_with_trackers). Inputs are not tracked for A: the input rows make
// them dense there anyway.
//
// It runs in one of two modes:
//   - exact (NewProvingAssignment): every row's LCs are built, merged and
//     evaluated, and the densities are computed (rows enforced with their
//     values, CS.EnforceKnown, are built and merged for the densities
//     only);
//   - templated (NewTemplatedAssignment): the densities come from an earlier
//     exact synthesis of the same circuit, and rows are evaluated while the
//     circuit adds terms, without building or merging LCs — several times
//     cheaper per row. The result is identical for a circuit whose structure
//     does not depend on its witness (true of every Filecoin circuit); Check
//     catches a circuit whose counts diverge, and the engine's proof
//     self-check catches anything else.
//
// Memory: 3×32 bytes per row (2×32 with AssignmentOptions.OmitC), 32
// bytes per variable, 3 bits per variable.
type ProvingAssignment struct {
	A, B, C []fr.Element
	Input   []fr.Element
	Aux     []fr.Element
	Density *Densities

	templated bool
	omitC     bool
}

// AssignmentOptions choose what a ProvingAssignment records.
type AssignmentOptions struct {
	// OmitC leaves C empty: the circuit's C terms are dropped as they are
	// added (IgnoreC), so c is neither built, merged, evaluated nor
	// stored. For a satisfied witness c = a∘b row by row, so a prover can
	// recompute them when it needs them (groth16 does, in its
	// H stage) and a 2^27-row partition holds 4.3 GB less from synthesis
	// to its transforms. For a witness that does not satisfy its circuit
	// the recomputed c differs and the proof fails verification, exactly
	// as a proof from the real c would.
	OmitC bool
}

// NewProvingAssignment returns an empty exact assignment with capacity for
// hint (zero values are fine; a right-sized hint avoids regrowing huge
// slices — give the domain size as Constraints so the prover can pad a, b,
// c in place).
func NewProvingAssignment(hint Size) *ProvingAssignment {
	return NewAssignment(hint, nil, AssignmentOptions{})
}

// NewTemplatedAssignment returns an assignment that reuses d, the densities
// of an exact synthesis of the same circuit (d is shared, never written).
func NewTemplatedAssignment(hint Size, d *Densities) *ProvingAssignment {
	return NewAssignment(hint, d, AssignmentOptions{})
}

// NewAssignment returns an empty assignment with capacity for hint: exact
// when template is nil, else templated over template's densities.
func NewAssignment(hint Size, template *Densities, opt AssignmentOptions) *ProvingAssignment {
	pa := &ProvingAssignment{
		Input: make([]fr.Element, 0, hint.Inputs),
		omitC: opt.OmitC,
	}
	vectors := []*[]fr.Element{&pa.A, &pa.B, &pa.Aux}
	lengths := []int{hint.Constraints, hint.Constraints, hint.Aux}
	if !opt.OmitC {
		vectors, lengths = append(vectors, &pa.C), append(lengths, hint.Constraints)
	}
	// Making a vector of gigabytes faults in and zeroes its pages: 10 s of
	// the 29 s a 32 GiB PoRep partition's first synthesis took, on the
	// synthesis goroutine alone. The vectors are made side by side, on
	// whatever cores are free.
	var wg sync.WaitGroup
	for i, v := range vectors {
		if lengths[i] < 1<<20 {
			*v = make([]fr.Element, 0, lengths[i])
			continue
		}
		wg.Go(func() { *v = make([]fr.Element, 0, lengths[i]) })
	}
	wg.Wait()
	if template != nil {
		pa.Density = template
		pa.templated = true
		return pa
	}
	pa.Density = &Densities{
		AAux:   NewBitset(hint.Aux),
		BInput: NewBitset(hint.Inputs),
		BAux:   NewBitset(hint.Aux),
	}
	return pa
}

// HasC reports whether the assignment records the c evaluations (see
// AssignmentOptions.OmitC).
func (pa *ProvingAssignment) HasC() bool { return !pa.omitC }

// Needs implements Sink.
func (pa *ProvingAssignment) Needs() Needs {
	n := NeedValues | NeedRows
	if pa.templated {
		n = NeedValues | NeedRowValues
	}
	if pa.omitC {
		n |= IgnoreC
	}
	return n
}

// AllocInput implements Sink.
func (pa *ProvingAssignment) AllocInput(v *fr.Element) {
	pa.Input = append(pa.Input, *v)
	if !pa.templated {
		pa.Density.BInput.Append()
	}
}

// Alloc implements Sink.
func (pa *ProvingAssignment) Alloc(v *fr.Element) {
	pa.Aux = append(pa.Aux, *v)
	if !pa.templated {
		pa.Density.AAux.Append()
		pa.Density.BAux.Append()
	}
}

// value returns the current value of v.
func (pa *ProvingAssignment) value(v Variable) *fr.Element {
	if v.IsAux() {
		return &pa.Aux[v.Index()]
	}
	return &pa.Input[v.Index()]
}

// EnforceValues implements RowValueSink: the row's evaluations, already
// computed while the circuit built it.
func (pa *ProvingAssignment) EnforceValues(a, b, c *fr.Element) {
	pa.A = append(pa.A, *a)
	pa.B = append(pa.B, *b)
	if !pa.omitC {
		pa.C = append(pa.C, *c)
	}
}

// Enforce implements Sink.
func (pa *ProvingAssignment) Enforce(_ *CS, a, b, c *LC) {
	n := len(pa.A)
	pa.A = grow(pa.A)
	pa.B = grow(pa.B)
	d := pa.Density
	pa.eval(&pa.A[n], a, nil, &d.AAux)
	pa.eval(&pa.B[n], b, &d.BInput, &d.BAux)
	if !pa.omitC {
		pa.C = grow(pa.C)
		pa.eval(&pa.C[n], c, nil, nil)
	}
}

// enforceKnown records a row whose evaluations are known (CS.EnforceKnown)
// and marks the densities of its canonical A and B, as Enforce would.
func (pa *ProvingAssignment) enforceKnown(la, lb *LC, a, b, c *fr.Element) {
	pa.A = append(pa.A, *a)
	pa.B = append(pa.B, *b)
	if !pa.omitC {
		pa.C = append(pa.C, *c)
	}
	d := pa.Density
	for i := range la.terms {
		if v := la.terms[i].Var; v.IsAux() {
			d.AAux.Set(v.Index())
		}
	}
	if !lb.one.IsZero() {
		d.BInput.Set(0)
	}
	for i := range lb.terms {
		if v := lb.terms[i].Var; v.IsAux() {
			d.BAux.Set(v.Index())
		} else {
			d.BInput.Set(v.Index())
		}
	}
}

// grow extends v by one element (left for the caller to set).
func grow(v []fr.Element) []fr.Element {
	if len(v) < cap(v) {
		return v[:len(v)+1]
	}
	return append(v, fr.Element{})
}

// eval sets *dst to lc at the witness and marks the variables it touches.
// Witness values of SHA-heavy circuits are overwhelmingly 0 or 1, so those
// skip the multiplication.
func (pa *ProvingAssignment) eval(dst *fr.Element, lc *LC, in, aux *Bitset) {
	*dst = lc.one
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
		// accumulate, written out: a call per term costs more than the add.
		switch {
		case val.IsZero():
		case val.IsOne():
			dst.Add(dst, &t.Coeff)
		default:
			var tmp fr.Element
			tmp.Mul(val, &t.Coeff)
			dst.Add(dst, &tmp)
		}
	}
}

// accumulate adds coeff·val to dst, skipping the multiplication for the
// values 0 and 1 that dominate Boolean-heavy witnesses.
func accumulate(dst, coeff, val *fr.Element) {
	switch {
	case val.IsZero():
	case val.IsOne():
		dst.Add(dst, coeff)
	default:
		var tmp fr.Element
		tmp.Mul(val, coeff)
		dst.Add(dst, &tmp)
	}
}

// Check verifies that a finished assignment is consistent with its
// densities (a templated assignment whose circuit grew or shrank).
func (pa *ProvingAssignment) Check() error {
	d := pa.Density
	if d.AAux.Len() != len(pa.Aux) || d.BAux.Len() != len(pa.Aux) || d.BInput.Len() != len(pa.Input) {
		return fmt.Errorf("r1cs: assignment has %d inputs and %d aux variables but its densities cover %d and %d",
			len(pa.Input), len(pa.Aux), d.BInput.Len(), d.AAux.Len())
	}
	// An assignment that omits c may have been given c = a∘b by a
	// backend that needs it (prover/gpu); either length is consistent.
	okC := len(pa.C) == len(pa.A) || (pa.omitC && len(pa.C) == 0)
	if len(pa.B) != len(pa.A) || !okC {
		return fmt.Errorf("r1cs: a, b, c have %d, %d, %d rows", len(pa.A), len(pa.B), len(pa.C))
	}
	return nil
}

// Size returns the recorded counts.
func (pa *ProvingAssignment) Size() Size {
	return Size{Constraints: len(pa.A), Inputs: len(pa.Input), Aux: len(pa.Aux)}
}

// Bytes is the heap footprint of the recorded vectors (capacity, not
// length), densities included unless they are a shared template.
func (pa *ProvingAssignment) Bytes() int64 {
	n := int64(cap(pa.A)+cap(pa.B)+cap(pa.C)+cap(pa.Input)+cap(pa.Aux)) * fr.Bytes
	if !pa.templated {
		d := pa.Density
		n += int64(cap(d.AAux.words)+cap(d.BInput.words)+cap(d.BAux.words)) * 8
	}
	return n
}

// Digest is a SHA-256 fingerprint of everything the prover takes from the
// assignment: the lengths and elements of a, b, c, the inputs and the aux
// variables (each element 32 bytes little-endian canonical, as Recorder
// writes them), then the three density bitmaps (length and words, u64 LE).
// An assignment that omits c hashes an empty c, so its digest equals that
// of a full one with C cleared. Golden tests pin it so that no speed-up of
// synthesis changes what is proved.
func (pa *ProvingAssignment) Digest() [32]byte {
	h := sha256.New()
	var buf [32 * 256]byte
	putLen := func(n int) {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(n))
		h.Write(b[:])
	}
	for _, v := range [][]fr.Element{pa.A, pa.B, pa.C, pa.Input, pa.Aux} {
		putLen(len(v))
		for len(v) > 0 {
			k := min(len(v), len(buf)/32)
			for i := range k {
				fr.LittleEndian.PutElement((*[32]byte)(buf[32*i:]), v[i])
			}
			h.Write(buf[:32*k])
			v = v[k:]
		}
	}
	d := pa.Density
	for _, s := range []*Bitset{&d.AAux, &d.BInput, &d.BAux} {
		putLen(s.Len())
		for _, w := range s.words {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], w)
			h.Write(b[:])
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// WitnessAssignment records only the input and aux values; it skips every
// row. It is what a pre-compiled constraint evaluator needs per proof.
type WitnessAssignment struct {
	Input []fr.Element
	Aux   []fr.Element
}

// NewWitnessAssignment returns an empty witness with capacity for hint.
func NewWitnessAssignment(hint Size) *WitnessAssignment {
	return &WitnessAssignment{
		Input: make([]fr.Element, 0, hint.Inputs),
		Aux:   make([]fr.Element, 0, hint.Aux),
	}
}

// Needs implements Sink.
func (w *WitnessAssignment) Needs() Needs { return NeedValues }

// AllocInput implements Sink.
func (w *WitnessAssignment) AllocInput(v *fr.Element) { w.Input = append(w.Input, *v) }

// Alloc implements Sink.
func (w *WitnessAssignment) Alloc(v *fr.Element) { w.Aux = append(w.Aux, *v) }

// Enforce implements Sink; it is never called.
func (w *WitnessAssignment) Enforce(*CS, *LC, *LC, *LC) {}

// Counter consumes nothing: the CS's own counts are the result. Use it to
// size circuits far too large to hold (a 32 GiB partition).
type Counter struct{}

// Needs implements Sink.
func (Counter) Needs() Needs { return 0 }

// AllocInput implements Sink.
func (Counter) AllocInput(*fr.Element) {}

// Alloc implements Sink.
func (Counter) Alloc(*fr.Element) {}

// Enforce implements Sink; it is never called.
func (Counter) Enforce(*CS, *LC, *LC, *LC) {}
