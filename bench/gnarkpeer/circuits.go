package main

import (
	"fmt"

	crfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	gcs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	cr1cs "github.com/cuzk-dev/cuzk/r1cs"
)

// replay is testcircuits.Mixed with its plan drawn once, up front: the same
// rows and values, but synthesis only assigns them, as gnark's solver only
// assigns the witness it is given. (Mixed.Synthesize redraws the plan from
// its seed every time, which is witness generation, not proving.)
// TestReplayMatchesMixed pins it to Mixed.
type replay struct{ ops []testcircuits.Op }

// Synthesize implements r1cs.Circuit with the rows of Mixed.Synthesize.
func (r replay) Synthesize(cs *cr1cs.CS) error { return testcircuits.Replay(r.ops).Synthesize(cs) }

// gnarkSystem builds the same rows as replay directly as a gnark R1CS, and
// the witness that gnark's solver completes.
//
// Why not gnark's frontend: its api.Xor(a, b) emits a·(1−2b) = w and returns
// the linear expression w + b, so w is −1 whenever a = b = 1, a full-size
// scalar in every MSM where a bellperson SHA gadget has a bit; and the
// frontend has no way to state the single row (2p)·(v) = (p + v − x) for a
// fresh wire x. Built here, gnark gets row for row the R1CS cuzk proves (the
// only difference: bellperson's appended input rows, input_i·0 = 0, which
// gnark does not use), with the same values on the same wires. Public and
// secret wires are the ones a frontend circuit would declare as inputs
// (public inputs, their copies, fresh bits, multiplication operands); the xor
// results and products are internal wires, computed by gnark's solver inside
// Prove, as its frontend's would be. The third result maps every gnark wire
// to cuzk's variable (index into inputs, then aux).
func gnarkSystem(ops []testcircuits.Op) (*gcs.R1CS, witness.Witness, []int, error) {
	// cuzk's variables: inputs (ONE first) in plan order, then aux in
	// allocation order; auxOf[i] is op i's first aux variable.
	auxOf := make([]int, len(ops))
	nAux := 0
	var nPub, nSec int
	for i := range ops {
		auxOf[i] = nAux
		switch ops[i].Kind {
		case testcircuits.OpInput:
			nAux, nPub, nSec = nAux+1, nPub+1, nSec+1
		case testcircuits.OpBit:
			nAux, nSec = nAux+1, nSec+1
		case testcircuits.OpXor:
			nAux, nSec = nAux+2, nSec+1
		case testcircuits.OpMul:
			nAux, nSec = nAux+3, nSec+2
		}
	}
	sys := gcs.NewR1CS(len(ops) * 2)
	gen := sys.AddBlueprint(&constraint.BlueprintGenericR1C{})
	oneWire := sys.AddPublicVariable("1")

	// gnark numbers wires public, then secret, then internal: declare all
	// inputs before the first internal wire, as the frontend does.
	nIn := nPub + 1
	toCuzk := []int{0} // gnark wire -> cuzk variable (index into inputs, then aux)
	pubs := make([]int, 0, nPub)
	secs := make([]int, 0, nSec)
	values := make([]any, 0, nPub+nSec)
	secVals := make([]any, 0, nSec)
	// (A secret's index counts the public wires, so publics come first.)
	for i := range ops {
		if op := &ops[i]; op.Kind == testcircuits.OpInput {
			pubs = append(pubs, sys.AddPublicVariable(fmt.Sprintf("x%d", len(pubs))))
			values = append(values, op.X)
			toCuzk = append(toCuzk, len(pubs))
		}
	}
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case testcircuits.OpInput:
			secs = append(secs, sys.AddSecretVariable(fmt.Sprintf("s%d", len(secs))))
			secVals = append(secVals, op.X)
			toCuzk = append(toCuzk, nIn+auxOf[i])
		case testcircuits.OpBit, testcircuits.OpXor:
			secs = append(secs, sys.AddSecretVariable(fmt.Sprintf("s%d", len(secs))))
			toCuzk = append(toCuzk, nIn+auxOf[i])
			var v crfr.Element
			if op.Bit {
				v.SetOne()
			}
			secVals = append(secVals, v)
		case testcircuits.OpMul:
			secs = append(secs, sys.AddSecretVariable(fmt.Sprintf("s%d", len(secs))))
			secs = append(secs, sys.AddSecretVariable(fmt.Sprintf("s%d", len(secs))))
			secVals = append(secVals, op.X, op.Y)
			toCuzk = append(toCuzk, nIn+auxOf[i], nIn+auxOf[i]+1)
		}
	}
	values = append(values, secVals...)

	var fOne, fMinusOne, fTwo crfr.Element
	fOne.SetOne()
	fMinusOne.Neg(&fOne)
	fTwo.Double(&fOne)
	term := func(c *crfr.Element, wire int) constraint.Term {
		var u constraint.U64
		copy(u[:], c[:])
		return sys.MakeTerm(u, wire)
	}
	le := func(ts ...constraint.Term) constraint.LinearExpression { return ts }
	add := func(l, r, o constraint.LinearExpression) { sys.AddR1C(constraint.R1C{L: l, R: r, O: o}, gen) }

	var ip, is int
	var prevBit int
	for i := range ops {
		switch ops[i].Kind {
		case testcircuits.OpInput:
			x, y := pubs[ip], secs[is]
			ip, is = ip+1, is+1
			add(le(term(&fOne, y)), le(term(&fOne, oneWire)), le(term(&fOne, x)))
		case testcircuits.OpBit:
			v := secs[is]
			is++
			add(le(term(&fOne, oneWire), term(&fMinusOne, v)), le(term(&fOne, v)), nil)
			prevBit = v
		case testcircuits.OpXor:
			v := secs[is]
			is++
			add(le(term(&fOne, oneWire), term(&fMinusOne, v)), le(term(&fOne, v)), nil)
			x := sys.AddInternalVariable()
			toCuzk = append(toCuzk, nIn+auxOf[i]+1)
			p := prevBit
			add(le(term(&fTwo, p)), le(term(&fOne, v)), le(term(&fOne, p), term(&fOne, v), term(&fMinusOne, x)))
			prevBit = x
		case testcircuits.OpMul:
			x, y := secs[is], secs[is+1]
			is += 2
			z := sys.AddInternalVariable()
			toCuzk = append(toCuzk, nIn+auxOf[i]+2)
			add(le(term(&fOne, x)), le(term(&fOne, y)), le(term(&fOne, z)))
		}
	}

	w, err := witness.New(crfr.Modulus())
	if err != nil {
		return nil, nil, nil, err
	}
	ch := make(chan any, len(values))
	for _, v := range values {
		ch <- v
	}
	close(ch)
	if err := w.Fill(nPub, nSec, ch); err != nil {
		return nil, nil, nil, fmt.Errorf("gnark witness: %w", err)
	}
	return sys, w, toCuzk, nil
}

// publicInputs are the circuit's public values without ONE, in order: what
// both verifiers are given.
func publicInputs(ops []testcircuits.Op) []crfr.Element {
	var in []crfr.Element
	for i := range ops {
		if ops[i].Kind == testcircuits.OpInput {
			in = append(in, ops[i].X)
		}
	}
	return in
}

// scalarStats counts zero, one and other (full-size) scalars.
type scalarStats struct{ Zero, One, Other int }

func (s scalarStats) String() string {
	n := s.Zero + s.One + s.Other
	if n == 0 {
		return "0 scalars"
	}
	pct := func(k int) float64 { return 100 * float64(k) / float64(n) }
	return fmt.Sprintf("%d scalars: %.1f%% zero, %.1f%% one, %.1f%% other (%d)",
		n, pct(s.Zero), pct(s.One), pct(s.Other), s.Other)
}

func (s *scalarStats) add(e *crfr.Element) {
	switch {
	case e.IsZero():
		s.Zero++
	case e.IsOne():
		s.One++
	default:
		s.Other++
	}
}

// msmShape is what each Groth16 MSM of one prover sees.
type msmShape struct {
	A, B, L scalarStats // B: the G1 and the G2 MSM have the same scalars
	H       int         // dense
}

// cuzkShape reads the MSM scalars off a synthesised assignment, as
// groth16.Prove selects them (bellperson's densities).
func cuzkShape(pa *cr1cs.ProvingAssignment, domain int) msmShape {
	var s msmShape
	for i := range pa.Input {
		s.A.add(&pa.Input[i])
		if pa.Density.BInput.Get(i) {
			s.B.add(&pa.Input[i])
		}
	}
	for i := range pa.Aux {
		s.L.add(&pa.Aux[i])
		if pa.Density.AAux.Get(i) {
			s.A.add(&pa.Aux[i])
		}
		if pa.Density.BAux.Get(i) {
			s.B.add(&pa.Aux[i])
		}
	}
	s.H = domain - 1
	return s
}

// gnarkShape reads the MSM scalars off gnark's solved wires and a proving
// key's infinity markers, as gnark's Prove selects them.
func gnarkShape(wires []crfr.Element, infA, infB []bool, nbPublic, domain int) msmShape {
	var s msmShape
	for i := range wires {
		if !infA[i] {
			s.A.add(&wires[i])
		}
		if !infB[i] {
			s.B.add(&wires[i])
		}
		if i >= nbPublic {
			s.L.add(&wires[i])
		}
	}
	s.H = domain - 1
	return s
}

// absentWires marks the wires that occur in no L (A) and in no R (B) of
// any constraint: where a real key has points at infinity.
func absentWires(sys *gcs.R1CS) (inA, inB []bool) {
	n := sys.GetNbInternalVariables() + sys.GetNbPublicVariables() + sys.GetNbSecretVariables()
	inA, inB = make([]bool, n), make([]bool, n)
	it := sys.GetR1CIterator()
	for c := it.Next(); c != nil; c = it.Next() {
		for _, t := range c.L {
			if t.CoeffID() != constraint.CoeffIdZero {
				inA[t.WireID()] = true
			}
		}
		for _, t := range c.R {
			if t.CoeffID() != constraint.CoeffIdZero {
				inB[t.WireID()] = true
			}
		}
	}
	for i := range inA {
		inA[i], inB[i] = !inA[i], !inB[i]
	}
	return inA, inB
}
