// Package ntt is the number-theoretic transform the Groth16 prover runs over
// BLS12-381's scalar field: radix-2, in place, on one twiddle table per
// domain, parallel without a single-threaded tail.
//
// Two transforms, both with the forward root ω (gnark-crypto's and
// bellperson's generator of the domain), and their order contracts:
//
//   - [Domain.DIF]: natural order in, bit-reversed out:
//     out[p] = Σᵢ a[i]·ω^(i·bitrev(p));
//   - [Domain.DIT]: bit-reversed in, natural out: with x[k] the value at
//     position bitrev(k), out[i] = Σₖ x[k]·ω^(i·k); it can first multiply the
//     value at each position p by a [BitRevPowers] factor, which is how a
//     coset shift and the 1/n of an inverse are applied without a pass of
//     their own.
//
// There is no inverse transform: the DFT with ω⁻¹ is the DFT with ω read
// backwards (out[k] ↔ out[−k mod n]), and callers fold that re-indexing
// into the factors they already apply (see groth16's quotient).
//
// Memory: the table holds ω^j for j < n/2, 16 bytes per domain element
// (64 MiB at 2^22, 2 GiB at 2^27), plus a few small contiguous tables for
// the sub-transforms that run in cache. Compute: one field multiplication
// per butterfly whose twiddle is not 1 — n/2·log n − (n−1) per transform —
// which is all the work; memory traffic is secondary (the depth-first
// recursion keeps sub-transforms of up to baseLog in cache).
package ntt

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"
)

// MaxLog is the largest domain, 2^MaxLog: the 2-adicity of the scalar field.
const MaxLog = 32

// baseLog is the size (log) up to which a block runs its layers one after
// the other: 2^11 elements, 64 KiB, in L2.
const baseLog = 11

// ErrSize is returned when a domain size is not a power of two in [2, 2^MaxLog].
var ErrSize = errors.New("ntt: domain size must be a power of two between 2 and 2^32")

// Domain is the evaluation domain of size n = 2^log with its twiddles. It is
// read-only after New and safe for concurrent transforms.
//
// The transforms are written "one twiddle per block": at layer ℓ the vector
// is 2^ℓ blocks of n/2^ℓ elements, and block b multiplies by the single
// twiddle z[b] = ω^bitrev(b) (bit reversal over log−1 bits). DIF runs
// Cooley–Tukey butterflies (t = z·hi; lo ± t) from the whole vector down to
// pairs, which factors x^n − 1 into x − ω^bitrev(p) and so leaves
// A(ω^bitrev(p)) at p; DIT runs Gentleman–Sande butterflies (lo + hi,
// (lo − hi)·z) from pairs up, which is that factorisation's inverse for
// the root ω⁻¹, i.e. the DFT with ω from bit-reversed input. Every layer
// reads a contiguous prefix of z, each twiddle once per block, instead of
// a strided twiddle per butterfly; block 0's twiddle is 1 and skipped,
// which is the usual n−1 trivial butterflies.
type Domain struct {
	n, log int
	omega  fr.Element
	z      []fr.Element // z[k] = ω^bitrev(k) over log−1 bits, k < n/2
}

// New builds the domain of size n, computing its twiddles on workers
// goroutines (n/2 multiplications).
func New(n, workers int) (*Domain, error) {
	if n < 2 || n&(n-1) != 0 || n > 1<<MaxLog {
		return nil, fmt.Errorf("%w: %d", ErrSize, n)
	}
	d := &Domain{n: n, log: bits.TrailingZeros(uint(n))}
	omega, err := fr.Generator(uint64(n))
	if err != nil {
		return nil, fmt.Errorf("ntt: %w", err)
	}
	d.omega = omega
	pw := make([]fr.Element, n/2)
	Powers(pw, &d.omega, workers)
	d.z = make([]fr.Element, n/2)
	nb := d.log - 1
	parallel.Execute(n/2, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d.z[k] = pw[reverse(k, nb)]
		}
	}, max(workers, 1))
	return d, nil
}

// N is the domain size.
func (d *Domain) N() int { return d.n }

// Generator is ω, the domain's primitive n-th root of unity.
func (d *Domain) Generator() fr.Element { return d.omega }

// Bytes is the memory the domain holds.
func (d *Domain) Bytes() int64 { return int64(len(d.z)) * fr.Bytes }

// Powers sets dst[j] = x^j, on workers goroutines (one exponentiation per
// range, then one multiplication per element).
func Powers(dst []fr.Element, x *fr.Element, workers int) {
	parallel.Execute(len(dst), func(lo, hi int) {
		var p fr.Element
		p.Exp(*x, big.NewInt(int64(lo)))
		for j := lo; j < hi; j++ {
			dst[j] = p
			p.Mul(&p, x)
		}
	}, max(1, min(workers, len(dst)>>12)))
}

// DIF transforms a (len n, natural order) in place into bit-reversed order:
// afterwards a[p] = Σᵢ a_in[i]·ω^(i·bitrev(p)). It equals gnark-crypto's
// fft.Domain.FFT(a, fft.DIF).
func (d *Domain) DIF(a []fr.Element, workers int) {
	d.check(a)
	workers = max(workers, 1)
	// Top layers, each spread over all workers, until there are enough
	// independent blocks for the workers to share without a tail.
	size := d.n
	for ; size > 1<<baseLog && d.n/size < 4*workers && workers > 1; size /= 2 {
		d.layerAll(a, size, workers, ctBlock)
	}
	parallel.Execute(d.n/size, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			d.ctRec(a[b*size:(b+1)*size], b)
		}
	}, workers)
}

// DIT transforms a (len n, bit-reversed order) in place into natural order:
// with x[k] = a_in[bitrev(k)] (times scale's factor for position bitrev(k)
// when scale is not nil), afterwards a[i] = Σₖ x[k]·ω^(i·k). Without scale it
// equals gnark-crypto's fft.Domain.FFT(a, fft.DIT).
func (d *Domain) DIT(a []fr.Element, scale *BitRevPowers, workers int) {
	d.check(a)
	if scale != nil && scale.log != d.log {
		panic(fmt.Sprintf("ntt: scale for 2^%d applied to a domain of 2^%d", scale.log, d.log))
	}
	workers = max(workers, 1)
	size := d.n
	for size > 1<<baseLog && d.n/size < 4*workers && workers > 1 {
		size /= 2
	}
	parallel.Execute(d.n/size, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			d.gsRec(a[b*size:(b+1)*size], b, scale)
		}
	}, workers)
	for size *= 2; size <= d.n; size *= 2 {
		d.layerAll(a, size, workers, gsBlock)
	}
}

func (d *Domain) check(a []fr.Element) {
	if len(a) != d.n {
		panic(fmt.Sprintf("ntt: vector of %d elements for a domain of %d", len(a), d.n))
	}
}

// blockFunc runs the butterflies j ∈ [0, len(lo)) between lo[j] and hi[j]
// of one block whose twiddle is z (nil: the twiddle is 1).
type blockFunc func(lo, hi []fr.Element, z *fr.Element)

// layerAll runs the layer of blocks of size `size` over the whole vector,
// its butterflies split evenly over the workers.
func (d *Domain) layerAll(a []fr.Element, size, workers int, f blockFunc) {
	m := size / 2
	blocks := d.n / size
	// Butterflies are numbered blk·m + j; each worker takes one range of
	// them, cut at block boundaries.
	parallel.Execute(blocks*m, func(lo, hi int) {
		for lo < hi {
			blk, j0 := lo/m, lo%m
			j1 := min(m, j0+hi-lo)
			base := blk * size
			f(a[base+j0:base+j1], a[base+m+j0:base+m+j1], d.twiddle(blk))
			lo += j1 - j0
		}
	}, workers)
}

// twiddle is z[blk], nil for block 0 (whose twiddle is 1).
func (d *Domain) twiddle(blk int) *fr.Element {
	if blk == 0 {
		return nil
	}
	return &d.z[blk]
}

// ctRec is the sequential depth-first DIF of block blk (at its layer).
func (d *Domain) ctRec(a []fr.Element, blk int) {
	size := len(a)
	if size <= 1<<baseLog {
		d.ctBase(a, blk)
		return
	}
	m := size / 2
	ctBlock(a[:m], a[m:], d.twiddle(blk))
	d.ctRec(a[:m], 2*blk)
	d.ctRec(a[m:], 2*blk+1)
}

// gsRec is the sequential depth-first DIT of block blk (at its layer).
func (d *Domain) gsRec(a []fr.Element, blk int, scale *BitRevPowers) {
	size := len(a)
	if size <= 1<<baseLog {
		if scale != nil {
			scale.apply(a, blk*size)
		}
		d.gsBase(a, blk)
		return
	}
	m := size / 2
	d.gsRec(a[:m], 2*blk, scale)
	d.gsRec(a[m:], 2*blk+1, scale)
	gsBlock(a[:m], a[m:], d.twiddle(blk))
}

// ctBase runs every remaining layer of block blk, breadth first: at the
// r-th layer below it, sub-block i is block blk·2^r + i.
func (d *Domain) ctBase(a []fr.Element, blk int) {
	for size := len(a); size >= 2; size /= 2 {
		m := size / 2
		for i, b := 0, 0; b < len(a); i, b = i+1, b+size {
			ctBlock(a[b:b+m], a[b+m:b+size], d.twiddle(blk*(len(a)/size)+i))
		}
	}
}

// gsBase is ctBase's mirror, from pairs up.
func (d *Domain) gsBase(a []fr.Element, blk int) {
	for size := 2; size <= len(a); size *= 2 {
		m := size / 2
		for i, b := 0, 0; b < len(a); i, b = i+1, b+size {
			gsBlock(a[b:b+m], a[b+m:b+size], d.twiddle(blk*(len(a)/size)+i))
		}
	}
}

// ctBlock: t = z·hi[j]; (lo[j], hi[j]) ← (lo[j] + t, lo[j] − t).
func ctBlock(lo, hi []fr.Element, z *fr.Element) {
	hi = hi[:len(lo)]
	if z == nil {
		for j := range lo {
			fr.Butterfly(&lo[j], &hi[j])
		}
		return
	}
	for j := range lo {
		hi[j].Mul(&hi[j], z)
		fr.Butterfly(&lo[j], &hi[j])
	}
}

// gsBlock: (lo[j], hi[j]) ← (lo[j] + hi[j], (lo[j] − hi[j])·z).
func gsBlock(lo, hi []fr.Element, z *fr.Element) {
	hi = hi[:len(lo)]
	if z == nil {
		for j := range lo {
			fr.Butterfly(&lo[j], &hi[j])
		}
		return
	}
	for j := range lo {
		fr.Butterfly(&lo[j], &hi[j])
		hi[j].Mul(&hi[j], z)
	}
}

// BitRevPowers is the factor c·x^bitrev(p) for each position p of a vector
// of 2^log elements (bitrev over log bits), except that position 0 may have
// a factor of its own. It costs two tables of about √n elements: with
// p = hi·2^h + lo, bitrev(p) = bitrev_h(lo)·2^(log−h) + bitrev_(log−h)(hi).
type BitRevPowers struct {
	log, h int
	lo, hi []fr.Element // lo[u] = x^(bitrev_h(u)·2^(log−h)), hi[v] = c·x^bitrev_(log−h)(v)
	at0    fr.Element
}

// NewBitRevPowers returns the factors c·x^bitrev(p) for a vector of 2^log
// elements, with at0 at position 0 instead of c (pass c for no exception).
func NewBitRevPowers(log int, x, c, at0 fr.Element) *BitRevPowers {
	h := log / 2
	s := &BitRevPowers{log: log, h: h, at0: at0}
	s.lo = make([]fr.Element, 1<<h)
	s.hi = make([]fr.Element, 1<<(log-h))
	var xs fr.Element // x^(2^(log−h))
	xs.Exp(x, new(big.Int).Lsh(big.NewInt(1), uint(log-h)))
	pw := make([]fr.Element, max(len(s.lo), len(s.hi)))
	Powers(pw[:len(s.lo)], &xs, 1)
	for u := range s.lo {
		s.lo[u] = pw[reverse(u, h)]
	}
	Powers(pw[:len(s.hi)], &x, 1)
	for v := range s.hi {
		s.hi[v].Mul(&pw[reverse(v, log-h)], &c)
	}
	return s
}

// At returns the factor of position p.
func (s *BitRevPowers) At(p int) fr.Element {
	if p == 0 {
		return s.at0
	}
	var f fr.Element
	f.Mul(&s.lo[p&(1<<s.h-1)], &s.hi[p>>s.h])
	return f
}

// apply multiplies a, the positions [off, off+len(a)), by their factors.
func (s *BitRevPowers) apply(a []fr.Element, off int) {
	mask := 1<<s.h - 1
	for r := range a {
		p := off + r
		if p == 0 {
			a[r].Mul(&a[r], &s.at0)
			continue
		}
		var f fr.Element
		f.Mul(&s.lo[p&mask], &s.hi[p>>s.h])
		a[r].Mul(&a[r], &f)
	}
}

// reverse is bitrev over nbits bits.
func reverse(u, nbits int) int {
	if nbits == 0 {
		return 0
	}
	return int(bits.Reverse64(uint64(u)) >> (64 - nbits))
}
