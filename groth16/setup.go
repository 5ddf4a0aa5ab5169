package groth16

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/bits"
	"runtime"
	"runtime/debug"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// ToxicWaste is the secret randomness of a Groth16 setup. Whoever knows it
// can forge proofs: parameters made from it are for tests only.
type ToxicWaste struct {
	Tau, Alpha, Beta, Gamma, Delta fr.Element
}

// RandomToxicWaste draws fresh toxic waste from crypto/rand.
func RandomToxicWaste() (ToxicWaste, error) {
	var tw ToxicWaste
	for _, e := range []*fr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		if _, err := e.SetRandom(); err != nil {
			return tw, fmt.Errorf("groth16: drawing toxic waste: %w", err)
		}
	}
	return tw, nil
}

// SetupOptions tune Setup and SetupTo.
type SetupOptions struct {
	Workers int // 0 means GOMAXPROCS
	// Progress, when set, is called as the setup advances: at every phase
	// change and after every batch of rows or points (well under a second
	// apart).
	Progress func(SetupProgress)
	// Check, when set, is called with the setup's plan before the first
	// pass over the circuit (query sizes A and B not yet known) and again
	// after it, with the exact sizes, before any point is computed or
	// written. An error from it stops the setup (a caller checks disk
	// space and memory here).
	Check func(SetupPlan) error
}

// SetupProgress says where a setup is.
type SetupProgress struct {
	Phase string // "count", "fold u v", "vk", "a", "b", "fold l", "l", "h"
	// Done and Total count the phase's units: rows for the counting and
	// folding passes, points otherwise.
	Done, Total int64
	// Fraction is the whole setup's progress by estimated cost, in [0, 1].
	Fraction float64
	// Remaining estimates the time left: measured rates of the work done
	// so far applied to the work left (zero until there is a rate).
	Remaining time.Duration
}

// SetupPlan is the shape of a setup, known after counting the circuit (A
// and B after the first folding pass).
type SetupPlan struct {
	Rows   int // input rows included
	Inputs int // ONE included
	Aux    int
	Domain int
	// A and B are the sizes of the a and b queries; −1 until known.
	A, B int
	// FileSize is the size of the .params image: exact once A and B are
	// known, else the least it can be (A ≥ inputs, B ≥ 0).
	FileSize int64
	// Memory is the most heap the setup holds at once: two aux-sized
	// vectors of field elements during the first pass, the fixed-base
	// tables and the workers' batches.
	Memory int64
}

// Counts of the queries of a .params image.
type queryCounts struct{ ic, h, l, a, b int }

// layout returns the byte offset of each vector's length prefix and the
// image's size.
func (c queryCounts) layout() (h, l, a, b1, b2, end int64) {
	h = vkFixedSize + int64(c.ic)*G1Uncompressed
	l = h + 4 + int64(c.h)*G1Uncompressed
	a = l + 4 + int64(c.l)*G1Uncompressed
	b1 = a + 4 + int64(c.a)*G1Uncompressed
	b2 = b1 + 4 + int64(c.b)*G1Uncompressed
	end = b2 + 4 + int64(c.b)*G2Uncompressed
	return
}

// ErrUnconstrained is returned when some auxiliary variable appears in no
// row, so its L point would be the identity (bellperson
// UnconstrainedVariable).
var ErrUnconstrained = errors.New("groth16: circuit has an unconstrained auxiliary variable")

// MaxDomainLog is the largest supported evaluation-domain exponent: the
// 2-adicity of the BLS12-381 scalar field.
const MaxDomainLog = 32

// DomainSize returns the evaluation-domain size bellperson uses for a
// circuit with the given number of rows (input rows included): the next
// power of two.
func DomainSize(rows int) (int, error) {
	if rows <= 0 {
		return 0, errors.New("groth16: circuit has no rows")
	}
	lg := bits.Len(uint(rows - 1))
	if lg >= MaxDomainLog {
		return 0, fmt.Errorf("groth16: %d rows need a domain of 2^%d, beyond 2^%d", rows, lg, MaxDomainLog-1)
	}
	return 1 << lg, nil
}

// A ParamsTarget receives a .params image in pieces, each at its offset.
type ParamsTarget interface {
	io.WriterAt
	// Allocate is called once with the image's exact size, before any
	// point is computed: a file target reserves its disk blocks here, so
	// that a disk too small fails now rather than an hour later.
	Allocate(size int64) error
}

// Setup generates INSECURE test parameters for circuit c from tw, in exactly
// the layout bellperson's generate_parameters produces (generator.rs): the
// same queries, the same filtering of A/B points (structural density), the
// same domain. The G1/G2 bases are the standard generators. It holds the
// whole image in memory, then decodes it: for small circuits and tests;
// SetupTo streams into a file.
func Setup(c r1cs.Circuit, tw ToxicWaste, opt SetupOptions) (*Params, error) {
	return SetupContext(context.Background(), c, tw, opt)
}

// SetupContext is Setup under ctx (see SetupTo).
func SetupContext(ctx context.Context, c r1cs.Circuit, tw ToxicWaste, opt SetupOptions) (*Params, error) {
	var img memTarget
	if _, err := SetupTo(ctx, c, tw, &img, opt); err != nil {
		return nil, err
	}
	return DecodeParams(img.b, LoadOptions{Workers: opt.Workers})
}

// memTarget is a ParamsTarget in memory.
type memTarget struct{ b []byte }

func (m *memTarget) Allocate(size int64) error { m.b = make([]byte, size); return nil }

func (m *memTarget) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > int64(len(m.b)) {
		return 0, fmt.Errorf("groth16: write of %d bytes at %d outside a %d-byte image", len(p), off, len(m.b))
	}
	return copy(m.b[off:], p), nil
}

// SetupTo generates INSECURE test parameters for circuit c from tw (see
// Setup) and writes their .params image to t, never holding the circuit's
// rows or the points: each query's points are computed in batches and
// written at their offsets as they are made. It returns the verifying key.
//
// Memory: two vectors of 32 bytes per aux variable while the circuit is
// folded into U and V, one while it is folded into the L scalars, the
// fixed-base tables (about 50 MB for G1 and 100 MB for G2) and the
// workers' batches; the Lagrange values L_j(τ) are computed a chunk of
// rows at a time, on another goroutine, ahead of the synthesis that
// consumes them. Time: three passes over the circuit (count, fold U and V,
// fold L), then one fixed-base multiplication per point.
//
// ctx is checked every 2^14 rows of a pass and before every batch of
// points (milliseconds of work); when it ends SetupTo returns its error
// (wrapped) at once, leaving t partly written.
func SetupTo(ctx context.Context, c r1cs.Circuit, tw ToxicWaste, t ParamsTarget, opt SetupOptions) (*VerifyingKey, error) {
	s := &setup{ctx: ctx, c: c, tw: tw, t: t, opt: opt, workers: opt.Workers, start: time.Now()}
	if s.workers <= 0 {
		s.workers = runtime.GOMAXPROCS(0)
	}
	vk, err := s.run()
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	return vk, nil
}

type setup struct {
	ctx     context.Context
	c       r1cs.Circuit
	tw      ToxicWaste
	t       ParamsTarget
	opt     SetupOptions
	workers int

	plan   SetupPlan
	domain *fft.Domain
	zt     fr.Element // t(τ) = τ^m − 1

	start time.Time
	eta   setupETA
	phase string
	total int64
	last  time.Time
}

func (s *setup) run() (*VerifyingKey, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	if s.tw.Gamma.IsZero() || s.tw.Delta.IsZero() {
		return nil, errors.New("γ and δ must be non-zero")
	}
	// Pass 0: size the circuit.
	counter, err := s.synthesize("count", 0, r1cs.Counter{})
	if err != nil {
		return nil, fmt.Errorf("counting: %w", err)
	}
	counter.AppendInputRows()
	shape := counter.Size()
	m, err := DomainSize(shape.Constraints)
	if err != nil {
		return nil, err
	}
	s.plan = SetupPlan{Rows: shape.Constraints, Inputs: shape.Inputs, Aux: shape.Aux, Domain: m, A: -1, B: -1}
	s.plan.FileSize = s.fileSize(queryCounts{ic: shape.Inputs, h: m - 1, l: shape.Aux, a: shape.Inputs})
	s.plan.Memory = setupMemory(shape.Aux, s.workers)
	s.eta.plan(s.plan, s.workers)
	if s.opt.Check != nil {
		if err := s.opt.Check(s.plan); err != nil {
			return nil, err
		}
	}
	s.domain = fft.NewDomain(uint64(m), fft.WithoutPrecompute())
	var tauM fr.Element
	tauM.Exp(s.tw.Tau, big.NewInt(int64(m)))
	one := fr.One()
	s.zt.Sub(&tauM, &one)
	if s.zt.IsZero() {
		return nil, errors.New("τ lies in the evaluation domain; draw new toxic waste")
	}

	// Pass 1: U and V of every variable, W of the inputs, the densities.
	q, err := s.fold("fold u v", func(l r1cs.Lagrange) *r1cs.QAPAssembly { return r1cs.NewQAPAssemblyUV(l, shape) }, shape)
	if err != nil {
		return nil, err
	}
	counts := queryCounts{ic: shape.Inputs, h: m - 1, l: shape.Aux, a: shape.Inputs + q.AAuxDensity.Count(), b: q.BInputDensity.Count() + q.BAuxDensity.Count()}
	s.plan.A, s.plan.B = counts.a, counts.b
	s.plan.FileSize = s.fileSize(counts)
	s.eta.plan(s.plan, s.workers)
	if s.opt.Check != nil {
		if err := s.opt.Check(s.plan); err != nil {
			return nil, err
		}
	}
	if err := s.t.Allocate(s.plan.FileSize); err != nil {
		return nil, fmt.Errorf("allocating the %d-byte parameter image: %w", s.plan.FileSize, err)
	}
	offH, offL, offA, offB1, offB2, _ := counts.layout()

	var gammaInv, deltaInv fr.Element
	gammaInv.Inverse(&s.tw.Gamma)
	deltaInv.Inverse(&s.tw.Delta)
	_, _, g1, g2 := bls.Generators()
	t1 := newG1Table(&g1, windowFor(counts.h+counts.l+counts.a+counts.b+counts.ic), s.workers)
	t2 := newG2Table(&g2, windowFor(counts.b), s.workers)

	// The verifying key, IC included.
	vk, err := s.verifyingKey(q, t1, t2, &gammaInv)
	if err != nil {
		return nil, err
	}
	if _, err := s.t.WriteAt(vk.Bytes(), 0); err != nil {
		return nil, err
	}

	// a: every input's U, then U of the A-dense aux variables.
	aIdx := newDenseIndex(&q.AAuxDensity)
	err = writeQuery(s, "a", offA, counts.a, t1, G1Uncompressed, encodeG1, func(i int, e *fr.Element) {
		if i < len(q.UIn) {
			*e = q.UIn[i]
		} else {
			*e = q.UAux[aIdx.at(i-len(q.UIn))]
		}
	})
	if err != nil {
		return nil, err
	}
	// b_g1 and b_g2: V of the B-dense inputs, then of the B-dense aux.
	bInIdx, bAuxIdx := newDenseIndex(&q.BInputDensity), newDenseIndex(&q.BAuxDensity)
	nBIn := q.BInputDensity.Count()
	vAt := func(i int, e *fr.Element) {
		if i < nBIn {
			*e = q.VIn[bInIdx.at(i)]
		} else {
			*e = q.VAux[bAuxIdx.at(i-nBIn)]
		}
	}
	if err := writeQuery(s, "b_g1", offB1, counts.b, t1, G1Uncompressed, encodeG1, vAt); err != nil {
		return nil, err
	}
	if err := writeQuery(s, "b_g2", offB2, counts.b, t2, G2Uncompressed, encodeG2, vAt); err != nil {
		return nil, err
	}
	q = nil
	aIdx, bInIdx, bAuxIdx = denseIndex{}, denseIndex{}, denseIndex{}
	debug.FreeOSMemory() // the next pass allocates its own aux-sized vector

	// Pass 2: L_i = (β·U_i + α·V_i + W_i)/δ of every aux variable.
	ql, err := s.fold("fold l", func(l r1cs.Lagrange) *r1cs.QAPAssembly {
		return r1cs.NewQAPAssemblyL(l, shape, s.tw.Alpha, s.tw.Beta)
	}, shape)
	if err != nil {
		return nil, err
	}
	lScalars := ql.LAux
	ql = nil
	unconstrained := -1
	par.Chunks(len(lScalars), 1<<16, s.workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lScalars[i].Mul(&lScalars[i], &deltaInv)
			if lScalars[i].IsZero() {
				unconstrained = i // any one of them will do
			}
		}
	})
	if unconstrained >= 0 {
		return nil, fmt.Errorf("%w: aux %d", ErrUnconstrained, unconstrained)
	}
	if err := writeQuery(s, "l", offL, counts.l, t1, G1Uncompressed, encodeG1, func(i int, e *fr.Element) { *e = lScalars[i] }); err != nil {
		return nil, err
	}
	lScalars = nil

	// h: τ^i·t(τ)/δ for i < m−1, a batch's powers from its first one.
	var coeff fr.Element
	coeff.Mul(&s.zt, &deltaInv)
	err = writeQueryBatches(s, "h", offH, counts.h, t1, G1Uncompressed, encodeG1, func(lo int, dst []fr.Element) {
		var p fr.Element
		p.Exp(s.tw.Tau, big.NewInt(int64(lo)))
		p.Mul(&p, &coeff)
		for i := range dst {
			dst[i] = p
			p.Mul(&p, &s.tw.Tau)
		}
	})
	if err != nil {
		return nil, err
	}
	return vk, nil
}

// fileSize is the image size for counts.
func (s *setup) fileSize(c queryCounts) int64 {
	_, _, _, _, _, end := c.layout()
	return end
}

// setupMemory is SetupPlan.Memory for aux variables and workers.
func setupMemory(aux, workers int) int64 {
	const tables = 60<<20 + 110<<20 // c = 16: 17 rows of 2^15 G1 (96 B) and G2 (192 B) points
	batches := int64(workers) * setupBatch * (G2Uncompressed + 192 + fr.Bytes + 32*4)
	return 2*fr.Bytes*int64(aux) + tables + batches + int64(aux+63)/64*8*3
}

// synthesize runs one pass of c into sink, reporting progress as phase
// (total rows, when known) and stopping when ctx ends.
func (s *setup) synthesize(phase string, total int, sink r1cs.Sink) (cs *r1cs.CS, err error) {
	s.begin(phase, int64(total))
	rows := 0
	cs, err = r1cs.SynthesizeYielding(s.c, sink, func() error {
		if err := s.ctx.Err(); err != nil {
			return err // leaves the circuit's code at once
		}
		rows += r1cs.YieldRows
		s.progress(int64(rows))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if total > 0 {
		s.progress(int64(total))
	}
	return cs, s.ctx.Err()
}

// fold runs a folding pass over the circuit with Lagrange values streamed
// from another goroutine and checks that the circuit did not change shape.
func (s *setup) fold(phase string, newAssembly func(r1cs.Lagrange) *r1cs.QAPAssembly, shape r1cs.Size) (*r1cs.QAPAssembly, error) {
	ls := newLagrangeStream(s.ctx, s.domain, &s.tw.Tau, &s.zt, shape.Constraints, s.workers)
	defer ls.close()
	q := newAssembly(ls)
	qcs, err := s.synthesize(phase, shape.Constraints, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", phase, err)
	}
	qcs.AppendInputRows()
	if err := q.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", phase, err)
	}
	if qcs.Size() != shape {
		return nil, fmt.Errorf("circuit is not deterministic: %+v, then %+v", shape, qcs.Size())
	}
	return q, nil
}

// verifyingKey computes the verifying key: α, β, γ, δ in their groups and
// IC_i = (β·U_i + α·V_i + W_i)/γ for every input.
func (s *setup) verifyingKey(q *r1cs.QAPAssembly, t1 *g1Table, t2 *g2Table, gammaInv *fr.Element) (*VerifyingKey, error) {
	s.begin("vk", int64(len(q.UIn)))
	ic := make([]fr.Element, len(q.UIn))
	for i := range ic {
		var t fr.Element
		ic[i].Mul(&q.UIn[i], &s.tw.Beta)
		t.Mul(&q.VIn[i], &s.tw.Alpha)
		ic[i].Add(&ic[i], &t).Add(&ic[i], &q.WIn[i]).Mul(&ic[i], gammaInv)
	}
	vk := &VerifyingKey{IC: make([]bls.G1Affine, len(ic))}
	if err := t1.mulIntoCtx(s.ctx, vk.IC, ic, s.workers); err != nil {
		return nil, err
	}
	g1s := []fr.Element{s.tw.Alpha, s.tw.Beta, s.tw.Delta}
	out1 := make([]bls.G1Affine, len(g1s))
	t1.mulInto(out1, g1s, 1)
	g2s := []fr.Element{s.tw.Beta, s.tw.Gamma, s.tw.Delta}
	out2 := make([]bls.G2Affine, len(g2s))
	t2.mulInto(out2, g2s, 1)
	vk.AlphaG1, vk.BetaG1, vk.DeltaG1 = out1[0], out1[1], out1[2]
	vk.BetaG2, vk.GammaG2, vk.DeltaG2 = out2[0], out2[1], out2[2]
	s.progress(int64(len(ic)))
	return vk, nil
}

// setupBatch is how many points a worker computes and encodes between two
// writes: about a tenth of a second of fixed-base multiplications.
const setupBatch = 1 << 14

// writeQuery writes a query of n points at off (its length prefix first):
// point i is scalar(i)·G, computed and written a batch at a time. A
// scalar that vanishes at τ (probability ~2^-255) would put the identity in
// the file, which bellperson's files never hold: that is an error.
func writeQuery[A, J, B any, PA tableAffine[A], PJ tableJacobian[J, A], PB batchPtr[B, A]](s *setup, phase string, off int64, n int, t *fixedTable[A, J, B, PA, PJ, PB], size int, encode func(*A, []byte), scalar func(i int, e *fr.Element)) error {
	return writeQueryBatches(s, phase, off, n, t, size, encode, func(lo int, dst []fr.Element) {
		for i := range dst {
			scalar(lo+i, &dst[i])
		}
	})
}

// writeQueryBatches is writeQuery with the scalars of each batch
// [lo, lo+len(dst)) filled by fill.
func writeQueryBatches[A, J, B any, PA tableAffine[A], PJ tableJacobian[J, A], PB batchPtr[B, A]](s *setup, phase string, off int64, n int, t *fixedTable[A, J, B, PA, PJ, PB], size int, encode func(*A, []byte), fill func(lo int, dst []fr.Element)) error {
	s.begin(phase, int64(n))
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(n))
	if _, err := s.t.WriteAt(l[:], off); err != nil {
		return err
	}
	off += 4
	step := setupBatch * s.workers
	scalars := make([]fr.Element, step)
	points := make([]A, step)
	buf := make([]byte, step*size)
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		k := hi - lo
		fill(lo, scalars[:k])
		for i := range scalars[:k] {
			if scalars[i].IsZero() {
				return fmt.Errorf("%s scalar %d vanishes at τ; draw new toxic waste", phase, lo+i)
			}
		}
		if err := par.Do(s.ctx, k, setupBatch, s.workers, func(a, b int) error {
			t.mulInto(points[a:b], scalars[a:b], 1)
			for i := a; i < b; i++ {
				encode(&points[i], buf[i*size:(i+1)*size])
			}
			return nil
		}); err != nil {
			return err
		}
		if _, err := s.t.WriteAt(buf[:k*size], off+int64(lo)*int64(size)); err != nil {
			return err
		}
		s.progress(int64(hi))
	}
	return nil
}

func encodeG1(p *bls.G1Affine, dst []byte) {
	b := p.RawBytes()
	copy(dst[:G1Uncompressed:G1Uncompressed], b[:])
}

func encodeG2(p *bls.G2Affine, dst []byte) {
	b := p.RawBytes()
	copy(dst[:G2Uncompressed:G2Uncompressed], b[:])
}

// denseIndex maps the k-th set bit of a density bitmap to its index, in
// order: a rank table every 64 words makes the lookup cheap for the
// sequential access of writeQuery.
type denseIndex struct {
	bits  *r1cs.Bitset
	ranks []int // ranks[w/64] = set bits before word w
	// the last lookup, to continue from
	lastK, lastWord, lastBit int
}

func newDenseIndex(b *r1cs.Bitset) denseIndex {
	words := b.Words()
	ranks := make([]int, 0, len(words)/64+1)
	n := 0
	for w := range words {
		if w%64 == 0 {
			ranks = append(ranks, n)
		}
		n += bits.OnesCount64(words[w])
	}
	return denseIndex{bits: b, ranks: ranks, lastK: -1}
}

// at returns the index of the k-th set bit.
func (d *denseIndex) at(k int) int {
	if d.bits == nil {
		panic("groth16: dense index used after release")
	}
	words := d.bits.Words()
	if k == d.lastK+1 && d.lastK >= 0 {
		// Next set bit after the last one.
		w, bit := d.lastWord, d.lastBit+1
		for {
			if bit < 64 {
				if rest := words[w] >> uint(bit); rest != 0 {
					bit += bits.TrailingZeros64(rest)
					d.lastK, d.lastWord, d.lastBit = k, w, bit
					return w*64 + bit
				}
			}
			w, bit = w+1, 0
		}
	}
	// Binary search over the rank table, then walk words.
	lo, hi := 0, len(d.ranks)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if d.ranks[mid] <= k {
			lo = mid
		} else {
			hi = mid
		}
	}
	w, r := lo*64, d.ranks[lo]
	for {
		c := bits.OnesCount64(words[w])
		if r+c > k {
			break
		}
		r += c
		w++
	}
	x := words[w]
	for i := r; i < k; i++ {
		x &= x - 1
	}
	bit := bits.TrailingZeros64(x)
	d.lastK, d.lastWord, d.lastBit = k, w, bit
	return w*64 + bit
}

// begin starts a phase of total units.
func (s *setup) begin(phase string, total int64) {
	s.eta.enter(phase)
	s.phase, s.total = phase, total
	s.last = time.Time{}
	s.progress(0)
}

// progress reports done units of the current phase, at most every 100 ms
// (and always at a phase's start and end).
func (s *setup) progress(done int64) {
	s.eta.advance(done)
	if s.opt.Progress == nil {
		return
	}
	now := time.Now()
	if done > 0 && done < s.total && now.Sub(s.last) < 100*time.Millisecond {
		return
	}
	s.last = now
	frac, rem := s.eta.estimate()
	s.opt.Progress(SetupProgress{Phase: s.phase, Done: done, Total: s.total, Fraction: frac, Remaining: rem})
}

// setupETA estimates a setup's remaining time from the rates measured so
// far: rows of the counting pass, rows of the folding passes, G1 points and
// G2 points each at their own rate, which starts from a prior and is
// replaced by the measured one as soon as a second of work has been seen.
type setupETA struct {
	units   map[string]int64 // phase → units planned
	done    map[string]int64
	spent   [4]time.Duration // per kind, phases left behind
	counted [4]int64         // units done in phases left behind, per kind
	prior   [4]float64       // seconds per unit before measurement
	phase   string
	since   time.Time
}

type etaKind int

const (
	etaCount etaKind = iota
	etaRow
	etaG1
	etaG2
)

// etaKinds says which rate each phase's units go at.
var etaKinds = map[string]etaKind{"count": etaCount, "fold u v": etaRow, "fold l": etaRow,
	"vk": etaG1, "a": etaG1, "b_g1": etaG1, "l": etaG1, "h": etaG1, "b_g2": etaG2}

// plan (re)sets the units of every phase from p.
func (e *setupETA) plan(p SetupPlan, workers int) {
	a, b := p.A, p.B
	if a < 0 {
		a, b = p.Inputs+p.Aux, p.Aux/2 // guesses until the first pass has run
	}
	w := float64(max(workers, 1))
	// One core folds about a row per microsecond; the fixed-base products
	// run on every worker (BenchmarkFixedBase: 5.6 µs per G1 point, 11 µs
	// per G2 point on one core of a 2.6 GHz EPYC).
	e.prior = [4]float64{0.3e-6, 1.2e-6, 6e-6 / w, 12e-6 / w}
	e.units = map[string]int64{
		"count": int64(p.Rows), "fold u v": int64(p.Rows), "fold l": int64(p.Rows),
		"vk": int64(p.Inputs), "a": int64(a), "b_g1": int64(b), "b_g2": int64(b), "l": int64(p.Aux), "h": int64(p.Domain - 1),
	}
	if e.done == nil {
		e.done = map[string]int64{}
	}
}

func (e *setupETA) enter(phase string) {
	now := time.Now()
	if k, ok := etaKinds[e.phase]; ok && !e.since.IsZero() {
		e.spent[k] += now.Sub(e.since)
		e.counted[k] += e.done[e.phase]
	}
	e.phase, e.since = phase, now
}

func (e *setupETA) advance(done int64) {
	if e.done != nil {
		e.done[e.phase] = done
	}
}

// estimate returns the fraction done, weighing phases by their prior cost
// (so it never moves back when a rate is measured), and the time left at
// the measured rates.
func (e *setupETA) estimate() (float64, time.Duration) {
	if e.units == nil {
		return 0, 0
	}
	rate := e.prior
	cur, curOK := etaKinds[e.phase]
	for k := range rate {
		spent, counted := e.spent[k], e.counted[k]
		if curOK && etaKind(k) == cur {
			spent += time.Since(e.since)
			counted += e.done[e.phase]
		}
		if counted > 0 && spent > time.Second {
			rate[k] = spent.Seconds() / float64(counted)
		}
	}
	var doneCost, totalCost, left float64
	for ph, units := range e.units {
		k := etaKinds[ph]
		d := min(e.done[ph], units)
		doneCost += float64(d) * e.prior[k]
		totalCost += float64(units) * e.prior[k]
		left += float64(units-d) * rate[k]
	}
	frac := 0.0
	if totalCost > 0 {
		frac = min(1, doneCost/totalCost)
	}
	return frac, time.Duration(left * float64(time.Second))
}

// lagrangeChunk holds L_j(τ) for rows [lo, lo+len(v)).
type lagrangeChunk struct {
	lo      int
	v       []fr.Element
	scratch []fr.Element
}

// lagrangeRows is the chunk size of a lagrangeStream: 2 MiB of values,
// a few milliseconds to compute.
const lagrangeRows = 1 << 16

// lagrangeStream computes L_j(τ) = t(τ)/m · ω^j/(τ − ω^j) a chunk at a time
// on its own goroutine, a few chunks ahead of the pass that reads them in
// order (r1cs.Lagrange).
type lagrangeStream struct {
	ch   chan *lagrangeChunk
	free chan *lagrangeChunk
	stop chan struct{}
	done chan struct{}
	cur  *lagrangeChunk
	rows int
}

func newLagrangeStream(ctx context.Context, d *fft.Domain, tau, zt *fr.Element, rows, workers int) *lagrangeStream {
	const ahead = 4
	ls := &lagrangeStream{ch: make(chan *lagrangeChunk, ahead), free: make(chan *lagrangeChunk, ahead+2),
		stop: make(chan struct{}), done: make(chan struct{}), rows: rows}
	for range ahead + 2 {
		ls.free <- &lagrangeChunk{v: make([]fr.Element, lagrangeRows), scratch: make([]fr.Element, lagrangeRows)}
	}
	var scale fr.Element
	scale.Mul(zt, &d.CardinalityInv)
	go func() {
		defer close(ls.done)
		defer close(ls.ch)
		var w, step fr.Element
		w.SetOne()
		step.Exp(d.Generator, big.NewInt(lagrangeRows))
		for lo := 0; lo < rows; lo += lagrangeRows {
			var ch *lagrangeChunk
			select {
			case ch = <-ls.free:
			case <-ls.stop:
				return
			case <-ctx.Done():
				return
			}
			n := min(lagrangeRows, rows-lo)
			ch.lo, ch.v = lo, ch.v[:n]
			lagrangeFill(ch.v, ch.scratch[:n], w, d.Generator, *tau, scale)
			w.Mul(&w, &step)
			select {
			case ls.ch <- ch:
			case <-ls.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return ls
}

// lagrangeFill sets v[j] = scale·w_j/(τ − w_j) with w_j = w0·ω^j, inverting
// all the denominators with one inversion (Montgomery's trick; scratch
// holds the prefix products).
func lagrangeFill(v, scratch []fr.Element, w0, omega, tau, scale fr.Element) {
	w := w0
	var acc fr.Element
	acc.SetOne()
	for j := range v {
		v[j].Sub(&tau, &w) // non-zero: τ is outside the domain
		scratch[j] = acc
		acc.Mul(&acc, &v[j])
		w.Mul(&w, &omega)
	}
	var inv fr.Element
	inv.Inverse(&acc)
	// Walking back: w_j is recomputed from the end as w·ω^-1.
	var omegaInv fr.Element
	omegaInv.Inverse(&omega)
	for j := len(v) - 1; j >= 0; j-- {
		w.Mul(&w, &omegaInv) // w_j
		var d fr.Element
		d.Mul(&inv, &scratch[j]) // 1/(τ − w_j)
		inv.Mul(&inv, &v[j])
		v[j].Mul(&d, &w).Mul(&v[j], &scale)
	}
}

// At implements r1cs.Lagrange.
func (ls *lagrangeStream) At(row int) (*fr.Element, error) {
	for ls.cur == nil || row >= ls.cur.lo+len(ls.cur.v) {
		if ls.cur != nil {
			ls.free <- ls.cur
			ls.cur = nil
		}
		ch, ok := <-ls.ch
		if !ok {
			return nil, fmt.Errorf("circuit has more than the %d rows it was counted with (or the setup was cancelled)", ls.rows)
		}
		ls.cur = ch
	}
	if row < ls.cur.lo {
		return nil, fmt.Errorf("row %d asked for after row %d: rows must come in order", row, ls.cur.lo)
	}
	return &ls.cur.v[row-ls.cur.lo], nil
}

// close stops the producer and waits for it.
func (ls *lagrangeStream) close() {
	close(ls.stop)
	<-ls.done
}
