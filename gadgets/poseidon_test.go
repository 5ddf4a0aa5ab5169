package gadgets

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/hash"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func allocNums(cs *r1cs.CS, vals []fr.Element) []AllocatedNum {
	out := make([]AllocatedNum, len(vals))
	for i, v := range vals {
		out[i] = AllocNum(cs, v)
	}
	return out
}

// Upstream counts: neptune test_poseidon_hash (2, 4, 8, 16, 24, 36) and
// rust-fil-proofs test_hash_single_column_circuit (11).
func TestPoseidonCountsAndValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct{ arity, rows int }{{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385}} {
		if testing.Short() && tc.arity > 11 {
			continue
		}
		vals := make([]fr.Element, tc.arity)
		for i := range vals {
			vals[i] = randFr(rng)
		}
		cs, ts := testCS(false)
		pre := allocNums(cs, vals)
		out, err := PoseidonHash(cs, pre)
		if err != nil {
			t.Fatal(err)
		}
		requireSatisfied(t, ts)
		if cs.NumConstraints() != tc.rows || cs.NumAux() != tc.arity+tc.rows {
			t.Errorf("arity %d: %d rows / %d aux, want %d rows, one aux each", tc.arity, cs.NumConstraints(), cs.NumAux(), tc.rows)
		}
		if n, _ := PoseidonRows(tc.arity); n != tc.rows {
			t.Errorf("PoseidonRows(%d) = %d", tc.arity, n)
		}
		want := hash.Poseidon(tc.arity).Hash(vals)
		if !out.Val.Equal(&want) {
			t.Errorf("arity %d: circuit %s, native %s", tc.arity, out.Val.String(), want.String())
		}
		if got := ts.Value(out.V); !got.Equal(&want) || out.V != r1cs.AuxVar(cs.NumAux()-1) {
			t.Errorf("arity %d: digest variable %v holds %s", tc.arity, out.V, got.String())
		}
	}
}

// neptune's own test vector: Poseidon-2(0, 1) from hash_values_aux.
func TestPoseidonNeptuneVector(t *testing.T) {
	cs, ts := testCS(false)
	pre := allocNums(cs, []fr.Element{elem(0), elem(1)})
	out, err := PoseidonHash(cs, pre)
	if err != nil {
		t.Fatal(err)
	}
	requireSatisfied(t, ts)
	want := fr.Element{}
	le := [4]uint64{0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}
	var b [32]byte
	for i, l := range le {
		for k := 0; k < 8; k++ {
			b[8*i+k] = byte(l >> (8 * k))
		}
	}
	want, _ = fr.LittleEndian.Element(&b)
	if !out.Val.Equal(&want) {
		t.Fatalf("Poseidon-2(0,1) = %s", out.Val.String())
	}
}

func TestPoseidonUnsupportedArity(t *testing.T) {
	cs, _ := testCS(false)
	if _, err := PoseidonHash(cs, nil); !errors.Is(err, ErrArity) || !errors.Is(err, hash.ErrUnsupportedArity) {
		t.Fatalf("arity 0: %v", err)
	}
	if cs.NumConstraints() != 0 {
		t.Fatal("rows emitted for a rejected arity")
	}
}

// The first rows of Poseidon-2 and its last row, derived by hand from
// neptune v11 circuit.rs with the hash package's constants.
func TestPoseidon2RowStructure(t *testing.T) {
	p := hash.Poseidon(2)
	crc := p.CompressedRoundConstants
	cs, ts := testCS(true)
	pre := allocNums(cs, []fr.Element{elem(5), elem(9)}) // aux0, aux1
	if _, err := PoseidonHash(cs, pre); err != nil {
		t.Fatal(err)
	}
	requireSatisfied(t, ts)
	neg := func(x fr.Element) fr.Element { x.Neg(&x); return x }
	t3 := 3 // width
	// First round, element i (i = 1, 2): square_sum, square, mul_sum with
	// pre = crc[i], post = crc[t+i].
	for i := 1; i <= 2; i++ {
		x := aux(i - 1)
		base := 2 + 3*(i-1) // aux of (x+pre)²
		r := 3 * (i - 1)
		prek, post := crc[i], crc[t3+i]
		sum := []r1cs.Term{termFr(oneVar, prek), term(x, 1)}
		checkRow(t, "square_sum", ts.Rows[r], sum, sum, []r1cs.Term{term(aux(base), 1)})
		checkRow(t, "square", ts.Rows[r+1], []r1cs.Term{term(aux(base), 1)}, []r1cs.Term{term(aux(base), 1)}, []r1cs.Term{term(aux(base+1), 1)})
		checkRow(t, "mul_sum", ts.Rows[r+2], sum, []r1cs.Term{term(aux(base+1), 1)},
			[]r1cs.Term{termFr(oneVar, neg(post)), term(aux(base+2), 1)})
	}
	// Round 1, element 0: ensure_allocated of Σ_i s_i·MDS[i][0] where s_0 is
	// the tag's constant S-box (tag + pre0)^5 + post0 and s_1, s_2 are aux4, aux7.
	var c0 fr.Element
	c0.Add(&p.DomainTag, &crc[0])
	quintic(&c0)
	c0.Add(&c0, &crc[t3])
	var k0 fr.Element
	k0.Mul(&c0, &p.MDS[0][0])
	checkRow(t, "ensure_allocated", ts.Rows[6],
		[]r1cs.Term{termFr(oneVar, k0), termFr(aux(4), p.MDS[1][0]), termFr(aux(7), p.MDS[2][0])},
		[]r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(8), 1)})
	checkRow(t, "l^2", ts.Rows[7], []r1cs.Term{term(aux(8), 1)}, []r1cs.Term{term(aux(8), 1)}, []r1cs.Term{term(aux(9), 1)})
	checkRow(t, "l^4", ts.Rows[8], []r1cs.Term{term(aux(9), 1)}, []r1cs.Term{term(aux(9), 1)}, []r1cs.Term{term(aux(10), 1)})
	// (l)·(l^4) = (l^5 − post) with the first key of round 1, crc[2t].
	checkRow(t, "l^5", ts.Rows[9], []r1cs.Term{term(aux(8), 1)}, []r1cs.Term{term(aux(10), 1)},
		[]r1cs.Term{termFr(oneVar, neg(crc[2*t3])), term(aux(11), 1)})

	// Last row: element 1 = Σ_i l5_i·MDS[i][1] over the terminal round's
	// S-box outputs (no post key), allocated.
	n := len(ts.Rows)
	last := ts.Rows[n-1]
	l5 := func(i int) r1cs.Variable { return aux(2 + n - 1 - 4*(t3-i) + 3) }
	checkRow(t, "hash result", last,
		[]r1cs.Term{termFr(l5(0), p.MDS[0][1]), termFr(l5(1), p.MDS[1][1]), termFr(l5(2), p.MDS[2][1])},
		[]r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(2+n-1), 1)})
	terminal := ts.Rows[n-2] // mul_sum without post key: (l)·(l^4) = (l^5)
	if len(terminal.C) != 1 || terminal.C[0].Var != l5(2) {
		t.Errorf("terminal mul_sum C = %s", fmtTerms(terminal.C))
	}
}

func TestPoseidonCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	vals := []fr.Element{randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng)}
	build := func(cs *r1cs.CS) {
		if _, err := PoseidonHash(cs, allocNums(cs, vals)); err != nil {
			t.Fatal(err)
		}
	}
	// A preimage element, a first-round square, a partial round, the digest.
	checkCorruptionDetected(t, build, 0, 9, 200, -1)
}

func TestPoseidonAllocations(t *testing.T) {
	pa := r1cs.NewProvingAssignment(r1cs.Size{Constraints: 4000, Inputs: 1, Aux: 4000})
	cs := r1cs.New(pa)
	rng := rand.New(rand.NewPCG(15, 16))
	pre := allocNums(cs, []fr.Element{randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng), randFr(rng)})
	if _, err := PoseidonHash(cs, pre); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(3, func() {
		if _, err := PoseidonHash(cs, pre); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Poseidon-11, want 0", allocs)
	}
}
