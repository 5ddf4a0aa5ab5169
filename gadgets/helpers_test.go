package gadgets

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// corruptAux is a TestSystem whose witness differs from what the circuit
// computed in one auxiliary value: the target-th allocation gets +1. The
// gadgets keep their own values, so the corruption is exactly one variable.
type corruptAux struct {
	*r1cs.TestSystem
	target, n int
}

func (c *corruptAux) Alloc(v *fr.Element) {
	if c.n == c.target {
		var w fr.Element
		w.Add(v, &frOne)
		v = &w
	}
	c.n++
	c.TestSystem.Alloc(v)
}

// testCS returns a fresh constraint system over a TestSystem.
func testCS(keepRows bool) (*r1cs.CS, *r1cs.TestSystem) {
	ts := r1cs.NewTestSystem()
	ts.KeepRows = keepRows
	return r1cs.New(ts), ts
}

// requireSatisfied fails the test with the first unsatisfied row.
func requireSatisfied(t testing.TB, ts *r1cs.TestSystem) {
	t.Helper()
	if !ts.IsSatisfied() {
		t.Fatalf("%d unsatisfied rows; first: %s", ts.NumUnsatisfied(), ts.WhichIsUnsatisfied())
	}
}

// checkCorruptionDetected synthesises build once honestly (it must be
// satisfied) and once for each chosen aux index with that value corrupted
// (it must not be).
func checkCorruptionDetected(t *testing.T, build func(cs *r1cs.CS), targets ...int) {
	t.Helper()
	cs, ts := testCS(false)
	build(cs)
	requireSatisfied(t, ts)
	for _, target := range targets {
		if target < 0 {
			target += cs.NumAux()
		}
		c := &corruptAux{TestSystem: r1cs.NewTestSystem(), target: target}
		build(r1cs.New(c))
		if c.IsSatisfied() {
			t.Errorf("aux %d of %d corrupted, system still satisfied", target, cs.NumAux())
		}
	}
}

func randBits(rng *rand.Rand, n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = rng.IntN(2) == 1
	}
	return out
}

func allocBools(cs *r1cs.CS, vals []bool) []Boolean {
	out := make([]Boolean, len(vals))
	for i, v := range vals {
		out[i] = AllocBit(cs, v).Boolean()
	}
	return out
}

// msgBits is the SHA-256 gadget's message bit order: byte j's MSB first.
func msgBits(data []byte) []bool {
	out := make([]bool, 0, 8*len(data))
	for _, b := range data {
		for i := 7; i >= 0; i-- {
			out = append(out, b>>uint(i)&1 == 1)
		}
	}
	return out
}

func bitsToBytes(bits []Boolean) []byte {
	out := make([]byte, len(bits)/8)
	for i, b := range bits {
		if b.Value() {
			out[i/8] |= 0x80 >> uint(i%8)
		}
	}
	return out
}

func randFr(rng *rand.Rand) fr.Element {
	var b [32]byte
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	b[31] &= 0x3f
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		panic(err)
	}
	return e
}

func elem(v int64) fr.Element {
	var e fr.Element
	e.SetInt64(v)
	return e
}

// loadGolden returns the golden digest for a case, or skips the test while
// the Rust harness has not produced it.
func loadGolden(t *testing.T, name string) *golden.R1CS {
	t.Helper()
	g, err := golden.LoadR1CS(name)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("golden testdata/rustref/r1cs/%s.json not generated yet (tools/rustref)", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// digest synthesises build into a Recorder.
func digest(t *testing.T, build func(cs *r1cs.CS)) r1cs.Digest {
	t.Helper()
	rec := r1cs.NewRecorder()
	build(r1cs.New(rec))
	return rec.Digest()
}

// term is a compact way to write an expected canonical term.
func term(v r1cs.Variable, c int64) r1cs.Term { return r1cs.Term{Var: v, Coeff: elem(c)} }

func termFr(v r1cs.Variable, c fr.Element) r1cs.Term { return r1cs.Term{Var: v, Coeff: c} }

// checkRow compares one recorded row with the expected canonical terms
// (inputs first, then aux, each by index).
func checkRow(t *testing.T, name string, got r1cs.Row, a, b, c []r1cs.Term) {
	t.Helper()
	for k, pair := range [3][2][]r1cs.Term{{got.A, a}, {got.B, b}, {got.C, c}} {
		g, w := pair[0], pair[1]
		ok := len(g) == len(w)
		for i := 0; ok && i < len(g); i++ {
			ok = g[i].Var == w[i].Var && g[i].Coeff.Equal(&w[i].Coeff)
		}
		if !ok {
			t.Errorf("%s: %c = %s, want %s", name, "ABC"[k], fmtTerms(g), fmtTerms(w))
		}
	}
}

func fmtTerms(ts []r1cs.Term) string {
	s := "["
	for i, x := range ts {
		if i > 0 {
			s += " + "
		}
		s += x.Coeff.String() + "·" + x.Var.String()
	}
	return s + "]"
}
