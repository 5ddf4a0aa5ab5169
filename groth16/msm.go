package groth16

import (
	"context"
	"math/bits"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Multi-scalar multiplication over Boolean-heavy witnesses.
//
// The witness of a SHA-256-dominated circuit is mostly 0 and 1. A general MSM
// would still run its windows and bucket reductions over every scalar; here
// zeros are skipped, points with scalar 1 are summed directly (batched affine
// additions, about six field multiplications each), and only the remaining
// scalars go through gnark-crypto's MultiExp, on a compacted copy.
//
// A query may be density-filtered (bellperson's DensityTracker): point k then
// belongs to the k-th set bit of sel, and scalar i is used only if sel has
// bit i.

// generalShare is the fraction of general scalars above which a plain
// MultiExp over everything is cheaper than splitting (only possible when the
// query is not density-filtered, as no compaction is then needed).
const generalShare = 0.5

type msmChunk struct {
	lo, hi   int // scalar indices
	pointLo  int // index of the first point used by this chunk
	nGeneral int
	offset   int // where its general scalars go in the compacted arrays
}

// splitChunks cuts [0,n) into about 4 chunks per worker and finds, for each,
// the index of its first point under sel.
func splitChunks(n int, sel *r1cs.Bitset, workers int) []msmChunk {
	return splitRange(0, n, sel, workers)
}

// splitRange is splitChunks over the scalars [start, end) (start a multiple
// of 64): point indices count from start's point.
func splitRange(start, end int, sel *r1cs.Bitset, workers int) []msmChunk {
	n := end - start
	nChunks := max(1, min(workers*4, n/1024))
	per := (n + nChunks - 1) / nChunks
	per = (per + 63) &^ 63 // whole bitset words, so ranks are cheap
	var chunks []msmChunk
	rank := 0
	for lo := start; lo < end; lo += per {
		hi := min(lo+per, end)
		chunks = append(chunks, msmChunk{lo: lo, hi: hi, pointLo: rank})
		if sel != nil {
			for _, w := range sel.Words()[lo/64 : (hi+63)/64] {
				rank += bits.OnesCount64(w)
			}
		} else {
			rank = hi - start
		}
	}
	return chunks
}

func isOne(e *fr.Element) bool { return e.IsOne() }

// affine and jacobian are what the one MSM body needs of gnark-crypto's
// point types; bls.G1Affine/G1Jac and bls.G2Affine/G2Jac both satisfy them.
type affine[A any] interface {
	*A
	IsInfinity() bool
}

type jacobian[J, A any] interface {
	*J
	AddAssign(*J) *J
	AddMixed(*A) *J
	MultiExp([]A, []fr.Element, ecc.MultiExpConfig) (*J, error)
	IsOnCurve() bool
}

// batch is the batched affine adder of one group (g1Batch, g2Batch).
type batch[A any] interface {
	init(n int)
	reset()
	add(acc, q *A, negate bool)
	flush()
}

type batchPtr[B, A any] interface {
	*B
	batch[A]
}

// The adders are the MSMs' and the fixed-base tables' type arguments; the
// assertions state it where a reader (and staticcheck, which does not
// follow methods called through a type parameter) looks for their use.
var (
	_ batch[bls.G1Affine] = (*g1Batch)(nil)
	_ batch[bls.G2Affine] = (*g2Batch)(nil)
)

// msmG1 returns Σ scalars[i]·points[k(i)] over the selected scalars. y,
// when not nil, is called at the yield points (ProveOptions.Yield); its
// error stops the MSM.
func msmG1(points []bls.G1Affine, scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error) (bls.G1Jac, error) {
	return msm[bls.G1Affine, bls.G1Jac, g1Batch](points, scalars, sel, workers, y)
}

// msmG2 is msmG1 over G2.
func msmG2(points []bls.G2Affine, scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error) (bls.G2Jac, error) {
	return msm[bls.G2Affine, bls.G2Jac, g2Batch](points, scalars, sel, workers, y)
}

// msm is the one body of msmG1 and msmG2: zeros skipped, ones summed by a
// summer per chunk, the rest compacted into one MultiExp. Generic code calls
// the point and batch methods through a dictionary; that is one indirect
// call per selected scalar, next to several field multiplications each.
func msm[A, J, B any, PA affine[A], PJ jacobian[J, A], PB batchPtr[B, A]](points []A, scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error) (J, error) {
	var res J
	if len(scalars) == 0 {
		return res, nil
	}
	chunks := splitChunks(len(scalars), sel, workers)
	total := countGeneral(chunks, scalars, sel, workers)
	piece := msmPiece
	if y != nil {
		piece = YieldPoints
	}
	if sel == nil && float64(total) > generalShare*float64(len(scalars)) {
		err := multiExp[A, J, PJ](&res, points, scalars, workers, y, piece)
		return res, err
	}
	cPoints := make([]A, total)
	cScalars := make([]fr.Element, total)
	sums := make([]J, len(chunks))
	err := par.Do(context.Background(), len(chunks), 1, workers, func(lo, hi int) error {
		for ci := lo; ci < hi; ci++ {
			if y != nil {
				if err := y(); err != nil {
					return err
				}
			}
			var s summer[A, B, PA, PB]
			s.init()
			if err := scanChunk(&chunks[ci], scalars, sel, points, cPoints, cScalars, &s, y); err != nil {
				return err
			}
			sumInto[A, J, B, PA, PJ](&s, &sums[ci])
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if total > 0 {
		if err := multiExp[A, J, PJ](&res, cPoints, cScalars, workers, y, piece); err != nil {
			return res, err
		}
	}
	for i := range sums {
		PJ(&res).AddAssign(&sums[i])
	}
	return res, nil
}

// scanYield is how many scalars the scan of one chunk visits between two
// yields: milliseconds, even where every one is a batched addition.
const scanYield = 1 << 14

// scanChunk sums the points of chunk c whose scalars are 1 into s and
// copies those with other non-zero scalars, and their scalars, to
// cPoints/cScalars from the chunk's offset; zeros are skipped. points[k] is
// the chunk's k-th point counted from its pointLo. y, when not nil, is
// called every scanYield scalars; its error stops the scan.
func scanChunk[A, B any, PA affine[A], PB batchPtr[B, A]](c *msmChunk, scalars []fr.Element, sel *r1cs.Bitset, points, cPoints []A, cScalars []fr.Element, s *summer[A, B, PA, PB], y func() error) error {
	k, out := c.pointLo, c.offset
	for i := c.lo; i < c.hi; i++ {
		// A chunk is an eighth of the scalars on two cores: seconds at
		// 2^27, so it yields as it goes.
		if y != nil && (i-c.lo)%scanYield == scanYield-1 {
			if err := y(); err != nil {
				return err
			}
		}
		if sel != nil && !sel.Get(i) {
			continue
		}
		sc := &scalars[i]
		switch {
		case sc.IsZero():
		case isOne(sc):
			s.add(&points[k])
		default:
			cPoints[out] = points[k]
			cScalars[out] = *sc
			out++
		}
		k++
	}
	return nil
}

// msmPiece is the most points one gnark-crypto MultiExp call gets.
// MultiExp decomposes all scalars into all windows' digits before it
// starts: 2 bytes per window, 32 bytes per scalar at its window c = 16 —
// as much as the scalars themselves, 4.3 GB for the 2^27 H query of a
// 32 GiB partition. In pieces of 2^22 points the digits stay at 134 MB;
// gnark-crypto still picks c = 16 for a piece that size, and each extra
// piece costs one bucket reduction (2^16 additions per window; measured
// at 2^21 points, pieces of 2^20 and of 2^16 cost the same CPU as one
// call, within 5 %).
const msmPiece = 1 << 22

// multiExp sets *res to gnark-crypto's MultiExp of points and scalars, run
// in equal pieces of at most piece points whose sums are added (msm passes
// msmPiece, or YieldPoints with a yield function). y, when not nil, is
// called before each piece: gnark-crypto's MultiExp cannot be interrupted,
// and a whole 2^22-point MSM takes tens of seconds on a few cores. The
// pieces' sum is the same group element.
func multiExp[A, J any, PJ jacobian[J, A]](res *J, points []A, scalars []fr.Element, workers int, y func() error, piece int) error {
	if done, err := multiExpVector(res, points, scalars, workers, y); done {
		return err // the IFMA kernels' own G1 MSM (msm_ifma.go)
	}
	cfg := ecc.MultiExpConfig{NbTasks: workers}
	if y == nil && len(scalars) <= piece {
		_, err := PJ(res).MultiExp(points, scalars, cfg)
		return err
	}
	// Equal pieces: a short last piece would get a smaller window.
	nPieces := max(1, (len(scalars)+piece-1)/piece)
	size := max(1, (len(scalars)+nPieces-1)/nPieces)
	var sum J
	for lo := 0; lo < len(scalars); lo += size {
		if y != nil {
			if err := y(); err != nil {
				return err
			}
		}
		hi := min(lo+size, len(scalars))
		var part J
		if _, err := PJ(&part).MultiExp(points[lo:hi], scalars[lo:hi], cfg); err != nil {
			return err
		}
		PJ(&sum).AddAssign(&part)
	}
	*res = sum
	return nil
}

// countGeneral counts, per chunk, the selected scalars that are neither 0
// nor 1, sets each chunk's output offset and returns the total.
func countGeneral(chunks []msmChunk, scalars []fr.Element, sel *r1cs.Bitset, workers int) int {
	par.Chunks(len(chunks), 1, workers, func(lo, hi int) {
		for ci := lo; ci < hi; ci++ {
			c := &chunks[ci]
			n := 0
			for i := c.lo; i < c.hi; i++ {
				if sel != nil && !sel.Get(i) {
					continue
				}
				if sc := &scalars[i]; !sc.IsZero() && !isOne(sc) {
					n++
				}
			}
			c.nGeneral = n
		}
	})
	total := 0
	for i := range chunks {
		chunks[i].offset = total
		total += chunks[i].nGeneral
	}
	return total
}

// summerWidth is the number of affine accumulators a summer rotates through;
// one batch inversion is shared by that many additions.
const summerWidth = 256

// summer adds many points of one group with batched affine additions.
type summer[A, B any, PA affine[A], PB batchPtr[B, A]] struct {
	accs [summerWidth]A
	next int
	b    B
}

func (s *summer[A, B, PA, PB]) init() { PB(&s.b).init(summerWidth) }

func (s *summer[A, B, PA, PB]) add(p *A) {
	b := PB(&s.b)
	b.add(&s.accs[s.next], p, false)
	s.next++
	if s.next == summerWidth {
		b.flush()
		b.reset()
		s.next = 0
	}
}

// sumInto sets *res to the summer's total.
func sumInto[A, J, B any, PA affine[A], PJ jacobian[J, A], PB batchPtr[B, A]](s *summer[A, B, PA, PB], res *J) {
	b := PB(&s.b)
	b.flush()
	b.reset()
	var sum J
	for i := range s.accs {
		if !PA(&s.accs[i]).IsInfinity() {
			PJ(&sum).AddMixed(&s.accs[i])
		}
	}
	*res = sum
}
