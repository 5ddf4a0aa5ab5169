package ifma

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sync"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// NoIFMAEnv is the environment variable that forces scalar arithmetic
// (any value but "" and "0"), for comparisons and as a kill switch.
const NoIFMAEnv = "CUZK_NO_IFMA"

// Names of the arithmetic in use ([Status.Arithmetic]).
const (
	ArithIFMA   = "avx512-ifma"
	ArithScalar = "scalar"
)

// Status says which field arithmetic the process uses and why. It is
// decided once, on first use, and never changes.
type Status struct {
	Arithmetic string // ArithIFMA or ArithScalar
	// Reason is why the arithmetic is scalar ("" with IFMA): the CPU or
	// OS lacks AVX-512 IFMA, CUZK_NO_IFMA is set, or a kernel failed its
	// known-answer check (then Failed is true and the daemon warns).
	Reason string
	Failed bool
	// FrVector: gnark-crypto's IFMA fr vector code (fr.Vector.Mul and
	// ScalarMul) is used by the transforms; it follows Arithmetic.
	FrVector bool
}

// String is the one-line form logged at start-up and shown on the status page.
func (s Status) String() string {
	if s.Reason == "" {
		return s.Arithmetic
	}
	return s.Arithmetic + " (" + s.Reason + ")"
}

// Features is what the kernels need of the CPU and OS; x/sys/cpu reports
// AVX-512 features only where the OS saves the ZMM and opmask state.
type Features struct {
	AVX512F, AVX512DQ, AVX512IFMA bool
}

var current = sync.OnceValue(func() Status {
	return decide(cpuFeatures(), os.Getenv(NoIFMAEnv), func() error { return knownAnswers(asmKernels) })
})

// Current is the process's arithmetic (deciding it on the first call,
// which runs the known-answer check: about a millisecond,
// BenchmarkKnownAnswers).
func Current() Status { return current() }

// Enabled reports whether the IFMA kernels are in use.
func Enabled() bool { return current().Arithmetic == ArithIFMA }

// FrVector reports whether the transforms use gnark-crypto's fr vector
// multiplication.
func FrVector() bool { return current().FrVector }

// decide picks the arithmetic from the CPU's features, the value of
// CUZK_NO_IFMA and the known-answer check (run only if the rest allows
// IFMA).
func decide(f Features, noIFMA string, check func() error) Status {
	scalar := func(reason string, failed bool) Status {
		return Status{Arithmetic: ArithScalar, Reason: reason, Failed: failed}
	}
	switch {
	case !haveAsm:
		return scalar("no kernels in this build (not amd64, or purego)", false)
	case !f.AVX512F || !f.AVX512DQ || !f.AVX512IFMA:
		return scalar(fmt.Sprintf("CPU or OS lacks AVX-512 IFMA (avx512f=%v avx512dq=%v avx512ifma=%v)", f.AVX512F, f.AVX512DQ, f.AVX512IFMA), false)
	case noIFMA != "" && noIFMA != "0":
		return scalar(NoIFMAEnv+"="+noIFMA, false)
	}
	if err := check(); err != nil {
		return scalar("known-answer check failed: "+err.Error(), true)
	}
	return Status{Arithmetic: ArithIFMA, FrVector: true}
}

// knownAnswers runs every kernel of k on fixed inputs (edge values and a
// seeded random batch) and compares with gnark-crypto's scalar
// arithmetic; it also checks gnark-crypto's IFMA fr vector code against
// its scalar fr.Mul. The first mismatch is the error.
func knownAnswers(k kernels) error {
	rng := rand.New(rand.NewPCG(21, 0x1f3a))
	// Every pair of eight edge values (0, 1, the field's one, p−1, p−2,
	// limb-boundary patterns), then random pairs.
	edges := [8]fp.Element{{}, {1}, fp.One(), modulusMinus(1), modulusMinus(2),
		{1<<52 - 1}, {0, 1 << 40}, {^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0), modulusWords[5] - 1}}
	var xs, ys [128]fp.Element
	for i := range xs {
		if i < 64 {
			xs[i], ys[i] = edges[i%8], edges[i/8]
		} else {
			xs[i], ys[i] = randomElement(rng), randomElement(rng)
		}
	}
	const n = len(xs) / 8
	var gx, gy, gz [n]Fp8
	k.fpFrom64(&gx[0], &xs[0], 6, n)
	k.fpFrom64(&gy[0], &ys[0], 6, n)
	var back [len(xs)]fp.Element
	k.fpTo64(&back[0], &gx[0], 6, n)
	for i := range xs {
		if back[i] != xs[i] || gx[i/8].Get(i%8) != xs[i] {
			return fmt.Errorf("fp conversion of element %d: %x", i, xs[i])
		}
	}
	for _, op := range []struct {
		name string
		f    func(z, x, y *Fp8, n int)
		want func(z, x, y *fp.Element) *fp.Element
	}{
		{"fp multiplication", k.fpMul, (*fp.Element).Mul},
		{"fp addition", k.fpAdd, (*fp.Element).Add},
		{"fp subtraction", k.fpSub, (*fp.Element).Sub},
	} {
		op.f(&gz[0], &gx[0], &gy[0], n)
		for i := range xs {
			var want fp.Element
			op.want(&want, &xs[i], &ys[i])
			if got := gz[i/8].Get(i % 8); got != want {
				return fmt.Errorf("%s, lane %d of %x and %x: got %x, want %x", op.name, i, xs[i], ys[i], got, want)
			}
		}
	}
	if err := frKnownAnswers(k, rng); err != nil {
		return err
	}
	if err := adderKnownAnswers(k); err != nil {
		return err
	}
	return frVectorKnownAnswers(rng)
}

// adderKnownAnswers runs one batch of 16 additions of small multiples of
// the generators (a doubling and a cancellation among them) through the G1
// and G2 batch kernels of k and through their scalar contract.
func adderKnownAnswers(k kernels) error {
	_, _, g1, g2 := bls.Generators()
	var p1 [17]bls.G1Affine
	var p2 [17]bls.G2Affine
	p1[1], p2[1] = g1, g2
	for i := 2; i < len(p1); i++ {
		p1[i].Add(&p1[i-1], &g1)
		p2[i].Add(&p2[i-1], &g2)
	}
	pair := func(i int) (acc, q int, neg bool) {
		switch i {
		case 3:
			return 5, 5, false // doubling
		case 9:
			return 7, 7, true // cancellation
		}
		return 1 + i, 1 + (5*i+3)%16, i%3 == 0
	}
	check := func(name string, run func(k kernels) []string) error {
		got, want := run(k), run(goKernels)
		for i := range want {
			if got[i] != want[i] {
				return fmt.Errorf("%s batch addition, entry %d: got %s, want %s", name, i, got[i], want[i])
			}
		}
		return nil
	}
	err := check("G1", func(k kernels) []string {
		a := newG1Adder(k, 16)
		var accs [16]bls.G1Affine
		out := make([]string, 16)
		for i := range accs {
			ai, qi, neg := pair(i)
			accs[i] = p1[ai]
			a.Add(&accs[i], &p1[qi], neg)
		}
		a.Flush()
		for i := range accs {
			out[i] = accs[i].String()
		}
		return out
	})
	if err != nil {
		return err
	}
	return check("G2", func(k kernels) []string {
		a := newG2Adder(k, 16)
		var accs [16]bls.G2Affine
		out := make([]string, 16)
		for i := range accs {
			ai, qi, neg := pair(i)
			accs[i] = p2[ai]
			a.Add(&accs[i], &p2[qi], neg)
		}
		a.Flush()
		for i := range accs {
			out[i] = accs[i].String()
		}
		return out
	})
}

// frKnownAnswers checks the four fr butterfly kernels of k against their
// scalar contract on two groups (edge values, then random ones).
func frKnownAnswers(k kernels, rng *rand.Rand) error {
	const n = 16
	var lo, hi, zs [n]fr.Element
	lo[1].SetOne()
	hi[2].SetOne()
	lo[3].SetInt64(-1)
	hi[3].SetInt64(-1)
	lo[4] = fr.Element{1<<52 - 1}
	hi[5] = fr.Element{0, 0, 0, 1 << 40}
	for i := range zs {
		if i >= 8 {
			lo[i].SetUint64(rng.Uint64()).Square(&lo[i]).Square(&lo[i])
			hi[i].SetUint64(rng.Uint64()).Square(&hi[i]).Square(&hi[i])
		}
		zs[i].SetUint64(rng.Uint64()).Square(&zs[i]).Square(&zs[i])
	}
	zs[0].SetInt64(-1)
	for _, c := range []struct {
		name      string
		got, want func(lo, hi, z *fr.Element, n int)
	}{
		{"fr CT butterfly", k.frCT, goFrCT}, {"fr GS butterfly", k.frGS, goFrGS},
		{"fr CT butterfly (lanes)", k.frCTv, goFrCTv}, {"fr GS butterfly (lanes)", k.frGSv, goFrGSv},
	} {
		gl, gh, wl, wh := lo, hi, lo, hi
		c.got(&gl[0], &gh[0], &zs[0], n/8)
		c.want(&wl[0], &wh[0], &zs[0], n/8)
		for j := range gl {
			if gl[j] != wl[j] || gh[j] != wh[j] {
				return fmt.Errorf("%s, pair %d of %x and %x: got (%x, %x), want (%x, %x)", c.name, j, lo[j], hi[j], gl[j], gh[j], wl[j], wh[j])
			}
		}
	}
	return nil
}

// frVectorKnownAnswers checks fr.Vector.Mul and ScalarMul (gnark-crypto
// dispatches them to IFMA on this CPU) against scalar fr.Mul.
func frVectorKnownAnswers(rng *rand.Rand) error {
	const n = 27 // three groups of 8 and a scalar tail
	a, b, c := make(fr.Vector, n), make(fr.Vector, n), make(fr.Vector, n)
	for i := range a {
		a[i].SetUint64(rng.Uint64())
		b[i].SetUint64(rng.Uint64())
		a[i].Mul(&a[i], &b[i]) // full-size values
	}
	a[0].SetZero()
	a[1].SetOne()
	b[2].SetInt64(-1)
	c.Mul(a, b)
	for i := range c {
		var want fr.Element
		want.Mul(&a[i], &b[i])
		if c[i] != want {
			return fmt.Errorf("fr.Vector.Mul element %d: got %x, want %x", i, c[i], want)
		}
	}
	c.ScalarMul(a, &b[3])
	for i := range c {
		var want fr.Element
		want.Mul(&a[i], &b[3])
		if c[i] != want {
			return fmt.Errorf("fr.Vector.ScalarMul element %d: got %x, want %x", i, c[i], want)
		}
	}
	return nil
}

func modulusMinus(k uint64) fp.Element {
	e := modulusWords
	e[0] -= k // p's low word is far above k
	return e
}
