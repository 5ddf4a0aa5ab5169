package groth16

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/internal/testenv"
)

// msmG1Vector and msmG2Vector are msmVector with the adders the tests choose.
func msmG1Vector(points []bls.G1Affine, scalars []fr.Element, workers int, y func() error, newAdder func(int) *ifma.G1Adder) (bls.G1Jac, error) {
	return msmVector[bls.G1Affine, bls.G1Jac](points, scalars, workers, y, func(n int) vecAdder[bls.G1Affine] { return newAdder(n) }, vecBatchG1)
}

func msmG2Vector(points []bls.G2Affine, scalars []fr.Element, workers int, y func() error, newAdder func(int) *ifma.G2Adder) (bls.G2Jac, error) {
	return msmVector[bls.G2Affine, bls.G2Jac](points, scalars, workers, y, func(n int) vecAdder[bls.G2Affine] { return newAdder(n) }, vecBatchG2)
}

// edgeScalars: 0, 1, 2, r−1, r−2, (r−1)/2, and values whose windows sit
// at the signed-digit boundaries (every window 2^(c−1), or all ones).
func edgeScalars() []fr.Element {
	r := fr.Modulus()
	var out []fr.Element
	add := func(b *big.Int) {
		var e fr.Element
		e.SetBigInt(new(big.Int).Mod(b, r))
		out = append(out, e)
	}
	one := big.NewInt(1)
	for _, v := range []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(2),
		new(big.Int).Sub(r, one), new(big.Int).Sub(r, big.NewInt(2)), new(big.Int).Rsh(r, 1)} {
		add(v)
	}
	for c := 4; c <= 16; c++ {
		half, ones := new(big.Int), new(big.Int)
		for bit := 0; bit+c <= 254; bit += c {
			half.SetBit(half, bit+c-1, 1)
			for j := 0; j < c; j++ {
				ones.SetBit(ones, bit+j, 1)
			}
		}
		add(half)
		add(ones)
		add(new(big.Int).Lsh(one, uint(254-c%7)))
	}
	return out
}

func TestVecDigits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	scalars := edgeScalars()
	for range 200 {
		var e fr.Element
		e.SetUint64(rng.Uint64())
		e.Mul(&e, &e).Mul(&e, &e).Mul(&e, &e)
		scalars = append(scalars, e)
	}
	points := make([]bls.G1Affine, len(scalars))
	_, _, g, _ := bls.Generators()
	for i := range points {
		points[i] = g
	}
	for c := 4; c <= 16; c++ {
		nw := (256 + c - 1) / c
		digits := vecDigits(points, scalars, c, nw, 2)
		for i := range scalars {
			got := new(big.Int)
			for w := nw - 1; w >= 0; w-- {
				got.Lsh(got, uint(c))
				d := digits[w*len(scalars)+i]
				if d == 0 {
					continue
				}
				e := int64(d) + 1
				m := big.NewInt(e >> 1)
				if m.Int64() > 1<<(c-1) || m.Sign() == 0 {
					t.Fatalf("c=%d: digit magnitude %d", c, m)
				}
				if e&1 != 0 {
					if w == nw-1 {
						t.Fatalf("c=%d: negative top digit", c)
					}
					got.Sub(got, m)
				} else {
					got.Add(got, m)
				}
			}
			want := scalars[i].BigInt(new(big.Int))
			if got.Cmp(want) != 0 {
				t.Fatalf("c=%d scalar %d: digits give %x, want %x", c, i, got, want)
			}
		}
	}
	// Points at infinity get no digits, on the general path and c = 16's.
	points[3].SetInfinity()
	for _, c := range []int{8, 16} {
		nw := 256 / c
		digits := vecDigits(points, scalars, c, nw, 1)
		for w := 0; w < nw; w++ {
			if digits[w*len(scalars)+3] != 0 {
				t.Fatalf("c=%d: digit for a point at infinity", c)
			}
		}
	}
}

// vecMSMInputs: random points with repeats, negations and infinities
// mixed in (so that buckets see doublings and cancellations), and scalars
// with edge values, repeats and zeros.
func vecMSMInputs(n int, seed uint64) ([]bls.G1Affine, []fr.Element) {
	rng := rand.New(rand.NewPCG(seed, 3))
	_, _, g, _ := bls.Generators()
	ks := make([]fr.Element, n)
	for i := range ks {
		ks[i].SetUint64(rng.Uint64() | 1)
	}
	points := bls.BatchScalarMultiplicationG1(&g, ks)
	scalars := make([]fr.Element, n)
	edges := edgeScalars()
	for i := range scalars {
		switch rng.IntN(10) {
		case 0:
			scalars[i] = edges[rng.IntN(len(edges))]
		case 1:
			if i > 0 {
				scalars[i] = scalars[i-1]
				points[i] = points[i-1] // same bucket, same point: doubling
			}
		case 2:
			if i > 0 {
				scalars[i] = scalars[i-1]
				points[i].Neg(&points[i-1]) // cancels in every bucket
			}
		case 3:
			points[i].SetInfinity()
			scalars[i].SetRandom()
		default:
			scalars[i].SetRandom()
		}
	}
	return points, scalars
}

func checkVectorMSM(t *testing.T, n int, newAdder func(int) *ifma.G1Adder) {
	points, scalars := vecMSMInputs(n, uint64(n))
	var want bls.G1Jac
	if _, err := want.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: 2}); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		got, err := msmG1Vector(points, scalars, workers, nil, newAdder)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(&want) {
			t.Fatalf("n=%d (c=%d), %d workers: vector MSM differs from MultiExp", n, windowBits(n), workers)
		}
	}
}

// TestMSMG1VectorReference runs the Pippenger on the adder's scalar
// reference kernels: its batching, queueing and sums, on every machine.
func TestMSMG1VectorReference(t *testing.T) {
	for _, n := range []int{1, 9, 300, 2500} {
		checkVectorMSM(t, n, ifma.NewReferenceG1Adder)
	}
}

// TestMSMG2Vector: the G2 Pippenger against MultiExp, on the reference
// adder and, where in use, the IFMA one (repeats, negations, infinities
// and edge scalars as for G1).
func TestMSMG2Vector(t *testing.T) {
	type run struct {
		n        int
		newAdder func(int) *ifma.G2Adder
	}
	runs := []run{{300, ifma.NewReferenceG2Adder}}
	if ifma.Enabled() {
		runs = append(runs, run{1, ifma.NewG2Adder}, run{300, ifma.NewG2Adder}, run{3000, ifma.NewG2Adder})
	}
	for _, r := range runs {
		g1, scalars := vecMSMInputs(r.n, uint64(r.n)+1)
		_, _, _, gen := bls.Generators()
		ks := make([]fr.Element, r.n)
		rng := rand.New(rand.NewPCG(uint64(r.n), 5))
		for i := range ks {
			ks[i].SetUint64(rng.Uint64() | 1)
		}
		points := bls.BatchScalarMultiplicationG2(&gen, ks)
		for i := range points { // the same repeats, negations and infinities as g1's
			switch {
			case g1[i].IsInfinity():
				points[i].SetInfinity()
			case i > 0 && g1[i] == g1[i-1]:
				points[i] = points[i-1]
			case i > 0 && g1[i].Equal(new(bls.G1Affine).Neg(&g1[i-1])):
				points[i].Neg(&points[i-1])
			}
		}
		var want bls.G2Jac
		if _, err := want.MultiExp(points, scalars, ecc.MultiExpConfig{}); err != nil {
			t.Fatal(err)
		}
		got, err := msmG2Vector(points, scalars, 2, nil, r.newAdder)
		if err != nil || !got.Equal(&want) {
			t.Fatalf("G2, n=%d: vector MSM differs (%v)", r.n, err)
		}
	}
}

func TestMSMG1VectorIFMA(t *testing.T) {
	if !ifma.Enabled() {
		testenv.Skip(t, "IFMA MSM, this CPU has no AVX-512 IFMA",
			fmt.Sprintf("IFMA not in use (%s); the kernels are tested in internal/ifma, natively or emulated", ifma.Current()))
	}
	sizes := []int{1, 9, 300, 2500, 20000}
	if testing.Short() {
		sizes = sizes[:4]
	}
	for _, n := range sizes {
		checkVectorMSM(t, n, ifma.NewG1Adder)
	}
	// And through msmG1 as the prover calls it: all-random, split and
	// density-filtered queries.
	scalars, p1, _, sel := msmInputs(5000, 0.3, 0.3, 77)
	for _, s := range []struct {
		name string
		sel  bool
	}{{"split", false}, {"filtered", true}} {
		var se = sel
		if !s.sel {
			se = nil
		}
		sc, pts := selected(scalars, p1, se)
		var want bls.G1Jac
		want.MultiExp(pts, sc, ecc.MultiExpConfig{})
		got, err := msmG1(p1, scalars, se, 2, nil)
		if err != nil || !got.Equal(&want) {
			t.Fatalf("%s: msmG1 with IFMA differs (%v)", s.name, err)
		}
	}
}

// TestMSMG1VectorYield: y runs before every YieldPoints points of each
// window, and its error ends the MSM.
func TestMSMG1VectorYield(t *testing.T) {
	points, scalars := vecMSMInputs(300, 4)
	var calls atomic.Int32
	_, err := msmG1Vector(points, scalars, 2, func() error { calls.Add(1); return nil }, ifma.NewReferenceG1Adder)
	if nw := (256 + windowBits(300) - 1) / windowBits(300); err != nil || int(calls.Load()) != nw {
		t.Fatalf("err %v, %d yield calls for %d windows", err, calls.Load(), nw)
	}
	stop := errors.New("stop")
	_, err = msmG1Vector(points, scalars, 2, func() error { return stop }, ifma.NewReferenceG1Adder)
	if !errors.Is(err, stop) {
		t.Fatalf("yield error: got %v", err)
	}
}

func TestWindowBits(t *testing.T) {
	for _, c := range []struct{ n, c int }{{1 << 22, 16}, {1 << 20, 14}, {1 << 16, 11}} {
		if got := windowBits(c.n); got != c.c {
			t.Errorf("windowBits(2^%d) = %d, want %d", bitsOf(c.n), got, c.c)
		}
	}
}

func bitsOf(n int) int {
	b := 0
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// BenchmarkMSMG1Vector compares the IFMA Pippenger with gnark-crypto's
// MultiExp on random points and uniform scalars (the H query's shape),
// alternating under -count; CPU time is reported beside wall time.
//
//	CUZK_MSM_LOG=20 go test -run '^$' -bench MSMG1Vector -count 5 ./groth16
func BenchmarkMSMG1Vector(b *testing.B) {
	lg := 16
	if s := os.Getenv("CUZK_MSM_LOG"); s != "" {
		lg, _ = strconv.Atoi(s)
	}
	n := 1 << lg
	points := manyPoints(n, uint64(lg))
	scalars := make([]fr.Element, n)
	for i := range scalars {
		scalars[i].SetRandom()
	}
	run := func(name string, f func()) {
		b.Run(fmt.Sprintf("%s/2^%d", name, lg), func(b *testing.B) {
			c0 := cpuSeconds()
			for b.Loop() {
				f()
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
		})
	}
	run("gnark", func() {
		var r bls.G1Jac
		r.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: 2})
	})
	if ifma.Enabled() {
		run("ifma", func() {
			if _, err := msmG1Vector(points, scalars, 2, nil, ifma.NewG1Adder); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// TestMSMG1VectorSkewed: scalars that put most points in one bucket of
// every window (all equal, or a few values) go through the accumulators
// of that bucket, not one batch each.
func TestMSMG1VectorSkewed(t *testing.T) {
	newAdder := ifma.NewReferenceG1Adder
	n := 600
	if ifma.Enabled() {
		newAdder, n = ifma.NewG1Adder, 5000
	}
	points, scalars := vecMSMInputs(n, 11)
	var k fr.Element
	k.SetString("12345678901234567890123456789")
	for i := range scalars {
		switch i % 4 {
		case 0, 1, 2:
			scalars[i] = k
		default:
			scalars[i].SetInt64(-int64(i % 3))
		}
	}
	var want bls.G1Jac
	want.MultiExp(points, scalars, ecc.MultiExpConfig{})
	got, err := msmG1Vector(points, scalars, 2, nil, newAdder)
	if err != nil || !got.Equal(&want) {
		t.Fatalf("skewed scalars: vector MSM differs (%v)", err)
	}
}

// manyPoints returns n pseudo-random points cheaply: 2^12 random
// multiples of the generator, and sums of two of them.
func manyPoints(n int, seed uint64) []bls.G1Affine {
	rng := rand.New(rand.NewPCG(seed, 17))
	_, _, g, _ := bls.Generators()
	base := min(n, 1<<12)
	ks := make([]fr.Element, base)
	for i := range ks {
		ks[i].SetUint64(rng.Uint64() | 1)
	}
	q := bls.BatchScalarMultiplicationG1(&g, ks)
	if n == base {
		return q
	}
	jac := make([]bls.G1Jac, n)
	for i := range jac {
		jac[i].FromAffine(&q[i%base])
		jac[i].AddMixed(&q[(i/base+7*i)%base])
	}
	return bls.BatchJacobianToAffineG1(jac)
}

// BenchmarkMSMG1Mix runs msmG1 as the prover does (zeros skipped, ones
// summed, the rest through MultiExp or the IFMA Pippenger, whichever the
// process uses) on random points and a mix of scalars: CUZK_MSM_BITS is
// the share that are 0 or 1, half each (0.98 is PoRep-like; 0 the H
// query). Compare arithmetics with alternating processes:
//
//	CUZK_MSM_LOG=22 CUZK_MSM_BITS=0.98 go test -run '^$' -bench MSMG1Mix ./groth16
//	CUZK_NO_IFMA=1 CUZK_MSM_LOG=22 CUZK_MSM_BITS=0.98 go test -run '^$' -bench MSMG1Mix ./groth16
func BenchmarkMSMG1Mix(b *testing.B) {
	lg, bitShare := 16, 0.98
	if s := os.Getenv("CUZK_MSM_LOG"); s != "" {
		lg, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("CUZK_MSM_BITS"); s != "" {
		bitShare, _ = strconv.ParseFloat(s, 64)
	}
	n := 1 << lg
	points := manyPoints(n, uint64(lg)+100)
	rng := rand.New(rand.NewPCG(uint64(lg), 99))
	scalars := make([]fr.Element, n)
	for i := range scalars {
		switch u := rng.Float64(); {
		case u < bitShare/2:
		case u < bitShare:
			scalars[i].SetOne()
		default:
			scalars[i].SetRandom()
		}
	}
	b.Run(fmt.Sprintf("%s/2^%d/bits=%.2f", ifma.Current().Arithmetic, lg, bitShare), func(b *testing.B) {
		c0 := cpuSeconds()
		for b.Loop() {
			if _, err := msmG1(points, scalars, nil, 2, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
	})
}

// BenchmarkYieldPieces measures what splitting a general MSM into pieces of
// YieldPoints points (as multiExp does whenever a yield function is set,
// which the engine always sets) costs: under gnark-crypto's MultiExp each
// piece gets a smaller window and its own bucket reductions; the IFMA
// Pippenger yields inside one MSM instead. Whole and in pieces alternate
// within each iteration; the reported ratio is the median over pairs of
// CPU time in pieces over whole.
//
//	CUZK_NO_IFMA=1 CUZK_MSM_LOG=22 go test -run '^$' -bench YieldPieces -benchtime 5x ./groth16
func BenchmarkYieldPieces(b *testing.B) {
	lg := 20
	if s := os.Getenv("CUZK_MSM_LOG"); s != "" {
		lg, _ = strconv.Atoi(s)
	}
	n := 1 << lg
	points := manyPoints(n, uint64(lg)+200)
	scalars := make([]fr.Element, n)
	for i := range scalars {
		scalars[i].SetRandom()
	}
	noop := func() error { return nil }
	run := func(y func() error, piece int) float64 {
		c0 := cpuSeconds()
		var res bls.G1Jac
		if err := multiExp[bls.G1Affine, bls.G1Jac](&res, points, scalars, 2, y, piece); err != nil {
			b.Fatal(err)
		}
		return cpuSeconds() - c0
	}
	b.Run(fmt.Sprintf("%s/2^%d", ifma.Current().Arithmetic, lg), func(b *testing.B) {
		var whole, pieces, ratios []float64
		for b.Loop() {
			w := run(nil, msmPiece)
			p := run(noop, YieldPoints)
			whole, pieces, ratios = append(whole, w), append(pieces, p), append(ratios, p/w)
		}
		b.ReportMetric(median(whole), "whole-cpu-s")
		b.ReportMetric(median(pieces), "pieces-cpu-s")
		b.ReportMetric(median(ratios), "pieces/whole")
	})
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkMSMG2Vector is BenchmarkMSMG1Vector for G2 (the b_g2 query's
// shape), at 2^CUZK_MSM_LOG points (default 2^16).
func BenchmarkMSMG2Vector(b *testing.B) {
	lg := 16
	if s := os.Getenv("CUZK_MSM_LOG"); s != "" {
		lg, _ = strconv.Atoi(s)
	}
	n := 1 << lg
	rng := rand.New(rand.NewPCG(2, uint64(lg)))
	_, _, _, g := bls.Generators()
	base := min(n, 1<<10)
	ks := make([]fr.Element, base)
	for i := range ks {
		ks[i].SetUint64(rng.Uint64() | 1)
	}
	q := bls.BatchScalarMultiplicationG2(&g, ks)
	points := make([]bls.G2Affine, n)
	for i := range points {
		points[i].Add(&q[i%base], &q[(i/base+7*i)%base])
	}
	scalars := make([]fr.Element, n)
	for i := range scalars {
		scalars[i].SetRandom()
	}
	run := func(name string, f func()) {
		b.Run(fmt.Sprintf("%s/2^%d", name, lg), func(b *testing.B) {
			c0 := cpuSeconds()
			for b.Loop() {
				f()
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
		})
	}
	run("gnark", func() {
		var r bls.G2Jac
		r.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: 2})
	})
	if ifma.Enabled() {
		run("ifma", func() {
			if _, err := msmG2Vector(points, scalars, 2, nil, ifma.NewG2Adder); err != nil {
				b.Fatal(err)
			}
		})
	}
}
