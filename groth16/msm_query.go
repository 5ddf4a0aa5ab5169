package groth16

import (
	"context"
	"fmt"
	"math/bits"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// msmWindow is how many scalars a multi-exponentiation over a mapped query
// takes per window: their points (at most as many) are decoded from the
// file at once, 96 MiB of G1 or 192 MiB of G2 points.
const msmWindow = 1 << 20

// mappedPiece is the most general scalars a multi-exponentiation over a
// mapped query compacts before running gnark-crypto's MultiExp on them:
// msmPiece for G1; half as many G2 points, which are twice the size.
func mappedPiece(pointSize int) int {
	if pointSize > G1Uncompressed {
		return msmPiece / 2
	}
	return msmPiece
}

// msmQueryG1 is msmG1 over a query: resident points as before, mapped ones
// read from the file a window at a time (msmMapped).
func msmQueryG1(q query[bls.G1Affine], scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error) (bls.G1Jac, error) {
	if q.resident() {
		return msmG1(q.pts, scalars, sel, workers, y)
	}
	return msmMapped[bls.G1Affine, bls.G1Jac, g1Batch](q, scalars, sel, workers, y, msmWindow, mappedPiece(G1Uncompressed))
}

// msmQueryG2 is msmQueryG1 over G2.
func msmQueryG2(q query[bls.G2Affine], scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error) (bls.G2Jac, error) {
	if q.resident() {
		return msmG2(q.pts, scalars, sel, workers, y)
	}
	return msmMapped[bls.G2Affine, bls.G2Jac, g2Batch](q, scalars, sel, workers, y, msmWindow, mappedPiece(G2Uncompressed))
}

// msmMapped is msm over a mapped query, with the same result (the same
// group element, whatever the split). Its memory is bounded whatever the
// query's length: one window of decoded points, the compacted general
// scalars and their points up to one piece, and MultiExp's digits of a
// piece.
//
//   - Dense (no density filter and mostly general scalars, as H and, in
//     Poseidon circuits, L): the points are read in the equal pieces
//     multiExp would use and each piece goes to MultiExp as it is.
//   - Otherwise: the scalars are taken a window at a time; their points
//     are decoded, zeros skipped, ones summed with batched affine
//     additions, the rest copied to the compaction buffers, which go to
//     MultiExp whenever the next window might not fit.
//
// Every window's bytes are dropped from the process (query.drop) once it
// is consumed. window (a multiple of 64) and piece are msmWindow and
// mappedPiece but for tests.
func msmMapped[A, J, B any, PA affine[A], PJ jacobian[J, A], PB batchPtr[B, A]](q query[A], scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error, window, piece int) (J, error) {
	res, err := msmMappedUnchecked[A, J, B, PA, PJ, PB](q, scalars, sel, workers, y, window, piece)
	if err == nil && !PJ(&res).IsOnCurve() {
		err = firstBadPoint(q, scalars, sel, workers, window)
	}
	return res, err
}

// msmMappedUnchecked is msmMapped with the points decoded without the
// curve check (query.encoding): a point off the curve leaves the result
// off it, which msmMapped checks once.
func msmMappedUnchecked[A, J, B any, PA affine[A], PJ jacobian[J, A], PB batchPtr[B, A]](q query[A], scalars []fr.Element, sel *r1cs.Bitset, workers int, y func() error, window, piece int) (J, error) {
	var res J
	n := len(scalars)
	if n == 0 {
		return res, nil
	}
	yield := func() error {
		if y == nil {
			return nil
		}
		return y()
	}
	denseRead := densePiece(piece, y != nil)
	if y != nil {
		piece = min(piece, YieldPoints)
	}
	total := countGeneral(splitChunks(n, sel, workers), scalars, sel, workers)
	if sel == nil && float64(total) > generalShare*float64(n) {
		nPieces := max(1, (n+denseRead-1)/denseRead)
		size := max(1, (n+nPieces-1)/nPieces)
		buf := make([]A, min(size, n))
		// On the IFMA Pippenger the pieces share their buckets
		// (vecStream); gnark-crypto's MultiExp sums each on its own.
		add, sum := vecStreamOf[A, J](size)
		q.willNeed(0, size)
		for lo := 0; lo < n; lo += size {
			if err := yield(); err != nil {
				return res, err
			}
			hi := min(lo+size, n)
			q.willNeed(hi, hi+size)
			pts, err := q.readNeeded(lo, hi, buf, nil, workers, false)
			if err != nil {
				return res, err
			}
			if add != nil {
				err = add(pts, scalars[lo:hi], workers, y)
			} else {
				var part J
				err = multiExp[A, J, PJ](&part, pts, scalars[lo:hi], workers, y, piece)
				PJ(&res).AddAssign(&part)
			}
			if err != nil {
				return res, err
			}
			q.drop(lo, hi)
		}
		if sum != nil {
			res = sum(workers)
		}
		return res, nil
	}

	window = min(window, n)
	limit := max(piece, window) // a whole window's generals always fit once flushed
	cPoints := make([]A, 0, min(limit, total))
	cScalars := make([]fr.Element, 0, min(limit, total))
	wbuf := make([]A, min(window, q.n))
	flush := func() error {
		if len(cScalars) == 0 {
			return nil
		}
		var part J
		if err := multiExp[A, J, PJ](&part, cPoints, cScalars, workers, y, piece); err != nil {
			return err
		}
		PJ(&res).AddAssign(&part)
		cPoints, cScalars = cPoints[:0], cScalars[:0]
		return nil
	}
	var ones J
	// need[k]: point k of the window has a nonzero scalar. Only those are
	// decoded: decoding (to Montgomery form) is most of the cost of a
	// Boolean-heavy MSM over a mapped file, and zeros are skipped unread.
	need := make([]bool, min(window, q.n))
	pointLo := 0
	q.willNeed(0, window)
	for lo := 0; lo < n; lo += window {
		if err := yield(); err != nil {
			return res, err
		}
		hi := min(lo+window, n)
		chunks := splitRange(lo, hi, sel, workers)
		np := selectedIn(lo, hi, sel)
		q.willNeed(pointLo+np, pointLo+np+window)
		markNeeded(need[:np], chunks, scalars, sel, workers)
		pts, err := q.readNeeded(pointLo, pointLo+np, wbuf, need[:np], workers, false)
		if err != nil {
			return res, err
		}
		wGeneral := countGeneral(chunks, scalars, sel, workers)
		if len(cScalars)+wGeneral > cap(cScalars) {
			if err := flush(); err != nil {
				return res, err
			}
		}
		base := len(cScalars)
		cPoints, cScalars = cPoints[:base+wGeneral], cScalars[:base+wGeneral]
		sums := make([]J, len(chunks))
		err = par.Do(context.Background(), len(chunks), 1, workers, func(a, b int) error {
			for ci := a; ci < b; ci++ {
				var s summer[A, B, PA, PB]
				s.init()
				c := chunks[ci]
				c.offset += base
				if err := scanChunk(&c, scalars, sel, pts, cPoints, cScalars, &s, y); err != nil {
					return err
				}
				sumInto[A, J, B, PA, PJ](&s, &sums[ci])
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		for i := range sums {
			PJ(&ones).AddAssign(&sums[i])
		}
		q.drop(pointLo, pointLo+np)
		pointLo += np
	}
	if err := flush(); err != nil {
		return res, err
	}
	PJ(&res).AddAssign(&ones)
	return res, nil
}

// firstBadPoint names the point that left a multi-exponentiation over q
// off the curve: it decodes, with the curve check, every point msmMapped
// read (those of nonzero scalars), a window at a time, and returns the
// first that fails. Only a failed proof pays for it.
func firstBadPoint[A any](q query[A], scalars []fr.Element, sel *r1cs.Bitset, workers, window int) error {
	n := len(scalars)
	window = min(window, n)
	buf := make([]A, min(window, q.n))
	need := make([]bool, min(window, q.n))
	pointLo := 0
	for lo := 0; lo < n; lo += window {
		hi := min(lo+window, n)
		chunks := splitRange(lo, hi, sel, workers)
		np := selectedIn(lo, hi, sel)
		markNeeded(need[:np], chunks, scalars, sel, workers)
		if _, err := q.readNeeded(pointLo, pointLo+np, buf, need[:np], workers, true); err != nil {
			return err
		}
		q.drop(pointLo, pointLo+np)
		pointLo += np
	}
	err := fmt.Errorf("groth16: %s: the multi-exponentiation's result is off the curve, but every point it read is on it", q.name)
	if q.m != nil && q.m.shrunk() {
		err = fmt.Errorf("%w (%w)", ErrFileChanged, err)
	}
	return err
}

// selectedIn is how many of the scalars [lo, hi) (lo a multiple of 64)
// have a point: all without a density filter, else the filter's ones.
func selectedIn(lo, hi int, sel *r1cs.Bitset) int {
	if sel == nil {
		return hi - lo
	}
	np := 0
	for _, w := range sel.Words()[lo/64 : (hi+63)/64] {
		np += bits.OnesCount64(w)
	}
	return np
}

// markNeeded sets need[k] for the window's point k (chunks' pointLo are
// relative to the window) to whether its scalar is nonzero.
func markNeeded(need []bool, chunks []msmChunk, scalars []fr.Element, sel *r1cs.Bitset, workers int) {
	_ = par.Do(context.Background(), len(chunks), 1, workers, func(a, b int) error {
		for _, c := range chunks[a:b] {
			k := c.pointLo
			for i := c.lo; i < c.hi; i++ {
				if sel != nil && !sel.Get(i) {
					continue
				}
				need[k] = !scalars[i].IsZero()
				k++
			}
		}
		return nil
	})
}

// densePiece is how many points of a dense mapped query are read and
// summed as one multi-exponentiation, at most piece. The IFMA Pippenger
// yields inside one multi-exponentiation (every YieldPoints points of each
// window), so with a yield function its pieces stay whole: cut to
// YieldPoints each would be its own MSM with the window of a 2^16-point one
// (c = 11 instead of 16) and its own bucket sums, 1.5x the CPU (2^20
// points: 3.7 against 2.45 CPU-s, BenchmarkMappedDenseYield; the 2^27 H
// query of a 32 GiB PoRep partition took 497 CPU-s in such pieces).
// gnark-crypto's MultiExp cannot yield, so there pieces shrink to
// YieldPoints.
func densePiece(piece int, yields bool) int {
	if yields && !vectorMSM(piece) {
		return min(piece, YieldPoints)
	}
	return piece
}

// MappedScratchBytes is the most memory the multi-exponentiations over
// mapped queries allocate at once (beyond the scalars they read): the G2
// case, one window of decoded points, the compaction buffers of a piece
// and MultiExp's digits (32 bytes per scalar of a piece).
func MappedScratchBytes() int64 {
	const g1, g2 = 96, 192
	p2 := int64(mappedPiece(G2Uncompressed))
	p1 := int64(mappedPiece(G1Uncompressed))
	w := int64(msmWindow)
	return max(w*g2+p2*(g2+fr.Bytes+32), w*g1+p1*(g1+fr.Bytes+32))
}
