package gadgets

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// rust-fil-proofs insertion.rs test_insert: 2 / 8 / 22 / 240 rows for sizes
// 2 / 4 / 8 / 16, excluding the index bits; every position gives the
// element list with the new element at that position.
func TestInsert(t *testing.T) {
	for _, tc := range []struct{ size, rows int }{{2, 2}, {4, 8}, {8, 22}, {16, 240}} {
		logSize := 0
		for 1<<logSize < tc.size {
			logSize++
		}
		for index := 0; index < tc.size; index++ {
			build := func(cs *r1cs.CS) ([]AllocatedNum, int, error) {
				bits := make([]Boolean, logSize)
				for i := range bits {
					bits[i] = AllocBit(cs, index>>uint(i)&1 == 1).Boolean()
				}
				elements := make([]AllocatedNum, tc.size-1)
				for i := range elements {
					elements[i] = AllocNum(cs, elem(int64(100+i)))
				}
				element := AllocNum(cs, elem(7))
				before := cs.NumConstraints()
				out, err := Insert(cs, nil, element, bits, elements)
				return out, cs.NumConstraints() - before, err
			}
			cs, ts := testCS(false)
			out, rows, err := build(cs)
			if err != nil {
				t.Fatal(err)
			}
			requireSatisfied(t, ts)
			name := fmt.Sprintf("size %d index %d", tc.size, index)
			if rows != tc.rows {
				t.Errorf("%s: %d rows, want %d", name, rows, tc.rows)
			}
			for pos, got := range out {
				want := elem(7)
				switch {
				case pos < index:
					want = elem(int64(100 + pos))
				case pos > index:
					want = elem(int64(100 + pos - 1))
				}
				if !got.Val.Equal(&want) {
					t.Errorf("%s: position %d = %s", name, pos, got.Val.String())
				}
			}
			if tc.size == 8 && index == 5 {
				checkCorruptionDetected(t, func(cs *r1cs.CS) { build(cs) }, 0, 2, -1, -5)
			}
		}
	}
}

// Rows of insert_2, hand-derived: pick(b0, b, a) then pick(b0, a, b).
func TestInsert2Rows(t *testing.T) {
	cs, ts := testCS(true)
	b0 := AllocBit(cs, true).Boolean() // aux0
	b := AllocNum(cs, elem(3))         // aux1
	a := AllocNum(cs, elem(4))         // aux2
	out, err := Insert(cs, nil, a, []Boolean{b0}, []AllocatedNum{b})
	if err != nil {
		t.Fatal(err)
	}
	requireSatisfied(t, ts)
	if w3, w4 := elem(3), elem(4); !out[0].Val.Equal(&w3) || !out[1].Val.Equal(&w4) {
		t.Fatalf("insert at 1: %s %s", out[0].Val.String(), out[1].Val.String())
	}
	// pick(cond, x, y): (y − x)·(cond) = (y − r)
	checkRow(t, "insert 0", ts.Rows[1], []r1cs.Term{term(aux(1), -1), term(aux(2), 1)}, []r1cs.Term{term(aux(0), 1)},
		[]r1cs.Term{term(aux(2), 1), term(aux(3), -1)})
	checkRow(t, "insert 1", ts.Rows[2], []r1cs.Term{term(aux(1), 1), term(aux(2), -1)}, []r1cs.Term{term(aux(0), 1)},
		[]r1cs.Term{term(aux(1), 1), term(aux(4), -1)})
}

// insert_8 starts with nor(b0, b1) and and(b0, b1).
func TestInsert8FirstRows(t *testing.T) {
	cs, ts := testCS(true)
	bits := []Boolean{AllocBit(cs, true).Boolean(), AllocBit(cs, false).Boolean(), AllocBit(cs, true).Boolean()}
	el := make([]AllocatedNum, 7)
	for i := range el {
		el[i] = AllocNum(cs, elem(int64(i)))
	}
	if _, err := Insert(cs, nil, AllocNum(cs, elem(50)), bits, el); err != nil {
		t.Fatal(err)
	}
	requireSatisfied(t, ts)
	nor, and := aux(11), aux(12)
	checkRow(t, "nor", ts.Rows[3], []r1cs.Term{term(oneVar, 1), term(aux(0), -1)}, []r1cs.Term{term(oneVar, 1), term(aux(1), -1)}, []r1cs.Term{term(nor, 1)})
	checkRow(t, "and", ts.Rows[4], []r1cs.Term{term(aux(0), 1)}, []r1cs.Term{term(aux(1), 1)}, []r1cs.Term{term(and, 1)})
	// p0_xx0 = pick(nor, a, b): (b − a)·(nor) = (b − p)
	checkRow(t, "p0_xx0", ts.Rows[5], []r1cs.Term{term(aux(3), 1), term(aux(10), -1)}, []r1cs.Term{term(nor, 1)},
		[]r1cs.Term{term(aux(3), 1), term(aux(13), -1)})
}

func TestInsertErrors(t *testing.T) {
	cs, _ := testCS(false)
	el := []AllocatedNum{AllocNum(cs, elem(1)), AllocNum(cs, elem(2))}
	bit := AllocBit(cs, true).Boolean()
	if _, err := Insert(cs, nil, el[0], []Boolean{bit}, el); !errors.Is(err, ErrArity) {
		t.Errorf("3 elements with 1 bit: %v", err)
	}
	seven := make([]AllocatedNum, 7)
	if _, err := Insert(cs, nil, el[0], []Boolean{bit.Not(), bit, bit}, seven); !errors.Is(err, ErrInsertBits) {
		t.Errorf("negated bit: %v", err)
	}
	if _, err := Insert(cs, nil, el[0], []Boolean{Constant(true), bit, bit}, seven); !errors.Is(err, ErrInsertBits) {
		t.Errorf("constant bit: %v", err)
	}
}
