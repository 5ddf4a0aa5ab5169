package ifma

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// edgeValues are the integers (not field values) every kernel test
// feeds in, as lanes: 0, 1, the field's one (R mod p), p−1, p−2, values
// at the 52-bit limb boundaries (2^(52k) − 1, 2^(52k), runs of full and
// empty limbs) and the top of the 381-bit range.
func edgeValues() []*big.Int {
	p := fp.Modulus()
	one := big.NewInt(1)
	var v []*big.Int
	add := func(x *big.Int) {
		if x.Sign() >= 0 && x.Cmp(p) < 0 {
			v = append(v, x)
		}
	}
	add(big.NewInt(0))
	add(big.NewInt(1))
	add(big.NewInt(2))
	r := new(big.Int).Lsh(one, 384)
	add(r.Mod(r, p)) // Montgomery one
	add(new(big.Int).Sub(p, one))
	add(new(big.Int).Sub(p, big.NewInt(2)))
	add(new(big.Int).Rsh(p, 1))
	for k := 1; k <= 7; k++ {
		b := new(big.Int).Lsh(one, uint(52*k))
		add(new(big.Int).Sub(b, one))
		add(new(big.Int).Set(b))
		add(new(big.Int).Add(b, one))
		// limbs alternately full and empty
		alt := new(big.Int)
		for j := 0; j < k; j += 2 {
			alt.Or(alt, new(big.Int).Lsh(big.NewInt(limbMask), uint(52*j)))
		}
		add(alt)
	}
	add(new(big.Int).Sub(new(big.Int).Lsh(one, 380), one))
	add(new(big.Int).Lsh(one, 380))
	return v
}

// aboveModulus are 384-bit integers ≥ p: the multiplication accepts them
// as one operand when the other is below p.
func aboveModulus() []*big.Int {
	p := fp.Modulus()
	one := big.NewInt(1)
	top := new(big.Int).Sub(new(big.Int).Lsh(one, 384), one)
	return []*big.Int{
		new(big.Int).Set(p),
		new(big.Int).Add(p, one),
		new(big.Int).Lsh(p, 1),
		new(big.Int).Sub(new(big.Int).Lsh(one, 381), one),
		new(big.Int).Lsh(one, 381),
		new(big.Int).Lsh(one, 383),
		top,
	}
}

// operands builds n·8 lane pairs (x, y): every pair of edge values, then
// random values; with big, x also runs over aboveModulus.
func operands(rng *rand.Rand, big bool) (xs, ys []fp.Element) {
	edges := edgeValues()
	for _, a := range edges {
		for _, b := range edges {
			xs = append(xs, wordsOf(a))
			ys = append(ys, wordsOf(b))
		}
	}
	if big {
		for _, a := range aboveModulus() {
			for _, b := range edges {
				xs = append(xs, wordsOf(a))
				ys = append(ys, wordsOf(b))
			}
		}
	}
	for len(xs)%8 != 0 || len(xs) < 1024 {
		xs = append(xs, randomElement(rng))
		ys = append(ys, randomElement(rng))
	}
	return xs, ys
}

func toGroups(t testing.TB, k kernels, es []fp.Element) []Fp8 {
	g := make([]Fp8, len(es)/8)
	k.fpFrom64(&g[0], &es[0], 6, len(g))
	return g
}

// testKernels checks one kernel set against gnark-crypto's scalar
// arithmetic, lane by lane.
func testKernels(t *testing.T, k kernels) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs, ys := operands(rng, true)
	n := len(xs) / 8

	// Conversions: exact radix changes both ways, strided too.
	gx := toGroups(t, k, xs)
	for i := range xs {
		if got := gx[i/8].Get(i % 8); got != xs[i] {
			t.Fatalf("fpFrom64 lane %d: %x, want %x", i, got, xs[i])
		}
	}
	back := make([]fp.Element, len(xs))
	k.fpTo64(&back[0], &gx[0], 6, n)
	for i := range xs {
		if back[i] != xs[i] {
			t.Fatalf("fpTo64 element %d: %x, want %x", i, back[i], xs[i])
		}
	}
	pairs := make([][2]fp.Element, len(xs)) // stride 12, as the coordinates of []G1Affine
	for i := range xs {
		pairs[i] = [2]fp.Element{xs[i], ys[i]}
	}
	gy := make([]Fp8, n)
	k.fpFrom64(&gy[0], &pairs[0][1], 12, n)
	for i := range ys {
		if got := gy[i/8].Get(i % 8); got != ys[i] {
			t.Fatalf("fpFrom64 stride 12 lane %d: %x, want %x", i, got, ys[i])
		}
	}
	k.fpTo64(&pairs[0][0], &gy[0], 12, n)
	for i := range ys {
		if pairs[i][0] != ys[i] || pairs[i][1] != ys[i] {
			t.Fatalf("fpTo64 stride 12 element %d: %x, want %x (and its neighbour kept)", i, pairs[i], ys[i])
		}
	}

	// Multiplication, with x running over values ≥ p too.
	gz := make([]Fp8, n)
	k.fpMul(&gz[0], &gx[0], &gy[0], n)
	for i := range xs {
		var want fp.Element
		want.Mul(reduced(&xs[i]), &ys[i])
		if got := gz[i/8].Get(i % 8); got != want {
			t.Fatalf("fpMul lane %d: %x · %x = %x, want %x", i, xs[i], ys[i], got, want)
		}
	}
	// and y ≥ p against x < p (the operands' roles differ in the kernel).
	k.fpMul(&gz[0], &gy[0], &gx[0], n)
	for i := range xs {
		var want fp.Element
		want.Mul(reduced(&xs[i]), &ys[i])
		if got := gz[i/8].Get(i % 8); got != want {
			t.Fatalf("fpMul swapped lane %d: %x · %x = %x, want %x", i, ys[i], xs[i], got, want)
		}
	}
	// In place, as callers use it.
	cp := append([]Fp8(nil), gy...)
	k.fpMul(&cp[0], &cp[0], &cp[0], n)
	for i := range ys {
		var want fp.Element
		want.Square(&ys[i])
		if got := cp[i/8].Get(i % 8); got != want {
			t.Fatalf("fpMul in place lane %d: %x, want %x", i, got, want)
		}
	}

	// Addition and subtraction take canonical operands only.
	xs2, ys2 := operands(rng, false)
	n2 := len(xs2) / 8
	ga, gb := toGroups(t, k, xs2), toGroups(t, k, ys2)
	gz = make([]Fp8, n2)
	for _, op := range []struct {
		name string
		f    func(z, x, y *Fp8, n int)
		want func(z, x, y *fp.Element) *fp.Element
	}{
		{"fpAdd", k.fpAdd, (*fp.Element).Add},
		{"fpSub", k.fpSub, (*fp.Element).Sub},
	} {
		op.f(&gz[0], &ga[0], &gb[0], n2)
		for i := range xs2 {
			var want fp.Element
			op.want(&want, &xs2[i], &ys2[i])
			got := gz[i/8].Get(i % 8)
			if got != want || !normalised(&gz[i/8], i%8) {
				t.Fatalf("%s lane %d: %x, %x → %x, want %x", op.name, i, xs2[i], ys2[i], got, want)
			}
		}
	}
}

// normalised: every limb of lane l below 2^52.
func normalised(z *Fp8, l int) bool {
	for k := range z {
		if z[k][l] > limbMask {
			return false
		}
	}
	return true
}

func TestGoKernels(t *testing.T) { testKernels(t, goKernels) }

// TestLimbLayout pins Set/Get against the integer's bits.
func TestLimbLayout(t *testing.T) {
	for _, v := range append(edgeValues(), aboveModulus()...) {
		e := wordsOf(v)
		var z Fp8
		z.Set(3, &e)
		for k := 0; k < 8; k++ {
			want := new(big.Int).Rsh(v, uint(52*k))
			want.And(want, big.NewInt(limbMask))
			if z[k][3] != want.Uint64() {
				t.Fatalf("%x: limb %d = %x, want %x", v, k, z[k][3], want)
			}
		}
		if got := z.Get(3); got != e {
			t.Fatalf("%x: round trip %x", v, got)
		}
	}
}
