package ifma

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// frEdges: 0, 1, the field's one, r−1, r−2, (r−1)/2 and values at the
// 52-bit limb boundaries, all below r.
func frEdges() []fr.Element {
	r := fr.Modulus()
	one := big.NewInt(1)
	vals := []*big.Int{big.NewInt(0), one, new(big.Int).Sub(r, one), new(big.Int).Sub(r, big.NewInt(2)), new(big.Int).Rsh(r, 1)}
	for k := 1; k <= 4; k++ {
		b := new(big.Int).Lsh(one, uint(52*k))
		vals = append(vals, new(big.Int).Sub(b, one), b)
	}
	var out []fr.Element
	for _, v := range vals {
		var e fr.Element
		// The integer itself as the Montgomery-form words (not SetBigInt,
		// which would multiply by R): the kernels see these integers.
		words := v.Bits()
		for i := 0; i < len(words) && i < 4; i++ {
			e[i] = uint64(words[i])
		}
		out = append(out, e)
	}
	out = append(out, fr.One())
	return out
}

// testFrKernels runs the four butterfly kernels of k against the scalar
// contract on every pair of edge values and random ones.
func testFrKernels(t *testing.T, k kernels) {
	rng := rand.New(rand.NewPCG(12, 34))
	edges := frEdges()
	var lo, hi, zs []fr.Element
	for _, a := range edges {
		for _, b := range edges {
			lo, hi = append(lo, a), append(hi, b)
			zs = append(zs, edges[(len(zs)*7)%len(edges)])
		}
	}
	for len(lo)%8 != 0 || len(lo) < 256 {
		var a, b, c fr.Element
		a.SetUint64(rng.Uint64()).Square(&a).Square(&a)
		b.SetUint64(rng.Uint64()).Square(&b).Square(&b)
		c.SetUint64(rng.Uint64()).Square(&c).Square(&c)
		lo, hi, zs = append(lo, a), append(hi, b), append(zs, c)
	}
	n := len(lo) / 8
	for _, z1 := range []fr.Element{edges[2], zs[100], fr.One(), {}} {
		for _, c := range []struct {
			name      string
			asm, want func(lo, hi, z *fr.Element, n int)
			lanes     bool
		}{
			{"frCT", k.frCT, goFrCT, false}, {"frGS", k.frGS, goFrGS, false},
			{"frCTv", k.frCTv, goFrCTv, true}, {"frGSv", k.frGSv, goFrGSv, true},
		} {
			gl, gh := slices.Clone(lo), slices.Clone(hi)
			wl, wh := slices.Clone(lo), slices.Clone(hi)
			z := &z1
			if c.lanes {
				z = &zs[0]
			}
			c.asm(&gl[0], &gh[0], z, n)
			c.want(&wl[0], &wh[0], z, n)
			for j := range gl {
				if gl[j] != wl[j] || gh[j] != wh[j] {
					t.Fatalf("%s pair %d (%x, %x, twiddle %x): got (%x, %x), want (%x, %x)",
						c.name, j, lo[j], hi[j], *z, gl[j], gh[j], wl[j], wh[j])
				}
			}
		}
	}
}

func TestFrKernelsGo(t *testing.T) { testFrKernels(t, goKernels) }

// TestButterflyTails: the exported functions take any length, the tail
// beyond the last group of 8 in scalar code, and panic on mismatched
// lengths.
func TestButterflyTails(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 23, 64} {
		lo, hi, zs := make([]fr.Element, n), make([]fr.Element, n), make([]fr.Element, n)
		for i := range lo {
			lo[i].SetUint64(uint64(3*i + 1))
			hi[i].SetUint64(uint64(5*i + 2))
			zs[i].SetUint64(uint64(7*i + 3))
		}
		z := []fr.Element{fr.One()}
		if n > 0 {
			z = zs[0:1]
		}
		for _, f := range []struct {
			name string
			got  func(l, h []fr.Element)
			want func(l, h *fr.Element, n int)
		}{
			{"CT", func(l, h []fr.Element) { ButterflyCT(l, h, &z[0]) }, func(l, h *fr.Element, m int) { goFrCT(l, h, &z[0], -m) }},
			{"GS", func(l, h []fr.Element) { ButterflyGS(l, h, &z[0]) }, func(l, h *fr.Element, m int) { goFrGS(l, h, &z[0], -m) }},
			{"CTLanes", func(l, h []fr.Element) { ButterflyCTLanes(l, h, zs) }, func(l, h *fr.Element, m int) { goFrCTv(l, h, &zs[0], -m) }},
			{"GSLanes", func(l, h []fr.Element) { ButterflyGSLanes(l, h, zs) }, func(l, h *fr.Element, m int) { goFrGSv(l, h, &zs[0], -m) }},
		} {
			gl, gh := slices.Clone(lo), slices.Clone(hi)
			f.got(gl, gh)
			if n > 0 {
				wl, wh := slices.Clone(lo), slices.Clone(hi)
				f.want(&wl[0], &wh[0], n)
				if !slices.Equal(gl, wl) || !slices.Equal(gh, wh) {
					t.Fatalf("%s over %d pairs differs", f.name, n)
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("mismatched lengths did not panic")
		}
	}()
	ButterflyCT(make([]fr.Element, 3), make([]fr.Element, 4), new(fr.Element))
}
