package groth16

import (
	"math/big"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/parallel"
	"github.com/consensys/gnark-crypto/utils"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// computeHWith is computeH through gnark-crypto's FFTs, the reference
// quotient is tested against. It chooses between two orderings that give
// the same H.
//
// With tables (gnark-crypto's precomputed twiddles and coset powers: about
// four field elements per domain row, 0.5 GiB at 2^22, 17 GiB at 2^27;
// about a quarter faster): DIF inverse, DIT coset forward, DIF coset
// inverse, bit reversal.
//
// Without tables (above 2^22, where that memory matters more): gnark-crypto
// would build a full coset table on every coset DIT forward and DIF inverse,
// so use the orderings whose coset powers it computes on the fly instead:
// DIF inverse, bit reversal, DIF coset forward (bit-reversed evaluations,
// which the pointwise step does not mind), DIT coset inverse.
func computeHWith(pa *r1cs.ProvingAssignment, workers int, tables bool, y func() error) ([]fr.Element, error) {
	n := len(pa.A)
	m, _ := DomainSize(n) // checked by CheckShape
	grow := func(v []fr.Element) []fr.Element {
		if cap(v) >= m {
			v = v[:m]
			clear(v[n:])
			return v
		}
		w := make([]fr.Element, m)
		copy(w, v)
		return w
	}
	a, b, c := grow(pa.A), grow(pa.B), grow(pa.C)
	pa.A, pa.B, pa.C = nil, nil, nil

	var domain *fft.Domain
	if tables {
		domain = fft.NewDomain(uint64(m))
	} else {
		domain = fft.NewDomain(uint64(m), fft.WithoutPrecompute())
	}
	nt := fft.WithNbTasks(workers)
	yield := func() error {
		if y == nil {
			return nil
		}
		return y()
	}
	for _, v := range [][]fr.Element{a, b, c} {
		if err := yield(); err != nil {
			return nil, err
		}
		domain.FFTInverse(v, fft.DIF, nt)
		if err := yield(); err != nil {
			return nil, err
		}
		if tables {
			domain.FFT(v, fft.DIT, fft.OnCoset(), nt)
		} else {
			utils.BitReverse(v)
			domain.FFT(v, fft.DIF, fft.OnCoset(), nt)
		}
	}
	if err := yield(); err != nil {
		return nil, err
	}
	var den fr.Element
	den.Exp(domain.FrMultiplicativeGen, big.NewInt(int64(m)))
	one := fr.One()
	den.Sub(&den, &one).Inverse(&den)
	parallel.Execute(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a[i].Mul(&a[i], &b[i]).Sub(&a[i], &c[i]).Mul(&a[i], &den)
		}
	}, workers)
	if err := yield(); err != nil {
		return nil, err
	}
	if tables {
		domain.FFTInverse(a, fft.DIF, fft.OnCoset(), nt)
		utils.BitReverse(a)
	} else {
		domain.FFTInverse(a, fft.DIT, fft.OnCoset(), nt)
	}
	return a[:m-1], nil
}
