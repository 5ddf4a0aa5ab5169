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
// Memory: the table holds n/2 twiddles, 16 bytes per domain element
// (64 MiB at 2^22), at most MaxTable of them (512 MiB; see Domain for how
// larger domains do without the rest). Compute: one field multiplication
// per butterfly whose twiddle is not 1 — n/2·log n − (n−1) per transform —
// which is all the work; memory traffic is secondary (the depth-first
// recursion keeps blocks of up to 2^baseLog elements in cache).
package ntt

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"

	"github.com/cuzk-dev/cuzk/internal/ifma"
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
//
// Above MaxTable twiddles (domains beyond 2^25) only the prefix
// z[0 : MaxTable] is stored, and the deepest layers, whose blocks lie
// inside one base block of 2^baseLog elements, compute theirs: with blk
// the base block's index and i < 2^r the sub-block at depth r below it,
// z[blk·2^r + i] = z₁₁[i]·Y(blk)^(2^(baseLog−1−r)), where z₁₁ is the
// twiddle table of the 2^baseLog domain and Y(blk) = ω^bitrev(blk) over
// log−baseLog bits: one multiplication per twiddle (a block), plus
// baseLog squarings per base block. At 2^27 that keeps the table at
// 512 MiB instead of 2 GiB for about 6 % more multiplications.
type Domain struct {
	n, log int
	vec    bool // butterflies on the IFMA kernels (ifma.ButterflyCT…; ifma.FrVector)
	omega  fr.Element
	z      []fr.Element // z[k] = ω^bitrev(k) over log−1 bits, k < min(n/2, MaxTable)
	// Compact mode only (len(z) < n/2):
	z11 []fr.Element // z₁₁[i] = ω_(2^baseLog)^bitrev(i) over baseLog−1 bits
	y   []fr.Element // y[blk] = ω^bitrev(blk) over log−baseLog bits
}

// MaxTable is the most twiddles a domain stores (16 bytes per domain
// element up to 2^25, 512 MiB); larger domains compute the rest.
const MaxTable = 1 << 24

// New builds the domain of size n, computing its twiddles on workers
// goroutines (min(n/2, MaxTable) multiplications).
func New(n, workers int) (*Domain, error) {
	return newDomain(n, workers, MaxTable, ifma.FrVector())
}

// newDomain is New with the table bound and the vector choice as
// parameters, so that tests run the compact mode at small sizes and both
// multiplications on every machine.
func newDomain(n, workers, maxTable int, vec bool) (*Domain, error) {
	if n < 2 || n&(n-1) != 0 || n > 1<<MaxLog {
		return nil, fmt.Errorf("%w: %d", ErrSize, n)
	}
	d := &Domain{n: n, log: bits.TrailingZeros(uint(n)), vec: vec}
	omega, err := fr.Generator(uint64(n))
	if err != nil {
		return nil, fmt.Errorf("ntt: %w", err)
	}
	d.omega = omega
	workers = max(workers, 1)
	zLen := n / 2
	if d.log > baseLog+1 && zLen > maxTable {
		// Every block above the base blocks must find its twiddle stored.
		zLen = max(maxTable, n>>baseLog)
	}
	d.z = bitRevTable(zLen, d.log-1, &d.omega, workers)
	if zLen < n/2 {
		var w11 fr.Element
		w11.Exp(d.omega, big.NewInt(int64(n>>baseLog))) // ω_(2^baseLog)
		d.z11 = bitRevTable(1<<(baseLog-1), baseLog-1, &w11, 1)
		d.y = bitRevTable(n>>baseLog, d.log-baseLog, &d.omega, workers)
	}
	return d, nil
}

// bitRevTable returns t[k] = x^bitrev(k) over nbits bits for k < count
// (count ≤ 2^nbits): the powers x^(j·2^(nbits−lb)), j < 2^lb, for the
// lb = log2(count) bits the indices use, read in bit-reversed order.
// The powers are permuted in place: a copy would double the table while
// it is built (512 MiB more at 2^27, on top of a, b and c in H).
func bitRevTable(count, nbits int, x *fr.Element, workers int) []fr.Element {
	lb := bits.TrailingZeros(uint(count))
	var step fr.Element
	step.Exp(*x, new(big.Int).Lsh(big.NewInt(1), uint(nbits-lb)))
	t := make([]fr.Element, count)
	Powers(t, &step, workers)
	// Each pair {k, bitrev(k)} is swapped once, by its smaller index, so
	// the workers' ranges touch disjoint pairs.
	parallel.Execute(count, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if r := reverse(k, lb); k < r {
				t[k], t[r] = t[r], t[k]
			}
		}
	}, workers)
	return t
}

// N is the domain size.
func (d *Domain) N() int { return d.n }

// Generator is ω, the domain's primitive n-th root of unity.
func (d *Domain) Generator() fr.Element { return d.omega }

// TableBytes is the memory New(n, …) holds: what Bytes will say, known
// before building it.
func TableBytes(n int) int64 {
	if n < 2 {
		return 0
	}
	if n/2 <= MaxTable || n <= 1<<(baseLog+1) {
		return int64(n/2) * fr.Bytes
	}
	return int64(max(MaxTable, n>>baseLog)+1<<(baseLog-1)+n>>baseLog) * fr.Bytes
}

// Bytes is the memory the domain holds.
func (d *Domain) Bytes() int64 { return int64(len(d.z)+len(d.z11)+len(d.y)) * fr.Bytes }

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
func (d *Domain) DIF(a []fr.Element, workers int) { _ = d.DIFYield(a, workers, nil) }

// DIFYield is DIF with y (nil: none) called from the workers between
// pieces of the work, each at most a few hundred milliseconds of one core
// at 2^27 (a butterfly pass over one block of at most 2^23 pairs; base
// blocks and layer segments are far shorter): y blocks to pause the
// transform, and its first error stops every worker and is returned, a
// left in an unspecified state.
func (d *Domain) DIFYield(a []fr.Element, workers int, y func() error) error {
	d.check(a)
	workers = max(workers, 1)
	st := newStopper(y)
	// Top layers, each spread over all workers, until there are enough
	// independent blocks for the workers to share without a tail.
	size := d.n
	for ; size > 1<<baseLog && d.n/size < 4*workers && workers > 1; size /= 2 {
		d.layerAll(a, size, workers, d.ctBlock, st)
	}
	parallel.Execute(d.n/size, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			d.ctRec(a[b*size:(b+1)*size], b, st)
		}
	}, workers)
	return st.error()
}

// DIT transforms a (len n, bit-reversed order) in place into natural order:
// with x[k] = a_in[bitrev(k)] (times scale's factor for position bitrev(k)
// when scale is not nil), afterwards a[i] = Σₖ x[k]·ω^(i·k). Without scale it
// equals gnark-crypto's fft.Domain.FFT(a, fft.DIT).
func (d *Domain) DIT(a []fr.Element, scale *BitRevPowers, workers int) {
	_ = d.DITYield(a, scale, workers, nil)
}

// DITYield is DIT with y called as DIFYield calls it.
func (d *Domain) DITYield(a []fr.Element, scale *BitRevPowers, workers int, y func() error) error {
	d.check(a)
	if scale != nil && scale.log != d.log {
		panic(fmt.Sprintf("ntt: scale for 2^%d applied to a domain of 2^%d", scale.log, d.log))
	}
	workers = max(workers, 1)
	st := newStopper(y)
	size := d.n
	for size > 1<<baseLog && d.n/size < 4*workers && workers > 1 {
		size /= 2
	}
	parallel.Execute(d.n/size, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			d.gsRec(a[b*size:(b+1)*size], b, scale, st)
		}
	}, workers)
	for size *= 2; size <= d.n; size *= 2 {
		d.layerAll(a, size, workers, d.gsBlock, st)
	}
	return st.error()
}

// stopper shares one transform's yield function between its workers:
// after the first error every worker's next check stops it. A nil
// stopper never stops.
type stopper struct {
	y      func() error
	failed atomic.Bool
	mu     sync.Mutex
	err    error
}

func newStopper(y func() error) *stopper {
	if y == nil {
		return nil
	}
	return &stopper{y: y}
}

// stop calls the yield function and says whether the work must stop.
func (s *stopper) stop() bool {
	if s == nil {
		return false
	}
	if s.failed.Load() {
		return true
	}
	if err := s.y(); err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
		s.failed.Store(true)
		return true
	}
	return false
}

func (s *stopper) error() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// segment is the most butterflies layerAll runs between two yields.
const segment = 1 << 14

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
func (d *Domain) layerAll(a []fr.Element, size, workers int, f blockFunc, st *stopper) {
	if st != nil && st.failed.Load() {
		return
	}
	m := size / 2
	blocks := d.n / size
	// Butterflies are numbered blk·m + j; each worker takes one range of
	// them, cut at block boundaries (and, to yield, into segments).
	parallel.Execute(blocks*m, func(lo, hi int) {
		for lo < hi {
			if st.stop() {
				return
			}
			blk, j0 := lo/m, lo%m
			j1 := min(m, j0+hi-lo)
			if st != nil {
				j1 = min(j1, j0+segment)
			}
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
func (d *Domain) ctRec(a []fr.Element, blk int, st *stopper) {
	size := len(a)
	if st.stop() {
		return
	}
	if size <= 1<<baseLog {
		d.ctBase(a, blk)
		return
	}
	m := size / 2
	d.ctBlock(a[:m], a[m:], d.twiddle(blk))
	d.ctRec(a[:m], 2*blk, st)
	d.ctRec(a[m:], 2*blk+1, st)
}

// gsRec is the sequential depth-first DIT of block blk (at its layer).
func (d *Domain) gsRec(a []fr.Element, blk int, scale *BitRevPowers, st *stopper) {
	size := len(a)
	if st.stop() {
		return
	}
	if size <= 1<<baseLog {
		if scale != nil {
			scale.apply(a, blk*size)
		}
		d.gsBase(a, blk)
		return
	}
	m := size / 2
	d.gsRec(a[:m], 2*blk, scale, st)
	d.gsRec(a[m:], 2*blk+1, scale, st)
	if st == nil || !st.failed.Load() {
		d.gsBlock(a[:m], a[m:], d.twiddle(blk))
	}
}

// ctBase runs every remaining layer of block blk, breadth first: at depth
// r below it, sub-block i is block blk·2^r + i.
func (d *Domain) ctBase(a []fr.Element, blk int) {
	s := bits.TrailingZeros(uint(len(a)))
	var v baseTwiddles
	var sc *smallScratch
	for r := 0; r < s; r++ {
		tw := d.layerTwiddles(&v, blk, s, r)
		size := len(a) >> r
		m := size / 2
		if d.vec && m < minVec {
			if sc == nil {
				sc = getScratch()
				defer putScratch(sc)
			}
			sc.smallLayer(a, m, tw, true)
			continue
		}
		for i, b := 0, 0; b < len(a); i, b = i+1, b+size {
			d.ctBlock(a[b:b+m], a[b+m:b+size], tw.at(i))
		}
	}
}

// gsBase is ctBase's mirror, from pairs up.
func (d *Domain) gsBase(a []fr.Element, blk int) {
	s := bits.TrailingZeros(uint(len(a)))
	var v baseTwiddles
	var sc *smallScratch
	for r := s - 1; r >= 0; r-- {
		tw := d.layerTwiddles(&v, blk, s, r)
		size := len(a) >> r
		m := size / 2
		if d.vec && m < minVec {
			if sc == nil {
				sc = getScratch()
				defer putScratch(sc)
			}
			sc.smallLayer(a, m, tw, false)
			continue
		}
		for i, b := 0, 0; b < len(a); i, b = i+1, b+size {
			d.gsBlock(a[b:b+m], a[b+m:b+size], tw.at(i))
		}
	}
}

// layerTwiddles returns the twiddles of the sub-blocks at depth r below
// base block blk.
func (d *Domain) layerTwiddles(v *baseTwiddles, blk, s, r int) *twiddles {
	tw := &v.tw
	tw.d, tw.x0, tw.vr = d, blk<<r, nil
	if tw.x0+1<<r > len(d.z) {
		tw.vr = v.at(d, blk, s, r)
	}
	return tw
}

// twiddles gives the twiddle of sub-block i of one layer of a base block
// (nil for 1): from the table, or computed in compact mode.
type twiddles struct {
	d  *Domain
	x0 int
	vr *fr.Element // compact mode's common factor; nil: from the table
	t  fr.Element
}

func (tw *twiddles) at(i int) *fr.Element {
	if tw.vr == nil {
		return tw.d.twiddle(tw.x0 + i)
	}
	tw.t.Mul(&tw.d.z11[i], tw.vr)
	return &tw.t
}

// baseTwiddles holds, for one base block blk of 2^s elements in compact
// mode, V_r = Y(blk)^(2^(s−1−r)), the factor its depth-r twiddles share.
type baseTwiddles struct {
	v    [baseLog]fr.Element
	have bool
	tw   twiddles
}

func (b *baseTwiddles) at(d *Domain, blk, s, r int) *fr.Element {
	if s != baseLog {
		panic("ntt: compact twiddles outside a base block")
	}
	if !b.have {
		b.v[s-1] = d.y[blk]
		for q := s - 1; q > 0; q-- {
			b.v[q-1].Square(&b.v[q])
		}
		b.have = true
	}
	return &b.v[r]
}

// minVec is the shortest block run on the vector butterflies: the IFMA
// kernels work on 8 pairs at a time.
const minVec = 8

// ctBlock: t = z·hi[j]; (lo[j], hi[j]) ← (lo[j] + t, lo[j] − t).
func (d *Domain) ctBlock(lo, hi []fr.Element, z *fr.Element) {
	hi = hi[:len(lo)]
	switch {
	case z == nil:
		for j := range lo {
			fr.Butterfly(&lo[j], &hi[j])
		}
	case d.vec && len(lo) >= minVec:
		ifma.ButterflyCT(lo, hi, z)
	default:
		for j := range lo {
			hi[j].Mul(&hi[j], z)
			fr.Butterfly(&lo[j], &hi[j])
		}
	}
}

// gsBlock: (lo[j], hi[j]) ← (lo[j] + hi[j], (lo[j] − hi[j])·z).
func (d *Domain) gsBlock(lo, hi []fr.Element, z *fr.Element) {
	hi = hi[:len(lo)]
	switch {
	case z == nil:
		for j := range lo {
			fr.Butterfly(&lo[j], &hi[j])
		}
	case d.vec && len(lo) >= minVec:
		ifma.ButterflyGS(lo, hi, z)
	default:
		for j := range lo {
			fr.Butterfly(&lo[j], &hi[j])
			hi[j].Mul(&hi[j], z)
		}
	}
}

// smallScratch holds a base block's lo and hi halves and their twiddles
// for the layers whose blocks are too short for the kernels (m < 8):
// there the pairs of all blocks are gathered, run as one vector of pairs
// with a twiddle each, and put back.
type smallScratch struct {
	l, h, t [1 << (baseLog - 1)]fr.Element // 32 KiB each
}

var scratchPool = sync.Pool{New: func() any { return new(smallScratch) }}

func getScratch() *smallScratch  { return scratchPool.Get().(*smallScratch) }
func putScratch(s *smallScratch) { scratchPool.Put(s) }

// smallLayer runs one layer of blocks of 2m elements over a (at most a
// base block), DIF (twiddle before the butterfly) or DIT (after).
func (sc *smallScratch) smallLayer(a []fr.Element, m int, tw *twiddles, dif bool) {
	size := 2 * m
	half := len(a) / 2
	l, h, t := sc.l[:half], sc.h[:half], sc.t[:half]
	one := fr.One()
	for i, b := 0, 0; b < len(a); i, b = i+1, b+size {
		z := tw.at(i)
		if z == nil {
			z = &one
		}
		for j := 0; j < m; j++ {
			t[i*m+j] = *z
		}
		copy(l[i*m:(i+1)*m], a[b:b+m])
		copy(h[i*m:(i+1)*m], a[b+m:b+size])
	}
	if dif {
		ifma.ButterflyCTLanes(l, h, t)
	} else {
		ifma.ButterflyGSLanes(l, h, t)
	}
	for i, b := 0, 0; b < len(a); i, b = i+1, b+size {
		copy(a[b:b+m], l[i*m:(i+1)*m])
		copy(a[b+m:b+size], h[i*m:(i+1)*m])
	}
}

// BitRevPowers is the factor c·x^bitrev(p) for each position p of a vector
// of 2^log elements (bitrev over log bits), except that position 0 may have
// a factor of its own. It costs two tables of about √n elements: with
// p = hi·2^h + lo, bitrev(p) = bitrev_h(lo)·2^(log−h) + bitrev_(log−h)(hi).
type BitRevPowers struct {
	log, h int
	vec    bool         // applied as fr.Vector products (ifma.FrVector)
	lo, hi []fr.Element // lo[u] = x^(bitrev_h(u)·2^(log−h)), hi[v] = c·x^bitrev_(log−h)(v)
	at0    fr.Element
}

// NewBitRevPowers returns the factors c·x^bitrev(p) for a vector of 2^log
// elements, with at0 at position 0 instead of c (pass c for no exception).
func NewBitRevPowers(log int, x, c, at0 fr.Element) *BitRevPowers {
	h := log / 2
	s := &BitRevPowers{log: log, h: h, at0: at0, vec: ifma.FrVector()}
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
	if s.vec && len(a) >= minVec {
		s.applyVec(a, off)
		return
	}
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

// applyVec is apply as vector products: over a run of positions with the
// same p>>h the factors are lo[p&mask]·hi[p>>h], one scalar times a
// contiguous stretch of lo.
func (s *BitRevPowers) applyVec(a []fr.Element, off int) {
	sc := getScratch()
	defer putScratch(sc)
	mask := 1<<s.h - 1
	var a0 fr.Element
	if off == 0 {
		a0 = a[0]
	}
	for r := 0; r < len(a); {
		p := off + r
		run := min(len(a)-r, mask+1-p&mask, len(sc.t))
		f := fr.Vector(sc.t[:run])
		f.ScalarMul(s.lo[p&mask:p&mask+run], &s.hi[p>>s.h])
		v := fr.Vector(a[r : r+run])
		v.Mul(v, f)
		r += run
	}
	if off == 0 {
		a[0].Mul(&a0, &s.at0)
	}
}

// Scale multiplies a, the positions [off, off+len(a)) of the vector, by
// their factors (callers apply a BitRevPowers outside a transform).
func (s *BitRevPowers) Scale(a []fr.Element, off int) { s.apply(a, off) }

// BitReverse permutes a (a power-of-two length) into bit-reversed order,
// as gnark-crypto's utils.BitReverse does, on workers goroutines, with y
// (nil: none) called between pieces of 2^16 elements as DIFYield calls
// it; its first error stops the permutation (a is then partly permuted)
// and is returned. At 2^27 the permutation is seconds of one core, most
// of it cache misses.
func BitReverse(a []fr.Element, workers int, y func() error) error {
	n := len(a)
	if n < 2 {
		return nil
	}
	if n&(n-1) != 0 {
		panic(fmt.Sprintf("ntt: bit reversal of %d elements", n))
	}
	nbits := bits.TrailingZeros(uint(n))
	st := newStopper(y)
	const piece = 1 << 16
	// Each pair (i, bitrev(i)) is swapped once, by the worker whose range
	// holds the smaller index, so the workers never touch the same pair.
	parallel.Execute((n+piece-1)/piece, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			if st.stop() {
				return
			}
			for i := p * piece; i < min(n, (p+1)*piece); i++ {
				if j := reverse(i, nbits); i < j {
					a[i], a[j] = a[j], a[i]
				}
			}
		}
	}, max(workers, 1))
	return st.error()
}

// reverse is bitrev over nbits bits.
func reverse(u, nbits int) int {
	if nbits == 0 {
		return 0
	}
	return int(bits.Reverse64(uint64(u)) >> (64 - nbits))
}
