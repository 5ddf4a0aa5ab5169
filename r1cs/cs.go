package r1cs

import (
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Circuit is anything that can write its constraints into a constraint
// system.
type Circuit interface {
	Synthesize(cs *CS) error
}

// Needs says what a Sink consumes.
type Needs uint8

const (
	// NeedValues: the sink wants variable values (Alloc/AllocInput).
	NeedValues Needs = 1 << iota
	// NeedRows: the sink wants the linear combinations of every row.
	NeedRows
	// NeedNames: the sink wants the namespace path of rows (test systems).
	NeedNames
	// NeedRowValues: the sink wants only each row's three evaluations,
	// which the CS computes while the circuit adds terms (the sink must
	// be a templated *ProvingAssignment).
	NeedRowValues
	// IgnoreC: the sink never reads C (an assignment that omits c). The
	// circuit's closures still fill C, but into an LC that drops every
	// term, so C is neither built, merged nor evaluated; the sink gets an
	// empty C.
	IgnoreC
)

// Sink consumes what a circuit emits. Rows are passed only when the
// sink asked for NeedRows. Value pointers and LCs are only valid during
// the call; LCs are canonical (distinct variables, non-zero coefficients).
type Sink interface {
	Needs() Needs
	AllocInput(value *fr.Element)
	Alloc(value *fr.Element)
	Enforce(cs *CS, a, b, c *LC)
}

type namespace struct {
	name string
	idx  int // -1: no index
}

// CS is what circuits write against. It counts variables and rows, keeps the
// namespace stack, builds linear combinations in reusable scratch space and
// hands them to its Sink.
type CS struct {
	sink   Sink
	values bool
	rows   bool
	names  bool
	// evalRows is set for NeedRowValues: rows are evaluated as they are
	// built, straight into this assignment.
	evalRows *ProvingAssignment
	// exact is the sink when it is an exact *ProvingAssignment: rows with
	// known values (EnforceKnown) go to it without their multiplications.
	exact *ProvingAssignment
	// dropC is an LC in discard mode, the C of rows whose C nobody reads.
	dropC   LC
	inputs  int
	aux     int
	nrows   int
	ns      []namespace
	scratch [3]LC
	canon   canonicalizer
	tmp     fr.Element
	// yield is called every YieldRows rows (SynthesizeYielding).
	yield func() error
}

// YieldRows is how many rows a CS built by SynthesizeYielding enforces
// between two calls of its yield function: a few milliseconds of
// synthesis, so a paused or cancelled synthesis stops soon, at the cost
// of one predictable branch per row.
const YieldRows = 1 << 14

// New returns a constraint system feeding sink, with input 0 (ONE)
// already allocated.
func New(sink Sink) *CS {
	n := sink.Needs()
	cs := &CS{
		sink:   sink,
		values: n&NeedValues != 0,
		rows:   n&NeedRows != 0,
		names:  n&NeedNames != 0,
	}
	if n&NeedRowValues != 0 {
		pa, ok := sink.(*ProvingAssignment)
		if !ok {
			panic("r1cs: NeedRowValues is only supported for *ProvingAssignment")
		}
		cs.evalRows = pa
		for i := range cs.scratch {
			cs.scratch[i].ev = pa
		}
	}
	if n&IgnoreC != 0 {
		cs.scratch[2].ev = &discard
	}
	cs.dropC.ev = &discard
	if pa, ok := sink.(*ProvingAssignment); ok && !pa.templated {
		cs.exact = pa
	}
	one := fr.One()
	cs.AllocInput(one)
	return cs
}

// WantsValues reports whether the sink consumes values. Gadgets may skip
// expensive witness computations when it does not (counting, key generation).
func (cs *CS) WantsValues() bool { return cs.values }

// Alloc allocates an auxiliary variable with the given value.
func (cs *CS) Alloc(value fr.Element) Variable {
	if cs.aux >= MaxVariables {
		panic("r1cs: too many auxiliary variables")
	}
	v := AuxVar(cs.aux)
	cs.aux++
	// Pass a field, not &value: a pointer to a parameter handed to an
	// interface method would move the parameter to the heap on every call.
	cs.tmp = value
	cs.sink.Alloc(&cs.tmp)
	return v
}

// AllocInput allocates a public input with the given value.
func (cs *CS) AllocInput(value fr.Element) Variable {
	if cs.inputs >= MaxVariables {
		panic("r1cs: too many inputs")
	}
	v := InputVar(cs.inputs)
	cs.inputs++
	cs.tmp = value
	cs.sink.AllocInput(&cs.tmp)
	return v
}

// Enforce adds the row (A)·(B) = (C); build fills A, B and C, which start
// empty. build is not called when the sink does not consume rows.
func (cs *CS) Enforce(build func(a, b, c *LC)) {
	cs.countRow()
	if cs.evalRows != nil {
		a, b, c := &cs.scratch[0], &cs.scratch[1], &cs.scratch[2]
		a.one.SetZero()
		b.one.SetZero()
		c.one.SetZero()
		build(a, b, c)
		cs.evalRows.EnforceValues(&a.one, &b.one, &c.one)
		return
	}
	if !cs.rows {
		return
	}
	a, b, c := cs.buildRow(build, &cs.scratch[2])
	cs.sink.Enforce(cs, a, b, c)
}

// buildRow fills the scratch A and B, and c (the scratch C, or a C in
// discard mode), with build and canonicalises them.
func (cs *CS) buildRow(build func(a, b, c *LC), c *LC) (_, _, _ *LC) {
	a, b := &cs.scratch[0], &cs.scratch[1]
	a.Reset()
	b.Reset()
	c.Reset()
	build(a, b, c)
	// Most rows have at most one term per LC: skip the call for them.
	if len(a.terms) > 1 {
		cs.canon.canon(a)
	}
	if len(b.terms) > 1 {
		cs.canon.canon(b)
	}
	if len(c.terms) > 1 {
		cs.canon.canon(c)
	}
	return a, b, c
}

// EnforceKnown is Enforce for a row whose evaluations at the witness the
// caller already has: a, b and c must be exactly the values build's
// combinations take (a gadget that computes its witness natively, as
// Poseidon does, holds them). A templated assignment records them without
// calling build, which saves a multiplication per term of every long
// combination; an exact one takes them too, and builds and merges only A
// and B, for the densities; every other sink (recorder, test system, key
// generation) gets the row from build, as Enforce gives it, so the
// circuits' golden digests and satisfaction tests still evaluate every
// combination, and their mode tests compare the assignments with the
// values taken against those evaluated.
func (cs *CS) EnforceKnown(a, b, c *fr.Element, build func(a, b, c *LC)) {
	switch {
	case cs.evalRows != nil:
		cs.countRow()
		cs.evalRows.EnforceValues(a, b, c)
	case cs.exact != nil:
		// The densities need A's and B's terms, not their values; C is
		// not needed at all.
		cs.countRow()
		la, lb, _ := cs.buildRow(build, &cs.dropC)
		cs.exact.enforceKnown(la, lb, a, b, c)
	default:
		cs.Enforce(build)
	}
}

// countRow counts a row and yields every YieldRows rows.
func (cs *CS) countRow() {
	cs.nrows++
	if cs.yield != nil && cs.nrows&(YieldRows-1) == 0 {
		cs.stopIf(cs.yield())
	}
}

// Push enters a namespace. Names only matter to test systems, which report
// the path of a failing row.
func (cs *CS) Push(name string) { cs.ns = append(cs.ns, namespace{name, -1}) }

// PushIdx enters the namespace name[i].
func (cs *CS) PushIdx(name string, i int) { cs.ns = append(cs.ns, namespace{name, i}) }

// Pop leaves the innermost namespace.
func (cs *CS) Pop() {
	if len(cs.ns) == 0 {
		panic("r1cs: Pop without Push")
	}
	cs.ns = cs.ns[:len(cs.ns)-1]
}

// Path is the current namespace path, e.g. "challenge[3]/labeling[1]/sha256".
func (cs *CS) Path() string {
	var b strings.Builder
	for i, n := range cs.ns {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(n.name)
		if n.idx >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(n.idx))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// NumInputs is the number of inputs allocated so far, ONE included.
func (cs *CS) NumInputs() int { return cs.inputs }

// NumAux is the number of auxiliary variables allocated so far.
func (cs *CS) NumAux() int { return cs.aux }

// NumConstraints is the number of rows enforced so far.
func (cs *CS) NumConstraints() int { return cs.nrows }

// Size returns the current counts.
func (cs *CS) Size() Size {
	return Size{Constraints: cs.nrows, Inputs: cs.inputs, Aux: cs.aux}
}

// AppendInputRows adds input_i·0 = 0 for every input, ONE included. Groth16
// proving and key generation do this after synthesis so that the IC query is
// fully dense (bellperson native.rs, generator.rs).
func (cs *CS) AppendInputRows() {
	for i := 0; i < cs.inputs; i++ {
		v := InputVar(i)
		cs.Enforce(func(a, _, _ *LC) { a.Add(v) })
	}
}

// Size is the size of a synthesised circuit.
type Size struct {
	Constraints int // rows
	Inputs      int // including ONE
	Aux         int
}

// Synthesize runs c against a fresh CS over sink and returns the CS.
func Synthesize(c Circuit, sink Sink) (*CS, error) {
	return SynthesizeYielding(c, sink, nil)
}

// SynthesizeYielding is Synthesize with yield called every YieldRows rows
// (nil: never), from the synthesising goroutine. A scheduler passes a
// function that blocks while more urgent work runs, so that a long
// synthesis gives up its core within milliseconds instead of at its end,
// and that returns an error once the synthesis is no longer wanted (its
// job was cancelled): synthesis then stops at once, wherever the circuit
// is, and SynthesizeYielding returns that error. The sink then holds a
// partial assignment and must be dropped.
func SynthesizeYielding(c Circuit, sink Sink, yield func() error) (cs *CS, err error) {
	cs = New(sink)
	cs.yield = yield
	if yield != nil {
		// The circuit cannot return from deep inside its gadgets, so a
		// stop unwinds it as a panic of a type only this CS raises.
		defer func() {
			if r := recover(); r != nil {
				st, ok := r.(stopped)
				if !ok || st.cs != cs {
					panic(r)
				}
				cs, err = nil, st.err
			}
		}()
	}
	if err := c.Synthesize(cs); err != nil {
		return nil, err
	}
	return cs, nil
}

// stopped is what a CS panics with when its yield function returns an
// error; SynthesizeYielding recovers it.
type stopped struct {
	cs  *CS
	err error
}

func (cs *CS) stopIf(err error) {
	if err != nil {
		panic(stopped{cs, err})
	}
}

// Yield calls the yield function SynthesizeYielding was given (nothing
// without one). Enforce calls it every YieldRows rows; a circuit that does
// long work between rows (hashing a whole tree natively, a nested
// synthesis) calls it too, so that a pause or a cancellation reaches it.
// When the synthesis is to stop, Yield does not return: the synthesis
// unwinds to SynthesizeYielding.
func (cs *CS) Yield() {
	if cs.yield != nil {
		cs.stopIf(cs.yield())
	}
}
