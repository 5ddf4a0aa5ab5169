package r1cs

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Variable names an input or auxiliary variable. Inputs and aux variables are
// numbered separately, each from zero; the top bit says which kind it is.
type Variable uint32

const auxFlag Variable = 1 << 31

// MaxVariables is the largest number of variables of one kind.
const MaxVariables = int(auxFlag)

// One is input 0, the constant 1.
const One Variable = 0

// InputVar returns input variable i.
func InputVar(i int) Variable { return Variable(i) }

// AuxVar returns auxiliary variable i.
func AuxVar(i int) Variable { return Variable(i) | auxFlag }

// IsAux reports whether v is an auxiliary variable.
func (v Variable) IsAux() bool { return v&auxFlag != 0 }

// Index is v's position among the variables of its kind.
func (v Variable) Index() int { return int(v &^ auxFlag) }

func (v Variable) String() string {
	if v.IsAux() {
		return fmt.Sprintf("aux%d", v.Index())
	}
	return fmt.Sprintf("in%d", v.Index())
}

// Term is one coefficient·variable product of a linear combination.
type Term struct {
	Var   Variable
	Coeff fr.Element
}

// LC is a linear combination under construction. The coefficient of ONE is
// kept apart from the other terms because gadgets add constants to almost
// every combination (constant Booleans, Not bits); folding them into one
// accumulator keeps the term list short and free of repeats.
//
// The zero value is an empty combination. An LC handed to an Enforce closure
// is scratch space owned by the constraint system: do not keep it.
//
// An LC handed to a templated ProvingAssignment's rows is in evaluation
// mode: each term is multiplied by its variable's value and folded into the
// ONE accumulator as it is added, and no terms are kept. Its value is then
// simply its ONE coefficient.
//
// The C of a row whose sink ignores C (IgnoreC) is in discard mode: terms
// are dropped as they are added, so a circuit pays one comparison per term
// for a C nobody reads. Its value is meaningless.
type LC struct {
	terms []Term
	one   fr.Element         // coefficient of ONE; in evaluation mode, the value
	ev    *ProvingAssignment // evaluation mode when non-nil; discard mode when &discard
}

// discard marks an LC in discard mode (its ev). It is never read or
// written: only its address matters, so sharing it is safe.
var discard ProvingAssignment

var (
	coeffOne      = fr.One()
	coeffMinusOne fr.Element
)

func init() {
	coeffMinusOne.Neg(&coeffOne)
}

// Reset empties lc, keeping its storage.
func (lc *LC) Reset() {
	lc.terms = lc.terms[:0]
	lc.one.SetZero()
}

// Terms returns the non-ONE terms. Inside a Sink they hold distinct
// variables with non-zero coefficients, in insertion order.
func (lc *LC) Terms() []Term { return lc.terms }

// OneCoeff returns the coefficient of ONE (zero when absent).
func (lc *LC) OneCoeff() *fr.Element { return &lc.one }

// Len is the number of terms including ONE when its coefficient is non-zero.
func (lc *LC) Len() int {
	if lc.one.IsZero() {
		return len(lc.terms)
	}
	return len(lc.terms) + 1
}

// next extends the term list by one and returns the new slot. Writing the
// term in place avoids building a 40-byte temporary per term, which showed
// up as a third of the cost of building rows.
func (lc *LC) next() *Term {
	n := len(lc.terms)
	if n == cap(lc.terms) {
		lc.terms = append(lc.terms, Term{})
	} else {
		lc.terms = lc.terms[:n+1]
	}
	return &lc.terms[n]
}

// Add adds 1·v.
func (lc *LC) Add(v Variable) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		if val := lc.ev.value(v); !val.IsZero() {
			lc.one.Add(&lc.one, val)
		}
		return lc
	}
	if v == One {
		lc.one.Add(&lc.one, &coeffOne)
		return lc
	}
	t := lc.next()
	t.Var, t.Coeff = v, coeffOne
	return lc
}

// Sub adds −1·v.
func (lc *LC) Sub(v Variable) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		if val := lc.ev.value(v); !val.IsZero() {
			lc.one.Sub(&lc.one, val)
		}
		return lc
	}
	if v == One {
		lc.one.Sub(&lc.one, &coeffOne)
		return lc
	}
	t := lc.next()
	t.Var, t.Coeff = v, coeffMinusOne
	return lc
}

// AddScaled adds c·v. A zero c adds nothing (no term, so no density).
func (lc *LC) AddScaled(c *fr.Element, v Variable) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		accumulate(&lc.one, c, lc.ev.value(v))
		return lc
	}
	if c.IsZero() {
		return lc
	}
	if v == One {
		lc.one.Add(&lc.one, c)
		return lc
	}
	t := lc.next()
	t.Var, t.Coeff = v, *c
	return lc
}

// SubScaled adds −c·v. A zero c adds nothing.
func (lc *LC) SubScaled(c *fr.Element, v Variable) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		var t fr.Element
		accumulate(&t, c, lc.ev.value(v))
		lc.one.Sub(&lc.one, &t)
		return lc
	}
	if c.IsZero() {
		return lc
	}
	if v == One {
		lc.one.Sub(&lc.one, c)
		return lc
	}
	t := lc.next()
	t.Var = v
	t.Coeff.Neg(c)
	return lc
}

// AddOne adds 1·ONE.
func (lc *LC) AddOne() *LC {
	lc.one.Add(&lc.one, &coeffOne)
	return lc
}

// AddConst adds c·ONE.
func (lc *LC) AddConst(c *fr.Element) *LC {
	lc.one.Add(&lc.one, c)
	return lc
}

// SubConst adds −c·ONE.
func (lc *LC) SubConst(c *fr.Element) *LC {
	lc.one.Sub(&lc.one, c)
	return lc
}

// AddLC adds every term of o.
func (lc *LC) AddLC(o *LC) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		v := o.valueAt(lc.ev)
		lc.one.Add(&lc.one, &v)
		return lc
	}
	lc.one.Add(&lc.one, &o.one)
	lc.terms = append(lc.terms, o.terms...)
	return lc
}

// SubLC subtracts every term of o.
func (lc *LC) SubLC(o *LC) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		v := o.valueAt(lc.ev)
		lc.one.Sub(&lc.one, &v)
		return lc
	}
	lc.one.Sub(&lc.one, &o.one)
	for i := range o.terms {
		t := lc.next()
		t.Var = o.terms[i].Var
		t.Coeff.Neg(&o.terms[i].Coeff)
	}
	return lc
}

// AddScaledLC adds c times every term of o.
func (lc *LC) AddScaledLC(c *fr.Element, o *LC) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		v := o.valueAt(lc.ev)
		v.Mul(&v, c)
		lc.one.Add(&lc.one, &v)
		return lc
	}
	if c.IsZero() {
		return lc
	}
	var tmp fr.Element
	tmp.Mul(&o.one, c)
	lc.one.Add(&lc.one, &tmp)
	for i := range o.terms {
		t := lc.next()
		t.Var = o.terms[i].Var
		t.Coeff.Mul(&o.terms[i].Coeff, c)
	}
	return lc
}

// Set makes lc a copy of o, reusing lc's storage.
func (lc *LC) Set(o *LC) *LC {
	if lc.ev != nil {
		if lc.ev == &discard {
			return lc
		}
		lc.one = o.valueAt(lc.ev)
		return lc
	}
	lc.one = o.one
	lc.terms = append(lc.terms[:0], o.terms...)
	return lc
}

// valueAt is o's value at pa's current witness.
func (lc *LC) valueAt(pa *ProvingAssignment) fr.Element {
	if lc.ev != nil {
		return lc.one
	}
	return lc.Eval(pa.Input, pa.Aux)
}

// Eval evaluates lc at the given assignments (ONE must be input 0).
func (lc *LC) Eval(inputs, aux []fr.Element) fr.Element {
	acc := lc.one
	var tmp fr.Element
	for i := range lc.terms {
		t := &lc.terms[i]
		var val *fr.Element
		if t.Var.IsAux() {
			val = &aux[t.Var.Index()]
		} else {
			val = &inputs[t.Var.Index()]
		}
		tmp.Mul(val, &t.Coeff)
		acc.Add(&acc, &tmp)
	}
	return acc
}
