package groth16

import (
	"math/bits"
	"sync"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

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
	nChunks := max(1, min(workers*4, n/1024))
	per := (n + nChunks - 1) / nChunks
	per = (per + 63) &^ 63 // whole bitset words, so ranks are cheap
	var chunks []msmChunk
	rank := 0
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		chunks = append(chunks, msmChunk{lo: lo, hi: hi, pointLo: rank})
		if sel != nil {
			for _, w := range sel.Words()[lo/64 : (hi+63)/64] {
				rank += bits.OnesCount64(w)
			}
		} else {
			rank = hi
		}
	}
	return chunks
}

func isOne(e *fr.Element) bool { return e.IsOne() }

// msmG1 returns Σ scalars[i]·points[k(i)] over the selected scalars.
func msmG1(points []bls.G1Affine, scalars []fr.Element, sel *r1cs.Bitset, workers int) (bls.G1Jac, error) {
	var res bls.G1Jac
	if len(scalars) == 0 {
		return res, nil
	}
	chunks := splitChunks(len(scalars), sel, workers)
	total := countGeneral(chunks, scalars, sel, workers)
	if sel == nil && float64(total) > generalShare*float64(len(scalars)) {
		_, err := res.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: workers})
		return res, err
	}
	cPoints := make([]bls.G1Affine, total)
	cScalars := make([]fr.Element, total)
	sums := make([]bls.G1Jac, len(chunks))
	forEachChunk(chunks, workers, func(ci int, c *msmChunk) {
		var s g1Summer
		s.init()
		k, out := c.pointLo, c.offset
		for i := c.lo; i < c.hi; i++ {
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
		sums[ci] = s.sum()
	})
	if total > 0 {
		if _, err := res.MultiExp(cPoints, cScalars, ecc.MultiExpConfig{NbTasks: workers}); err != nil {
			return res, err
		}
	}
	for i := range sums {
		res.AddAssign(&sums[i])
	}
	return res, nil
}

// msmG2 is msmG1 over G2.
func msmG2(points []bls.G2Affine, scalars []fr.Element, sel *r1cs.Bitset, workers int) (bls.G2Jac, error) {
	var res bls.G2Jac
	if len(scalars) == 0 {
		return res, nil
	}
	chunks := splitChunks(len(scalars), sel, workers)
	total := countGeneral(chunks, scalars, sel, workers)
	if sel == nil && float64(total) > generalShare*float64(len(scalars)) {
		_, err := res.MultiExp(points, scalars, ecc.MultiExpConfig{NbTasks: workers})
		return res, err
	}
	cPoints := make([]bls.G2Affine, total)
	cScalars := make([]fr.Element, total)
	sums := make([]bls.G2Jac, len(chunks))
	forEachChunk(chunks, workers, func(ci int, c *msmChunk) {
		var s g2Summer
		s.init()
		k, out := c.pointLo, c.offset
		for i := c.lo; i < c.hi; i++ {
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
		sums[ci] = s.sum()
	})
	if total > 0 {
		if _, err := res.MultiExp(cPoints, cScalars, ecc.MultiExpConfig{NbTasks: workers}); err != nil {
			return res, err
		}
	}
	for i := range sums {
		res.AddAssign(&sums[i])
	}
	return res, nil
}

// countGeneral counts, per chunk, the selected scalars that are neither 0
// nor 1, sets each chunk's output offset and returns the total.
func countGeneral(chunks []msmChunk, scalars []fr.Element, sel *r1cs.Bitset, workers int) int {
	forEachChunk(chunks, workers, func(_ int, c *msmChunk) {
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
	})
	total := 0
	for i := range chunks {
		chunks[i].offset = total
		total += chunks[i].nGeneral
	}
	return total
}

func forEachChunk(chunks []msmChunk, workers int, f func(i int, c *msmChunk)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(workers, len(chunks))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i, &chunks[i])
			}
		}()
	}
	for i := range chunks {
		next <- i
	}
	close(next)
	wg.Wait()
}

// summerWidth is the number of affine accumulators a summer rotates through;
// one batch inversion is shared by that many additions.
const summerWidth = 256

// g1Summer adds many points with batched affine additions.
type g1Summer struct {
	accs [summerWidth]bls.G1Affine
	next int
	b    g1Batch
}

func (s *g1Summer) init() { s.b.init(summerWidth) }

func (s *g1Summer) add(p *bls.G1Affine) {
	s.b.add(&s.accs[s.next], p, false)
	s.next++
	if s.next == summerWidth {
		s.b.flush()
		s.b.reset()
		s.next = 0
	}
}

func (s *g1Summer) sum() bls.G1Jac {
	s.b.flush()
	s.b.reset()
	var res bls.G1Jac
	for i := range s.accs {
		if !s.accs[i].IsInfinity() {
			res.AddMixed(&s.accs[i])
		}
	}
	return res
}

type g2Summer struct {
	accs [summerWidth]bls.G2Affine
	next int
	b    g2Batch
}

func (s *g2Summer) init() { s.b.init(summerWidth) }

func (s *g2Summer) add(p *bls.G2Affine) {
	s.b.add(&s.accs[s.next], p, false)
	s.next++
	if s.next == summerWidth {
		s.b.flush()
		s.b.reset()
		s.next = 0
	}
}

func (s *g2Summer) sum() bls.G2Jac {
	s.b.flush()
	s.b.reset()
	var res bls.G2Jac
	for i := range s.accs {
		if !s.accs[i].IsInfinity() {
			res.AddMixed(&s.accs[i])
		}
	}
	return res
}
