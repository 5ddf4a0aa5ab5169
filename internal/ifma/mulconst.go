package ifma

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// MulConst sets every xs[i] to the Montgomery product xs[i]·c·2^-384,
// eight lanes at a time on the IFMA kernels (gnark-crypto's Mul where IFMA
// is not in use). With c holding R² mod p as its plain limbs (R = 2^384;
// [MontgomeryR2]) it turns plain integers below p into gnark-crypto's
// Montgomery form: how groth16 finishes decoding the points of a mapped
// parameter file, where one Mul per coordinate was 4 % of a 32 GiB PoRep
// partition's CPU. Every xs[i] must be below p.
func MulConst(xs []fp.Element, c *fp.Element) {
	if !Enabled() || len(xs) < 8 {
		for i := range xs {
			mulPlain(&xs[i], &xs[i], c)
		}
		return
	}
	mulConstWith(&asmKernels, xs, c)
}

// mulConstGroups is how many groups of eight one kernel call converts:
// 24 KiB of scratch on the stack.
const mulConstGroups = 16

func mulConstWith(k *kernels, xs []fp.Element, c *fp.Element) {
	var cs, in, out [mulConstGroups]Fp8
	n := len(xs) / 8 * 8
	for g := range min(mulConstGroups, n/8) {
		for l := range 8 {
			cs[g].Set(l, c)
		}
	}
	for i := 0; i < n; i += 8 * mulConstGroups {
		g := min(mulConstGroups, (n-i)/8)
		k.fpFrom64(&in[0], &xs[i], 6, g)
		k.fpMul(&out[0], &in[0], &cs[0], g)
		k.fpTo64(&xs[i], &out[0], 6, g)
	}
	for i := n; i < len(xs); i++ {
		mulPlain(&xs[i], &xs[i], c)
	}
}

// mulPlain is the Montgomery product of limbs, whatever they represent:
// gnark-crypto's Mul is exactly that.
func mulPlain(z, x, y *fp.Element) { z.Mul(x, y) }

// MontgomeryR2 is R² mod p (R = 2^384) as plain limbs: the c of [MulConst]
// that converts plain integers to Montgomery form. It is the Montgomery
// form of R mod p, whose limbs are R·R mod p.
func MontgomeryR2() fp.Element {
	r := new(big.Int).Lsh(big.NewInt(1), 384)
	r.Mod(r, fp.Modulus())
	var z fp.Element
	z.SetBigInt(r)
	return z
}
