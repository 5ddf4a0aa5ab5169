package gadgets

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

func TestToBitsLE(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := randFr(rng)
	var minusOne fr.Element
	minusOne.SetOne().Neg(&minusOne)
	for _, v := range []fr.Element{x, {}, minusOne} {
		cs, ts := testCS(true)
		n := AllocNum(cs, v)
		bits := n.ToBitsLE(cs, nil)
		requireSatisfied(t, ts)
		if len(bits) != NumBits || cs.NumConstraints() != 256 || cs.NumAux() != 256 {
			t.Fatalf("%d bits, %d rows, %d aux", len(bits), cs.NumConstraints(), cs.NumAux())
		}
		var want big.Int
		v.BigInt(&want)
		for i, b := range bits {
			if b.Value() != (want.Bit(i) == 1) {
				t.Fatalf("bit %d of %s", i, v.String())
			}
			if bv, _ := b.Bit(); bv.Variable() != aux(i+1) {
				t.Fatalf("bit %d is %v, want aux%d (allocated LSB first)", i, bv.Variable(), i+1)
			}
		}
		// (0)·(0) = (Σ 2^i·b_i − x)
		c := []r1cs.Term{term(aux(0), -1)}
		for i := 0; i < NumBits; i++ {
			c = append(c, termFr(aux(i+1), pow2[i]))
		}
		checkRow(t, "unpacking", ts.Rows[255], nil, nil, c)
	}
	checkCorruptionDetected(t, func(cs *r1cs.CS) { AllocNum(cs, x).ToBitsLE(cs, nil) }, 0, 1, 100, 255)
}

func TestNumRows(t *testing.T) {
	cs, ts := testCS(true)
	x := AllocNum(cs, elem(6)) // aux0
	y := AllocNum(cs, elem(7)) // aux1
	in := x.Inputize(cs)       // input1
	m := x.Mul(cs, y)          // aux2
	s := y.Square(cs)          // aux3
	sum := Add(cs, x, y)       // aux4
	Equal(cs, sum, AllocNum(cs, elem(13)))
	requireSatisfied(t, ts)
	for _, c := range []struct {
		got  AllocatedNum
		want int64
	}{{in, 6}, {m, 42}, {s, 49}, {sum, 13}} {
		if w := elem(c.want); !c.got.Val.Equal(&w) {
			t.Errorf("%v = %s, want %d", c.got.V, c.got.Val.String(), c.want)
		}
	}
	in1 := r1cs.InputVar(1)
	if in.V != in1 {
		t.Fatalf("inputize made %v", in.V)
	}
	checkRow(t, "inputize", ts.Rows[0], []r1cs.Term{term(in1, 1)}, []r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(0), 1)})
	checkRow(t, "mul", ts.Rows[1], []r1cs.Term{term(aux(0), 1)}, []r1cs.Term{term(aux(1), 1)}, []r1cs.Term{term(aux(2), 1)})
	checkRow(t, "square", ts.Rows[2], []r1cs.Term{term(aux(1), 1)}, []r1cs.Term{term(aux(1), 1)}, []r1cs.Term{term(aux(3), 1)})
	checkRow(t, "add", ts.Rows[3], []r1cs.Term{term(aux(0), 1), term(aux(1), 1)}, []r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(4), 1)})
	checkRow(t, "equal", ts.Rows[4], []r1cs.Term{term(aux(4), 1)}, []r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(5), 1)})

	build := func(cs *r1cs.CS) {
		x := AllocNum(cs, elem(6))
		y := AllocNum(cs, elem(7))
		x.Inputize(cs)
		x.Mul(cs, y)
		y.Square(cs)
		Equal(cs, Add(cs, x, y), AllocNum(cs, elem(13)))
	}
	checkCorruptionDetected(t, build, 0, 1, 2, 3, 4, 5)
}

func TestPickRows(t *testing.T) {
	for _, negated := range []bool{false, true} {
		for _, cond := range []bool{false, true} {
			cs, ts := testCS(true)
			a := AllocNum(cs, elem(10)) // aux0
			b := AllocNum(cs, elem(20)) // aux1
			c := AllocBit(cs, cond != negated).Boolean()
			if negated {
				c = c.Not()
			}
			r := Pick(cs, c, a, b) // aux3
			requireSatisfied(t, ts)
			want := elem(20)
			if cond {
				want = elem(10)
			}
			if !r.Val.Equal(&want) || r.V != aux(3) {
				t.Fatalf("pick(%v) = %s", cond, r.Val.String())
			}
			// (b − a)·(cond) = (b − c)
			bTerms := []r1cs.Term{term(aux(2), 1)}
			if negated {
				bTerms = []r1cs.Term{term(oneVar, 1), term(aux(2), -1)}
			}
			checkRow(t, "pick", ts.Rows[1], []r1cs.Term{term(aux(0), -1), term(aux(1), 1)}, bTerms,
				[]r1cs.Term{term(aux(1), 1), term(aux(3), -1)})
		}
	}
	checkCorruptionDetected(t, func(cs *r1cs.CS) {
		Pick(cs, AllocBit(cs, true).Boolean(), AllocNum(cs, elem(10)), AllocNum(cs, elem(20)))
	}, 0, 1, 3) // b (aux2) is irrelevant when cond holds
}

func TestPackBits(t *testing.T) {
	cs, ts := testCS(true)
	x := AllocBit(cs, true).Boolean()  // aux0
	y := AllocBit(cs, false).Boolean() // aux1
	bits := []Boolean{x, y.Not(), Constant(true), Constant(false), y}
	n := PackBits(cs, bits) // aux2 = 1 + 2 + 4 = 7
	requireSatisfied(t, ts)
	if w := elem(7); !n.Val.Equal(&w) || n.V != aux(2) {
		t.Fatalf("packed %s", n.Val.String())
	}
	// (x + 2·(ONE − y) + 4·ONE + 16·y)·(ONE) = (n)
	checkRow(t, "packing", ts.Rows[2], []r1cs.Term{term(oneVar, 6), term(aux(0), 1), term(aux(1), 14)},
		[]r1cs.Term{term(oneVar, 1)}, []r1cs.Term{term(aux(2), 1)})

	// Only the first 254 bits count.
	cs, ts = testCS(false)
	var long []Boolean
	for i := 0; i < 300; i++ {
		long = append(long, Constant(true))
	}
	n = PackBits(cs, long)
	requireSatisfied(t, ts)
	var want fr.Element
	want.Sub(&pow2[254], &frOne)
	if !n.Val.Equal(&want) {
		t.Fatalf("300 ones packed to %s", n.Val.String())
	}
	checkCorruptionDetected(t, func(cs *r1cs.CS) { PackBits(cs, []Boolean{AllocBit(cs, true).Boolean(), Constant(true)}) }, 0, 1)
}

func TestPackIntoInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	vals := randBits(rng, 300)
	cs, ts := testCS(true)
	bits := allocBools(cs, vals)
	PackIntoInputs(cs, bits)
	requireSatisfied(t, ts)
	if cs.NumInputs() != 3 || cs.NumConstraints() != 302 {
		t.Fatalf("%d inputs, %d rows", cs.NumInputs(), cs.NumConstraints())
	}
	for k, chunk := range [][]bool{vals[:254], vals[254:]} {
		var want fr.Element
		for i, b := range chunk {
			if b {
				want.Add(&want, &pow2[i])
			}
		}
		if got := ts.Input[k+1]; !got.Equal(&want) {
			t.Errorf("input %d = %s", k+1, got.String())
		}
		row := ts.Rows[300+k]
		if row.C[0].Var != r1cs.InputVar(k+1) || len(row.B) != 1 {
			t.Errorf("packing row %d: %s", k, fmtTerms(row.C))
		}
	}
}

func TestReverseBitNumbering(t *testing.T) {
	in := []Boolean{Constant(true), Constant(false), Constant(false), Constant(false),
		Constant(false), Constant(false), Constant(false), Constant(false), Constant(true)}
	out := ReverseBitNumbering(nil, in)
	if len(out) != 16 {
		t.Fatalf("%d bits", len(out))
	}
	for i, b := range out {
		if b.Value() != (i == 7 || i == 15) {
			t.Errorf("bit %d = %v", i, b.Value())
		}
	}
}

func TestAllocBytes(t *testing.T) {
	cs, ts := testCS(false)
	be := AllocBytesBE(cs, nil, []byte{0x81, 0x02})
	le := AllocBytesLE(cs, nil, []byte{0x81, 0x02})
	requireSatisfied(t, ts)
	if cs.NumConstraints() != 32 {
		t.Fatalf("%d rows", cs.NumConstraints())
	}
	for i := 0; i < 16; i++ {
		wantBE := i == 0 || i == 7 || i == 14
		wantLE := i == 0 || i == 7 || i == 9
		if be[i].Value() != wantBE || le[i].Value() != wantLE {
			t.Errorf("bit %d: be %v le %v", i, be[i].Value(), le[i].Value())
		}
	}
}

func TestUInt64(t *testing.T) {
	const v = 0x0123456789abcdef
	cs, ts := testCS(true)
	u := AllocUInt64(cs, v)
	u.PackIntoInput(cs)
	requireSatisfied(t, ts)
	if cs.NumConstraints() != 65 || cs.NumInputs() != 2 || cs.NumAux() != 64 {
		t.Fatalf("%d rows %d inputs %d aux", cs.NumConstraints(), cs.NumInputs(), cs.NumAux())
	}
	var want fr.Element
	want.SetUint64(v)
	if !ts.Input[1].Equal(&want) {
		t.Fatalf("input %s", ts.Input[1].String())
	}
	be := u.AppendBitsBE(nil)
	le := u.AppendBitsLE(nil)
	for i := 0; i < 64; i++ {
		if be[i].Value() != (uint64(v)>>(63-i)&1 == 1) || le[i] != u.Bit(i) {
			t.Fatalf("bit %d", i)
		}
		if b, _ := le[i].Bit(); b.Variable() != aux(i) {
			t.Fatalf("bit %d is %v (LSB first)", i, b.Variable())
		}
	}
	c := UInt64Constant(22)
	if c.Value() != 22 || !c.Bit(1).Value() || !c.Bit(1).IsConstant() {
		t.Fatal("constant UInt64")
	}
	checkCorruptionDetected(t, func(cs *r1cs.CS) { u := AllocUInt64(cs, v); u.PackIntoInput(cs) }, 0, 63)
}
