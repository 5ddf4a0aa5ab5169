package ifma

import (
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Fp8 is eight elements of BLS12-381's base field in radix 2^52,
// limb-major: Fp8[k][l] is limb k of lane l, and lane l's integer is
// Σₖ Fp8[k][l]·2^(52k). Row k is one ZMM register's worth (64 bytes); the
// whole group is 512 bytes (64 per element, against 48 in gnark-crypto's
// form). The integers are gnark-crypto's Montgomery form, x·2^384 mod p,
// so converting is a change of radix and [Fp8] products are gnark-crypto's
// products. Kernels keep limbs normalised (below 2^52) and values
// canonical (below p) between operations.
type Fp8 [8][8]uint64

const (
	limbBits = 52
	limbMask = 1<<limbBits - 1
)

// Set sets lane l to e.
func (z *Fp8) Set(l int, e *fp.Element) {
	w := e
	z[0][l] = w[0] & limbMask
	z[1][l] = (w[0]>>52 | w[1]<<12) & limbMask
	z[2][l] = (w[1]>>40 | w[2]<<24) & limbMask
	z[3][l] = (w[2]>>28 | w[3]<<36) & limbMask
	z[4][l] = (w[3]>>16 | w[4]<<48) & limbMask
	z[5][l] = (w[4] >> 4) & limbMask
	z[6][l] = (w[4]>>56 | w[5]<<8) & limbMask
	z[7][l] = w[5] >> 44
}

// Get returns lane l, which must be normalised and below 2^384.
func (z *Fp8) Get(l int) fp.Element {
	return fp.Element{
		z[0][l] | z[1][l]<<52,
		z[1][l]>>12 | z[2][l]<<40,
		z[2][l]>>24 | z[3][l]<<28,
		z[3][l]>>36 | z[4][l]<<16,
		z[4][l]>>48 | z[5][l]<<4 | z[6][l]<<56,
		z[6][l]>>8 | z[7][l]<<44,
	}
}

// kernels is one implementation of the vector operations: the assembly
// (asmKernels), the Go reference (goKernels), or, in tests, the assembly
// run under the emulator. Strides are in 64-bit words between consecutive
// elements (6 for a []fp.Element, 12 for one coordinate of []G1Affine).
type kernels struct {
	fpMul    func(z, x, y *Fp8, n int)
	fpAdd    func(z, x, y *Fp8, n int)
	fpSub    func(z, x, y *Fp8, n int)
	fpFrom64 func(z *Fp8, src *fp.Element, stride, n int)
	fpTo64   func(dst *fp.Element, x *Fp8, stride, n int)

	g1Forward  func(accs, qs *unsafe.Pointer, grp *g1Group, zero *uint8, work *g1Work, n int)
	g1Backward func(accs, qs *unsafe.Pointer, neg *uint8, grp *g1Group, zero *uint8, work *g1Work, n int)

	// fr butterflies over n groups of 8 pairs (fr.go)
	frCT, frGS, frCTv, frGSv func(lo, hi, z *fr.Element, n int)

	g2Forward  func(accs, qs *unsafe.Pointer, grp *g2Group, zero *uint8, work *g2Work, n int)
	g2Backward func(accs, qs *unsafe.Pointer, neg *uint8, grp *g2Group, zero *uint8, work *g2Work, n int)
}

// goKernels computes what the kernels compute with gnark-crypto's scalar
// arithmetic: the contract the assembly is tested against, and the path
// that exercises the callers' logic on CPUs without IFMA.
var goKernels = kernels{
	fpMul:    goFpMul,
	fpAdd:    goFpAdd,
	fpSub:    goFpSub,
	fpFrom64: goFpFrom64,
	fpTo64:   goFpTo64,

	g1Forward:  goG1Forward,
	g1Backward: goG1Backward,

	frCT:  goFrCT,
	frGS:  goFrGS,
	frCTv: goFrCTv,
	frGSv: goFrGSv,

	g2Forward:  goG2Forward,
	g2Backward: goG2Backward,
}

func goLanes(z, x, y *Fp8, n int, f func(z, x, y *fp.Element)) {
	zs, xs, ys := groups(z, n), groups(x, n), groups(y, n)
	for g := range zs {
		for l := 0; l < 8; l++ {
			a, b := xs[g].Get(l), ys[g].Get(l)
			var c fp.Element
			f(&c, &a, &b)
			zs[g].Set(l, &c)
		}
	}
}

// goFpMul is fpMul's contract: the Montgomery product, canonical. It
// computes it with big-integer-exact gnark-crypto Mul after reducing an
// operand that is not below p (the contract allows one), as gnark-crypto
// requires both below p.
func goFpMul(z, x, y *Fp8, n int) {
	goLanes(z, x, y, n, func(c, a, b *fp.Element) {
		c.Mul(reduced(a), reduced(b))
	})
}

func goFpAdd(z, x, y *Fp8, n int) {
	goLanes(z, x, y, n, func(c, a, b *fp.Element) { c.Add(a, b) })
}

func goFpSub(z, x, y *Fp8, n int) {
	goLanes(z, x, y, n, func(c, a, b *fp.Element) { c.Sub(a, b) })
}

func goFpFrom64(z *Fp8, src *fp.Element, stride, n int) {
	zs := groups(z, n)
	for i := 0; i < 8*n; i++ {
		zs[i/8].Set(i%8, strided(src, stride, i))
	}
}

func goFpTo64(dst *fp.Element, x *Fp8, stride, n int) {
	xs := groups(x, n)
	for i := 0; i < 8*n; i++ {
		*strided(dst, stride, i) = xs[i/8].Get(i % 8)
	}
}
