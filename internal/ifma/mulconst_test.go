package ifma

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// TestMulConstToMontgomery: MulConst with MontgomeryR2 turns plain
// integers below p into gnark-crypto's Montgomery form, on the kernels in
// use and on the Go reference, whole groups and a scalar tail alike.
func TestMulConstToMontgomery(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r2 := MontgomeryR2()
	for _, n := range []int{0, 1, 7, 8, 9, 127, 128, 129, 1000} {
		plain := make([]fp.Element, n)
		want := make([]fp.Element, n)
		for i := range plain {
			var b [fp.Bytes]byte
			for j := range b {
				b[j] = byte(rng.Uint32())
			}
			v := new(big.Int).SetBytes(b[:])
			v.Mod(v, fp.Modulus())
			if i == 0 {
				v.Sub(fp.Modulus(), big.NewInt(1)) // the largest
			}
			want[i].SetBigInt(v)
			// plain limbs of v
			for k := range 6 {
				plain[i][k] = new(big.Int).Rsh(v, uint(64*k)).Uint64()
			}
		}
		for name, run := range map[string]func([]fp.Element){
			"MulConst": func(x []fp.Element) { MulConst(x, &r2) },
			"go":       func(x []fp.Element) { mulConstWith(&goKernels, x, &r2) },
		} {
			got := append([]fp.Element(nil), plain...)
			run(got)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s n=%d: element %d: %v, want %v", name, n, i, got[i], want[i])
				}
			}
		}
	}
}
