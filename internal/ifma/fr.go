package ifma

import (
	"fmt"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// The transforms' butterflies (internal/ntt), on the IFMA kernels when
// they are in use and as gnark-crypto's scalar code otherwise: lo and hi
// have equal lengths; a tail shorter than 8 runs scalar. With one twiddle
// z (CT, GS) or one per pair (CTLanes, GSLanes, len(z) = len(lo)):
//
//	ButterflyCT: t = z·hi[j]; (lo[j], hi[j]) ← (lo[j] + t, lo[j] − t)
//	ButterflyGS: (lo[j], hi[j]) ← (lo[j] + hi[j], (lo[j] − hi[j])·z)
//
// The kernels fuse the multiplication and the butterfly in one pass over
// radix-2^52 lanes; the result is gnark-crypto's bit for bit.

// ButterflyCT is the DIF (Cooley–Tukey) butterfly of every pair.
func ButterflyCT(lo, hi []fr.Element, z *fr.Element) { frRun(lo, hi, z, nil, frCTOf) }

// ButterflyGS is the DIT (Gentleman–Sande) butterfly of every pair.
func ButterflyGS(lo, hi []fr.Element, z *fr.Element) { frRun(lo, hi, z, nil, frGSOf) }

// ButterflyCTLanes is ButterflyCT with pair j's twiddle z[j].
func ButterflyCTLanes(lo, hi, z []fr.Element) { frRun(lo, hi, nil, z, frCTvOf) }

// ButterflyGSLanes is ButterflyGS with pair j's twiddle z[j].
func ButterflyGSLanes(lo, hi, z []fr.Element) { frRun(lo, hi, nil, z, frGSvOf) }

func frCTOf(k *kernels) func(lo, hi, z *fr.Element, n int)  { return k.frCT }
func frGSOf(k *kernels) func(lo, hi, z *fr.Element, n int)  { return k.frGS }
func frCTvOf(k *kernels) func(lo, hi, z *fr.Element, n int) { return k.frCTv }
func frGSvOf(k *kernels) func(lo, hi, z *fr.Element, n int) { return k.frGSv }

func frRun(lo, hi []fr.Element, z1 *fr.Element, zs []fr.Element, pick func(*kernels) func(lo, hi, z *fr.Element, n int)) {
	k := &goKernels
	if Enabled() {
		k = &asmKernels
	}
	frRunWith(k, lo, hi, z1, zs, pick)
}

func frRunWith(k *kernels, lo, hi []fr.Element, z1 *fr.Element, zs []fr.Element, pick func(*kernels) func(lo, hi, z *fr.Element, n int)) {
	n := len(lo)
	if len(hi) != n || (zs != nil && len(zs) != n) {
		panic(fmt.Sprintf("ifma: butterflies over %d lo, %d hi and %d twiddles", n, len(hi), len(zs)))
	}
	g := n / 8
	if g > 0 {
		z := z1
		if zs != nil {
			z = &zs[0]
		}
		pick(k)(&lo[0], &hi[0], z, g)
	}
	if tail := 8 * g; tail < n {
		var zt []fr.Element
		if zs != nil {
			zt = zs[tail:]
		}
		pick(&goKernels)(&lo[tail], &hi[tail], tailTwiddle(z1, zt), -(n - tail))
	}
}

// tailTwiddle is the z argument for a scalar tail.
func tailTwiddle(z1 *fr.Element, zs []fr.Element) *fr.Element {
	if zs != nil {
		return &zs[0]
	}
	return z1
}

// The Go contract of the fr kernels. n > 0 counts groups of 8; the scalar
// tail passes −count (elements), which only the Go versions accept.
func pairs(lo, hi *fr.Element, n int) ([]fr.Element, []fr.Element) {
	if n < 0 {
		return unsafe.Slice(lo, -n), unsafe.Slice(hi, -n)
	}
	return unsafe.Slice(lo, 8*n), unsafe.Slice(hi, 8*n)
}

func goFrCT(lo, hi, z *fr.Element, n int) {
	l, h := pairs(lo, hi, n)
	for j := range l {
		h[j].Mul(&h[j], z)
		fr.Butterfly(&l[j], &h[j])
	}
}

func goFrGS(lo, hi, z *fr.Element, n int) {
	l, h := pairs(lo, hi, n)
	for j := range l {
		fr.Butterfly(&l[j], &h[j])
		h[j].Mul(&h[j], z)
	}
}

func goFrCTv(lo, hi, z *fr.Element, n int) {
	l, h := pairs(lo, hi, n)
	zs := unsafe.Slice(z, len(l))
	for j := range l {
		h[j].Mul(&h[j], &zs[j])
		fr.Butterfly(&l[j], &h[j])
	}
}

func goFrGSv(lo, hi, z *fr.Element, n int) {
	l, h := pairs(lo, hi, n)
	zs := unsafe.Slice(z, len(l))
	for j := range l {
		fr.Butterfly(&l[j], &h[j])
		h[j].Mul(&h[j], &zs[j])
	}
}
