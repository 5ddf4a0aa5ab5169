package groth16

import (
	"math/big"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"

	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/internal/ntt"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// quotient returns the m−1 coefficients of H exactly as computeHWith does
// (bellperson's execute_fft), with six transforms instead of seven and
// every scaling folded into a pass that runs anyway.
//
// bellperson computes H_k = den·(coset-iFFT(A·B − C))_k with den =
// 1/(g^m − 1), where A, B, C are the coset evaluations of the polynomials
// interpolating a, b, c. coset-iFFT is linear and coset-iFFT(coset-FFT(C))
// = C (C has degree < m), so
//
//	H_k = den·(R_k − C_k),  R = coset-iFFT(A·B),  C = iFFT(c),
//
// for any a, b, c, satisfied or not: C needs one inverse transform instead
// of an inverse and a coset forward.
//
// All transforms are ntt's forward ones (ω); an inverse is a forward one
// read backwards, and the re-indexing goes into factors applied anyway.
// With p a position and k = bitrev(p):
//
//  1. a: DIF gives m·A_(−k) at p. The coset forward needs A_j·g^j/m at
//     bitrev(−j), so DIT first scales position p by g^(m−k)/m (1/m at
//     p = 0) and leaves A(g·ω^(−i)) at i. The same for b.
//  2. a ← a·b: (A·B)(g·ω^(−i)) at i.
//  3. DIF of that gives Σᵢ (A·B)(g·ω^(−i))·ω^(ik) = m·g^k·R_k at p.
//  4. c reversed (c[−i mod m] at i, into b's storage), DIF: m·C_k at p.
//  5. H_k = (den/m)·(g^(−k)·(3) − (4)) at p, then one bit reversal.
//
// An assignment that omits c (r1cs.AssignmentOptions.OmitC) gets c = a∘b,
// computed before a and b are transformed, straight into its reversed
// order (step 4's input), so the three vectors are live together only as
// long as they are with a stored c.
//
// y, when not nil, is called between the steps and inside them (the
// transforms' workers call it between blocks, the pointwise passes
// between blocks of pointwiseBlock elements), so that no stretch of the
// work between two calls is longer than a fraction of a second at 2^27;
// its error stops the computation. The a vector's storage holds the
// result; a, b and c are released from pa.
func quotient(pa *r1cs.ProvingAssignment, workers int, y func() error) ([]fr.Element, error) {
	n := len(pa.A)
	m, _ := DomainSize(n) // checked by CheckShape
	a, b := padTo(pa.A, m), padTo(pa.B, m)
	var c, cr []fr.Element // c, or c already reversed
	if pa.HasC() {
		c = padTo(pa.C, m)
	} else {
		cr = make([]fr.Element, m)
		parallel.Execute(m, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				j := (m - i) & (m - 1)
				cr[i].Mul(&a[j], &b[j])
			}
		}, workers)
	}
	pa.A, pa.B, pa.C = nil, nil, nil
	if m < 2 {
		return a[:0], nil // one row: H has no coefficients
	}
	yield := func() error {
		if y == nil {
			return nil
		}
		return y()
	}

	d, err := ntt.New(m, workers)
	if err != nil {
		return nil, err
	}
	logM := bits.TrailingZeros(uint(m))
	var g, gInv, mInv, gm, one fr.Element
	g.SetUint64(7) // bellperson's (and gnark-crypto's) multiplicative generator
	gInv.Inverse(&g)
	mInv.SetUint64(uint64(m)).Inverse(&mInv)
	gm.Exp(g, big.NewInt(int64(m)))
	one.SetOne()

	// Step 1: g^(m−k)/m = (g^m/m)·(g⁻¹)^k for k ≠ 0, 1/m for k = 0.
	var c1 fr.Element
	c1.Mul(&gm, &mInv)
	toCoset := ntt.NewBitRevPowers(logM, gInv, c1, mInv)
	for _, v := range [][]fr.Element{a, b} {
		if err := yield(); err != nil {
			return nil, err
		}
		if err := d.DIFYield(v, workers, y); err != nil {
			return nil, err
		}
		if err := yield(); err != nil {
			return nil, err
		}
		if err := d.DITYield(v, toCoset, workers, y); err != nil {
			return nil, err
		}
	}
	if err := yield(); err != nil {
		return nil, err
	}
	// Steps 2 and 4: the product, and c reversed into b's storage.
	vec := ifma.FrVector()
	if err := pointwise(m, workers, y, func(lo, hi int) {
		if vec {
			v := fr.Vector(a[lo:hi])
			v.Mul(v, b[lo:hi])
			return
		}
		for i := lo; i < hi; i++ {
			a[i].Mul(&a[i], &b[i])
		}
	}); err != nil {
		return nil, err
	}
	if cr == nil {
		if err := pointwise(m, workers, y, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				b[i] = c[(m-i)&(m-1)]
			}
		}); err != nil {
			return nil, err
		}
		cr, c = b, nil
	}
	b = nil
	for _, v := range [][]fr.Element{a, cr} {
		if err := yield(); err != nil {
			return nil, err
		}
		if err := d.DIFYield(v, workers, y); err != nil {
			return nil, err
		}
	}
	// Step 5: λ·(g^(−k)·a[p] − b[p]) with λ = den/m.
	var lambda fr.Element
	lambda.Sub(&gm, &one).Inverse(&lambda).Mul(&lambda, &mInv)
	fromCoset := ntt.NewBitRevPowers(logM, gInv, lambda, lambda)
	if err := pointwise(m, workers, y, func(lo, hi int) {
		if vec {
			// The same products as vectors: a's factors by runs, cr·λ in
			// cr's storage (cr is not needed after this).
			va, vc := fr.Vector(a[lo:hi]), fr.Vector(cr[lo:hi])
			fromCoset.Scale(va, lo)
			vc.ScalarMul(vc, &lambda)
			va.Sub(va, vc)
			return
		}
		var t fr.Element
		for p := lo; p < hi; p++ {
			f := fromCoset.At(p)
			a[p].Mul(&a[p], &f)
			t.Mul(&cr[p], &lambda)
			a[p].Sub(&a[p], &t)
		}
	}); err != nil {
		return nil, err
	}
	if err := ntt.BitReverse(a, workers, y); err != nil {
		return nil, err
	}
	return a[:m-1], nil
}

// pointwiseBlock is the most elements a pointwise pass of quotient runs
// between two yields: 2^20 elements, at most three multiplications each,
// tens of milliseconds on two cores.
const pointwiseBlock = 1 << 20

// pointwise runs f over [0, m) on workers goroutines: in one go without y,
// else in blocks of pointwiseBlock with y before each but the first.
func pointwise(m, workers int, y func() error, f func(lo, hi int)) error {
	step := m
	if y != nil {
		step = pointwiseBlock
	}
	for lo := 0; lo < m; lo += step {
		if lo > 0 {
			if err := y(); err != nil {
				return err
			}
		}
		hi := min(lo+step, m)
		parallel.Execute(hi-lo, func(i, j int) { f(lo+i, lo+j) }, workers)
	}
	return nil
}

// ProveShape is what ProveMemory needs to know of a circuit and its
// proving path.
type ProveShape struct {
	Domain, Inputs, Aux int
	B                   int  // B-dense variables (b_g1 and b_g2 points)
	KeepC               bool // the assignment stores c (else it omits it)
	Mapped              bool // the parameters are mapped (MapParamsFile)
}

// ProveMemory estimates the most memory one circuit holds from the start
// of its synthesis to the end of Start, beyond the parameters (the domain
// is the capacity an assignment is given: r1cs.Size{Constraints: m}), and
// how much of it is the witness (inputs, aux, densities). With v = 32·m
// bytes, one domain vector:
//
//   - witness phase (synthesis and the l, a, b_g1, b_g2 MSMs): a and b
//     (and c when kept), the witness, the MSM scratch;
//   - H phase: a, b and c (recomputed, or kept), the twiddle table, the
//     inputs; the aux witness is gone;
//   - h phase: H in a's storage and the MSM scratch: less than either.
//
// The MSM scratch over mapped parameters is one window of decoded points
// plus one piece's compaction buffers and digits (MappedScratchBytes);
// over resident ones, one piece's digits plus the compacted copies of the
// general scalars and their points, counted as if half of the largest
// query were general (PoRep has 1–5 %).
func ProveMemory(s ProveShape) (peak, witness int64) {
	const g1, g2 = 96, 192
	v := int64(s.Domain) * fr.Bytes
	words := 2*((s.Aux+63)/64) + (s.Inputs+63)/64
	witness = fr.Bytes*int64(s.Aux+s.Inputs) + 8*int64(words)
	scratch := MappedScratchBytes()
	if !s.Mapped {
		copies := max(int64(s.Aux)*(g1+fr.Bytes), int64(s.B)*(g2+fr.Bytes)) / 2
		scratch = 2*16*int64(min(s.Domain, msmPiece)) + copies
	}
	abc := int64(2)
	if s.KeepC {
		abc = 3
	}
	witnessPhase := abc*v + witness + scratch
	hPhase := 3*v + ntt.TableBytes(s.Domain) + fr.Bytes*int64(s.Inputs)
	return max(witnessPhase, hPhase), witness
}

// padTo returns v extended with zeros to m elements, in place when its
// capacity allows.
func padTo(v []fr.Element, m int) []fr.Element {
	if cap(v) >= m {
		n := len(v)
		v = v[:m]
		clear(v[n:])
		return v
	}
	w := make([]fr.Element, m)
	copy(w, v)
	return w
}
