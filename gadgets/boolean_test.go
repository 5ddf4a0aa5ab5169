package gadgets

import (
	"fmt"
	"testing"

	"github.com/cuzk-dev/cuzk/r1cs"
)

var oneVar = r1cs.One

func aux(i int) r1cs.Variable { return r1cs.AuxVar(i) }

func TestAllocBitRow(t *testing.T) {
	cs, ts := testCS(true)
	b := AllocBit(cs, true)
	if b.Variable() != aux(0) || !b.Value() {
		t.Fatalf("bit %+v", b)
	}
	requireSatisfied(t, ts)
	// (ONE − b)·(b) = 0
	checkRow(t, "boolean", ts.Rows[0], []r1cs.Term{term(oneVar, 1), term(aux(0), -1)}, []r1cs.Term{term(aux(0), 1)}, nil)
	// A lone bit is only checked for booleanity: 1 + 1 = 2 must fail (0 + 1
	// is another valid bit).
	checkCorruptionDetected(t, func(cs *r1cs.CS) { AllocBit(cs, true) }, 0)
}

// Rows of the four two-bit gates, hand-derived from bellpepper-core
// boolean.rs: x = aux0, y = aux1, result = aux2.
func TestBitGateRows(t *testing.T) {
	x, y, r := aux(0), aux(1), aux(2)
	cases := []struct {
		name    string
		gate    func(*r1cs.CS, AllocatedBit, AllocatedBit) AllocatedBit
		fn      func(a, b bool) bool
		a, b, c []r1cs.Term
	}{
		{"xor", XorBits, func(a, b bool) bool { return a != b },
			[]r1cs.Term{term(x, 2)}, []r1cs.Term{term(y, 1)}, []r1cs.Term{term(x, 1), term(y, 1), term(r, -1)}},
		{"and", AndBits, func(a, b bool) bool { return a && b },
			[]r1cs.Term{term(x, 1)}, []r1cs.Term{term(y, 1)}, []r1cs.Term{term(r, 1)}},
		{"and_not", AndNotBits, func(a, b bool) bool { return a && !b },
			[]r1cs.Term{term(x, 1)}, []r1cs.Term{term(oneVar, 1), term(y, -1)}, []r1cs.Term{term(r, 1)}},
		{"nor", NorBits, func(a, b bool) bool { return !a && !b },
			[]r1cs.Term{term(oneVar, 1), term(x, -1)}, []r1cs.Term{term(oneVar, 1), term(y, -1)}, []r1cs.Term{term(r, 1)}},
	}
	for _, tc := range cases {
		for _, av := range []bool{false, true} {
			for _, bv := range []bool{false, true} {
				name := fmt.Sprintf("%s(%v,%v)", tc.name, av, bv)
				build := func(cs *r1cs.CS) {
					tc.gate(cs, AllocBit(cs, av), AllocBit(cs, bv))
				}
				cs, ts := testCS(true)
				got := tc.gate(cs, AllocBit(cs, av), AllocBit(cs, bv))
				requireSatisfied(t, ts)
				if got.Value() != tc.fn(av, bv) || got.Variable() != r {
					t.Errorf("%s = %v (%v)", name, got.Value(), got.Variable())
				}
				if len(ts.Rows) != 3 {
					t.Fatalf("%s: %d rows", name, len(ts.Rows))
				}
				checkRow(t, name, ts.Rows[2], tc.a, tc.b, tc.c)
				checkCorruptionDetected(t, build, 2)
			}
		}
	}
}

// boolKinds builds each kind of Boolean for a value: constant, Is, Not.
func makeBoolean(cs *r1cs.CS, kind int, v bool) Boolean {
	switch kind {
	case 0:
		return Constant(v)
	case 1:
		return AllocBit(cs, v).Boolean()
	default:
		return AllocBit(cs, !v).Boolean().Not()
	}
}

var kindNames = []string{"const", "is", "not"}

// Every combination of operand kinds and values gives the right value, a
// satisfied system, and the row count of upstream's case analysis.
func TestBooleanOpsExhaustive(t *testing.T) {
	type op struct {
		name  string
		arity int
		fn    func(cs *r1cs.CS, in []Boolean) Boolean
		val   func(in []bool) bool
		rows  func(kinds []int, vals []bool) int // rows beyond the operand allocations
	}
	nonConst := func(kinds []int) int {
		n := 0
		for _, k := range kinds {
			if k != 0 {
				n++
			}
		}
		return n
	}
	ops := []op{
		{"xor", 2, func(cs *r1cs.CS, in []Boolean) Boolean { return Xor(cs, in[0], in[1]) },
			func(v []bool) bool { return v[0] != v[1] },
			func(k []int, _ []bool) int { return b2i(nonConst(k) == 2) }},
		{"and", 2, func(cs *r1cs.CS, in []Boolean) Boolean { return And(cs, in[0], in[1]) },
			func(v []bool) bool { return v[0] && v[1] },
			func(k []int, _ []bool) int { return b2i(nonConst(k) == 2) }},
		{"ch", 3, func(cs *r1cs.CS, in []Boolean) Boolean { return Sha256Ch(cs, in[0], in[1], in[2]) },
			func(v []bool) bool { return (v[0] && v[1]) != (!v[0] && v[2]) },
			func(k []int, v []bool) int {
				switch {
				case nonConst(k) == 0, k[0] == 0 && !v[0]: // constant, or c itself
					return 0
				case k[1] == 0: // and(¬a, c) or ¬and(¬a, ¬c)
					return b2i(k[0] != 0 && k[2] != 0)
				case k[2] == 0: // and(a, b) or ¬and(a, ¬b)
					return b2i(k[0] != 0 && k[1] != 0)
				}
				return 1 // general case (a variable or true)
			}},
		{"maj", 3, func(cs *r1cs.CS, in []Boolean) Boolean { return Sha256Maj(cs, in[0], in[1], in[2]) },
			func(v []bool) bool { return (v[0] && v[1]) != (v[0] && v[2]) != (v[1] && v[2]) },
			func(k []int, v []bool) int {
				switch nonConst(k) {
				case 3:
					return 2 // maj, then b ∧ c
				case 2:
					return 1 // one two-input and of the two variables
				}
				return 0
			}},
	}
	for _, o := range ops {
		n := o.arity
		for kc := 0; kc < pow(3, n); kc++ {
			kinds := digits(kc, 3, n)
			for vc := 0; vc < 1<<n; vc++ {
				vals := make([]bool, n)
				for i := range vals {
					vals[i] = vc>>i&1 == 1
				}
				name := o.name + fmt.Sprint(kindsString(kinds), vals)
				cs, ts := testCS(false)
				in := make([]Boolean, n)
				for i := range in {
					in[i] = makeBoolean(cs, kinds[i], vals[i])
				}
				before := cs.NumConstraints()
				got := o.fn(cs, in)
				requireSatisfied(t, ts)
				if got.Value() != o.val(vals) {
					t.Errorf("%s = %v", name, got.Value())
				}
				if bit, ok := got.Bit(); ok {
					if w := ts.Value(bit.Variable()); w.IsOne() != (got.Value() != got.IsNegated()) {
						t.Errorf("%s: witness of result variable disagrees with its value", name)
					}
				}
				if rows, want := cs.NumConstraints()-before, o.rows(kinds, vals); rows != want {
					t.Errorf("%s: %d rows, want %d", name, rows, want)
				}
			}
		}
	}
}

func kindsString(k []int) string {
	s := ""
	for _, x := range k {
		s += kindNames[x] + ","
	}
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pow(b, e int) int {
	r := 1
	for ; e > 0; e-- {
		r *= b
	}
	return r
}

func digits(x, base, n int) []int {
	d := make([]int, n)
	for i := range d {
		d[i] = x % base
		x /= base
	}
	return d
}

// Boolean::xor puts the Is operand first when mixing Is and Not, and
// returns the negation of the xor.
func TestXorIsNotOperandOrder(t *testing.T) {
	for _, isFirst := range []bool{true, false} {
		cs, ts := testCS(true)
		n := AllocBit(cs, true).Boolean().Not() // aux0, value false
		i := AllocBit(cs, true).Boolean()       // aux1, value true
		var got Boolean
		if isFirst {
			got = Xor(cs, i, n)
		} else {
			got = Xor(cs, n, i)
		}
		requireSatisfied(t, ts)
		if !got.IsNegated() || !got.Value() {
			t.Fatalf("xor(is, not) = %+v, want Not(bit) with value true", got)
		}
		// AllocatedBit::xor(is = aux1, not's bit = aux0): (2·aux1)·(aux0) = (aux0 + aux1 − aux2)
		checkRow(t, "xor", ts.Rows[2], []r1cs.Term{term(aux(1), 2)}, []r1cs.Term{term(aux(0), 1)},
			[]r1cs.Term{term(aux(0), 1), term(aux(1), 1), term(aux(2), -1)})
	}
}

// Hand-derived rows of the general ch and maj.
func TestChMajGeneralRows(t *testing.T) {
	cs, ts := testCS(true)
	a := AllocBit(cs, true).Boolean()  // aux0
	b := AllocBit(cs, false).Boolean() // aux1
	c := AllocBit(cs, true).Boolean()  // aux2
	ch := Sha256Ch(cs, a, b, c)        // aux3
	maj := Sha256Maj(cs, a, b, c)      // maj = aux4, b∧c = aux5
	requireSatisfied(t, ts)
	if ch.Value() != false || maj.Value() != true {
		t.Fatalf("ch %v maj %v", ch.Value(), maj.Value())
	}
	// ch: (b − c)·(a) = (ch − c)
	checkRow(t, "ch", ts.Rows[3], []r1cs.Term{term(aux(1), 1), term(aux(2), -1)}, []r1cs.Term{term(aux(0), 1)},
		[]r1cs.Term{term(aux(2), -1), term(aux(3), 1)})
	// maj is allocated before b ∧ c, whose row comes first.
	checkRow(t, "b and c", ts.Rows[4], []r1cs.Term{term(aux(1), 1)}, []r1cs.Term{term(aux(2), 1)}, []r1cs.Term{term(aux(5), 1)})
	// (2·bc − b − c)·(a) = (bc − maj)
	checkRow(t, "maj", ts.Rows[5], []r1cs.Term{term(aux(1), -1), term(aux(2), -1), term(aux(5), 2)},
		[]r1cs.Term{term(aux(0), 1)}, []r1cs.Term{term(aux(4), -1), term(aux(5), 1)})
	if maj.v != aux(4) {
		t.Errorf("maj variable %v, want aux4", maj.v)
	}

	// With a Not operand, Boolean::lc contributes ONE − v.
	cs, ts = testCS(true)
	a = AllocBit(cs, false).Boolean().Not() // value true
	b = AllocBit(cs, true).Boolean()
	c = AllocBit(cs, false).Boolean()
	Sha256Ch(cs, a, b, c)
	requireSatisfied(t, ts)
	checkRow(t, "ch with Not a", ts.Rows[3], []r1cs.Term{term(aux(1), 1), term(aux(2), -1)},
		[]r1cs.Term{term(oneVar, 1), term(aux(0), -1)}, []r1cs.Term{term(aux(2), -1), term(aux(3), 1)})
}

func TestBooleanCorruption(t *testing.T) {
	build := func(cs *r1cs.CS) {
		a := AllocBit(cs, true).Boolean()
		b := AllocBit(cs, false).Boolean().Not()
		c := AllocBit(cs, true).Boolean()
		Sha256Maj(cs, a, b.Not(), c)
		Sha256Ch(cs, a, b.Not(), c)
		Xor(cs, a, b)
		And(cs, a, c.Not())
	}
	checkCorruptionDetected(t, build, 0, 1, 2, 3, 4, 5, 6, 7)
}
