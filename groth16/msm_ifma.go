package groth16

import (
	"math"
	"sync"
	"sync/atomic"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/parallel"

	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/internal/par"
)

// The G1 and G2 multi-exponentiations on the IFMA kernels
// (internal/ifma): a Pippenger bucket method of our own, because
// gnark-crypto's MultiExp has no place for another adder. Per window of c bits, every point with a
// nonzero signed digit d goes into bucket |d| as ±P through the 8-lane
// batch-affine adder (one scalar inversion per batch of vecBatch
// additions); a bucket already in the current batch waits in a queue for
// the next one. Buckets are then summed by the running-sum method in
// Jacobian coordinates (gnark-crypto's scalar G1Jac, G2Jac) and the windows
// combined by doubling. The result is the same group element as
// MultiExp's, so proofs stay byte-identical.
//
// Memory: the digits, 2·⌈256/c⌉ bytes per point (32 at c = 16, as
// gnark-crypto's), and per worker (per window when a query is summed in
// pieces, vecStream) 2^(c−1) + 2·batch accumulators of 96 (G2: 192) bytes,
// 4 bytes of state each and 16 bytes per bucket (3.8 MB at c = 16 in G1),
// and the adder's 2 KiB (G2: 4 KiB) per 8 batched additions (256 KiB).

// vecMinPoints is the smallest MSM given to the vector path: below it the
// per-window setup (buckets, batches) outweighs the faster additions.
const vecMinPoints = 1 << 10

// multiExpVector runs multiExp on the IFMA Pippenger when IFMA is in use
// (G1 and G2 points); done is false otherwise and for small MSMs, leaving
// the work to gnark-crypto.
func multiExpVector[A, J any](res *J, points []A, scalars []fr.Element, workers int, y func() error) (done bool, err error) {
	if !vectorMSM(len(scalars)) {
		return false, nil
	}
	switch pts := any(points).(type) {
	case []bls.G1Affine:
		return true, vecPieces(any(res).(*bls.G1Jac), pts, scalars, workers, y, vecAdderG1, vecBatchG1)
	case []bls.G2Affine:
		return true, vecPieces(any(res).(*bls.G2Jac), pts, scalars, workers, y, vecAdderG2, vecBatchG2)
	}
	return false, nil
}

// vecStreamOf is a vecStream over G1 or G2 points for pieces of at most
// piece points, when the IFMA Pippenger applies to them; nil otherwise.
func vecStreamOf[A, J any](piece int) (add func(points []A, scalars []fr.Element, workers int, y func() error) error, sum func(workers int) J) {
	if !vectorMSM(piece) {
		return nil, nil
	}
	switch any(*new(A)).(type) {
	case bls.G1Affine:
		st := newVecStream[bls.G1Affine, bls.G1Jac](piece, vecAdderG1, vecBatchG1, math.MaxInt)
		add = func(p []A, sc []fr.Element, w int, y func() error) error {
			return st.add(any(p).([]bls.G1Affine), sc, w, y)
		}
		sum = func(w int) J { return any(st.sum(w)).(J) }
	case bls.G2Affine:
		st := newVecStream[bls.G2Affine, bls.G2Jac](piece, vecAdderG2, vecBatchG2, math.MaxInt)
		add = func(p []A, sc []fr.Element, w int, y func() error) error {
			return st.add(any(p).([]bls.G2Affine), sc, w, y)
		}
		sum = func(w int) J { return any(st.sum(w)).(J) }
	}
	return add, sum
}

// vectorMSM reports whether a multi-exponentiation of n points runs on the
// IFMA Pippenger (which yields inside itself) rather than gnark-crypto's.
func vectorMSM(n int) bool { return ifma.Enabled() && n >= vecMinPoints }

// Batch sizes: a G2 group of the adder is twice a G1 one, so half as many
// keep a batch's kernel state the same size (256 KiB).
const (
	vecBatchG1 = 1024
	vecBatchG2 = 512
)

func vecAdderG1(n int) vecAdder[bls.G1Affine] { return ifma.NewG1Adder(n) }
func vecAdderG2(n int) vecAdder[bls.G2Affine] { return ifma.NewG2Adder(n) }

// vecPieces runs msmVector over equal pieces of at most msmPiece points,
// which bound the digits' memory, and sums them into res.
func vecPieces[A, J any, PA vecAffine[A], PJ vecJacobian[J, A]](res *J, points []A, scalars []fr.Element, workers int, y func() error, newAdder func(int) vecAdder[A], batch int) error {
	var sum J
	nPieces := (len(scalars) + msmPiece - 1) / msmPiece
	size := (len(scalars) + nPieces - 1) / nPieces
	for lo := 0; lo < len(scalars); lo += size {
		hi := min(lo+size, len(scalars))
		part, err := msmVector[A, J, PA, PJ](points[lo:hi], scalars[lo:hi], workers, y, newAdder, batch)
		if err != nil {
			return err
		}
		PJ(&sum).AddAssign(&part)
	}
	*res = sum
	return nil
}

// vecAdder is ifma's batch adder (G1Adder, G2Adder) as the Pippenger uses it.
type vecAdder[A any] interface {
	Add(acc, q *A, negate bool)
	Flush() []*A
	Len() int
	Cap() int
}

// vecAffine and vecJacobian are what the Pippenger needs of gnark-crypto's
// point types.
type vecAffine[A any] interface {
	*A
	IsInfinity() bool
	Neg(*A) *A
}

type vecJacobian[J, A any] interface {
	*J
	AddAssign(*J) *J
	AddMixed(*A) *J
	DoubleAssign() *J
}

// windowBits is the window c minimising ⌈256/c⌉·(n + ρ·2^(c−1)): one
// batched addition per point and window against the bucket sums, whose
// two scalar Jacobian additions per bucket cost about ρ = 10 batched ones.
// c ≤ 16 keeps a digit in 16 bits.
func windowBits(n int) int {
	best, bestCost := 4, -1.0
	for c := 4; c <= 16; c++ {
		cost := float64((256+c-1)/c) * (float64(n) + 10*float64(uint64(1)<<(c-1)))
		if bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best
}

// vecDigits returns the signed digits of every scalar, window-major
// (digits[w·n + i]): 0 for a zero digit, else (|d|<<1 | sign) − 1, which
// fits 16 bits for the largest digit, +2^15 at c = 16 (negative digits
// stay above −2^(c−1)). Digits
// lie in [−2^(c−1), 2^(c−1)]; with ⌈256/c⌉ windows the top one holds at
// most c−1 bits and its digit is never negative. Points at infinity get
// no digits.
func vecDigits[A any, PA vecAffine[A]](points []A, scalars []fr.Element, c, nw, workers int) []uint16 {
	n := len(scalars)
	digits := make([]uint16, n*nw)
	half := uint64(1) << (c - 1)
	mask := uint64(1)<<c - 1
	if c == 16 && nw == 16 {
		// The large MSMs' window: digits are the scalar's 16-bit words,
		// and the sign is taken without a branch (it is a coin toss per
		// window, which the general loop mispredicted half the time).
		parallel.Execute(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if PA(&points[i]).IsInfinity() {
					continue
				}
				k := scalars[i].Bits()
				var carry uint64
				for w := range 16 {
					v := (k[w>>2]>>(16*(w&3)))&0xffff + carry
					neg := (half - v) >> 63 // v > 2^15: v − 2^16, borrowing
					nz := (v | -v) >> 63
					pos := (v<<1 - 1) & -nz
					d := ((1<<16-v)<<1)&-neg | pos&^-neg
					digits[w*n+i] = uint16(d)
					carry = neg
				}
			}
		}, workers)
		return digits
	}
	parallel.Execute(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if PA(&points[i]).IsInfinity() {
				continue
			}
			k := scalars[i].Bits() // regular form, little-endian
			var carry uint64
			for w := 0; w < nw; w++ {
				bit := w * c
				v := uint64(0)
				if word := bit / 64; word < 4 {
					v = k[word] >> (bit % 64)
					if bit%64+c > 64 && word+1 < 4 {
						v |= k[word+1] << (64 - bit%64)
					}
				}
				v = v&mask + carry
				carry = 0
				if v > half { // never in the top window
					// negative digit v − 2^c, borrowing from the next window
					digits[w*n+i] = uint16(((1<<c-v)<<1 | 1) - 1)
					carry = 1
				} else if v != 0 {
					digits[w*n+i] = uint16(v<<1 - 1)
				}
			}
		}
	}, workers)
	return digits
}

// prefetchAhead is how many points ahead of the one being placed the
// bucket lookup is prefetched: enough for a miss to L3 or DRAM to arrive.
const prefetchAhead = 24

// vecEntry is a point waiting for its accumulator to leave the current
// batch.
type vecEntry struct {
	i uint32
	d uint16
}

// vecWindow is one worker's state for the window it is summing.
//
// A bucket has m_b ≥ 1 accumulators, used in turn: a bucket that gets a
// large share of the window's points (the top window has few buckets;
// repeated scalars put many points in one bucket) would otherwise be in
// every batch and make its points wait, one addition per batch. m_b = 1 +
// 2·batch·count_b/n keeps the accumulators of any bucket more numerous
// than its expected entries per batch; in all Σ m_b ≤ buckets + 2·batch.
type vecWindow[A any, PA vecAffine[A]] struct {
	accs []A
	// state per accumulator of the buckets with several (a bucket with
	// one keeps it in its vecBucket): 0 empty, 1 holding a point, else the
	// batch it was last queued in (batch numbers start at 2, only grow).
	state  []uint32
	bucket []vecBucket
	count  []uint32 // per bucket: points of this window
	owner  []uint32 // per accumulator: its bucket
	batch  uint32
	adder  vecAdder[A]
	queue  []vecEntry
	spare  []vecEntry
	points []A
}

// vecBucket is a bucket's accumulators, accs[base : base+m], the one its
// next point goes to, and the state of its accumulator when it has one
// (the common case: then a point costs one random cache line, this
// record's 16 aligned bytes).
type vecBucket struct {
	base, state uint32
	m, cursor   uint16
	_           uint32
}

func newVecWindow[A any, PA vecAffine[A]](points []A, nb, batch int, newAdder func(int) vecAdder[A]) *vecWindow[A, PA] {
	na := nb + 2*batch
	return &vecWindow[A, PA]{
		accs:   make([]A, na),
		state:  make([]uint32, na),
		bucket: make([]vecBucket, nb),
		count:  make([]uint32, nb),
		owner:  make([]uint32, na),
		adder:  newAdder(batch),
		points: points,
		batch:  1,
	}
}

// start prepares the accumulators for a window with digits ds.
func (v *vecWindow[A, PA]) start(ds []uint16) {
	clear(v.count)
	for _, d := range ds {
		if d != 0 {
			v.count[(uint32(d)+1)>>1-1]++
		}
	}
	// m ≤ 1 + 2·batch ≤ 2049 fits the uint16.
	n, batch := uint64(max(1, len(ds))), uint64(v.adder.Cap())
	base := uint32(0)
	for b, c := range v.count {
		m := 1 + uint32(2*batch*uint64(c)/n)
		v.bucket[b] = vecBucket{base: base, m: uint16(m)}
		for a := base; a < base+m; a++ {
			v.owner[a] = uint32(b)
		}
		base += m
	}
	clear(v.state[:base])
	v.batch++
}

// resume prepares for a later piece's digits ds of the same window: the
// accumulators, their layout and states carry on; the counts grow (vecSum
// finds the top bucket by them).
func (v *vecWindow[A, PA]) resume(ds []uint16) {
	for _, d := range ds {
		if d != 0 {
			v.count[(uint32(d)+1)>>1-1]++
		}
	}
	v.batch++
}

// stateOf is accumulator a's state word. owner maps an accumulator to its
// bucket (set in start).
func (v *vecWindow[A, PA]) stateOf(a int) *uint32 {
	if bk := &v.bucket[v.owner[a]]; bk.m == 1 {
		return &bk.state
	}
	return &v.state[a]
}

func (v *vecWindow[A, PA]) accOf(p *A) int {
	return int((uintptr(unsafe.Pointer(p)) - uintptr(unsafe.Pointer(&v.accs[0]))) / unsafe.Sizeof(*p))
}

// add puts point i with digit d (encoded, nonzero) into its bucket's next
// accumulator: set when empty, else batched, or queued when that
// accumulator is already in the batch.
func (v *vecWindow[A, PA]) add(i uint32, d uint16) {
	e := uint32(d) + 1
	bk, neg := &v.bucket[e>>1-1], e&1 != 0
	a := bk.base + uint32(bk.cursor)
	st := &bk.state
	if bk.m > 1 {
		st = &v.state[a]
		if bk.cursor++; bk.cursor == bk.m {
			bk.cursor = 0
		}
	}
	p := &v.points[i]
	switch *st {
	case 0:
		if neg {
			PA(&v.accs[a]).Neg(p)
		} else {
			v.accs[a] = *p
		}
		*st = 1
	case v.batch:
		v.queue = append(v.queue, vecEntry{i, d})
	default:
		*st = v.batch
		v.adder.Add(&v.accs[a], p, neg)
	}
}

// flush runs the batch and then moves the queue into the next one (as
// far as it fits).
func (v *vecWindow[A, PA]) flush() {
	for _, p := range v.adder.Flush() {
		*v.stateOf(v.accOf(p)) = 0
	}
	v.batch++
	old := v.queue
	v.queue, v.spare = v.spare[:0], old
	for j, e := range old {
		if v.adder.Len() == v.adder.Cap() {
			v.queue = append(v.queue, old[j:]...)
			break
		}
		v.add(e.i, e.d)
	}
}

// sum is Σ (b+1)·bucket_b by running sums from the top, a bucket being
// the sum of its accumulators.
func vecSum[A, J any, PA vecAffine[A], PJ vecJacobian[J, A]](v *vecWindow[A, PA]) J {
	var running, total J
	nb := len(v.count)
	top := nb - 1
	for top >= 0 && v.count[top] == 0 {
		top--
	}
	for b := top; b >= 0; b-- {
		lo, hi := v.bucket[b].base, v.bucket[b].base+uint32(v.bucket[b].m)
		if hi-lo == 1 {
			if v.bucket[b].state != 0 {
				PJ(&running).AddMixed(&v.accs[lo])
			}
		} else {
			var s J
			for a := lo; a < hi; a++ {
				if v.state[a] != 0 {
					PJ(&s).AddMixed(&v.accs[a])
				}
			}
			PJ(&running).AddAssign(&s)
		}
		PJ(&total).AddAssign(&running)
	}
	return total
}

// msmVector returns Σ scalars[i]·points[i]. newAdder makes one batch
// adder per worker (ifma.NewG1Adder, NewG2Adder; tests pass the
// reference), of at most batch additions. y, when not nil, is called every
// YieldPoints points of each window.
func msmVector[A, J any, PA vecAffine[A], PJ vecJacobian[J, A]](points []A, scalars []fr.Element, workers int, y func() error, newAdder func(int) vecAdder[A], batch int) (J, error) {
	var res J
	if len(scalars) == 0 {
		return res, nil
	}
	s := newVecStream[A, J, PA, PJ](len(scalars), newAdder, batch, min(workers, 256))
	if err := s.add(points, scalars, workers, y); err != nil {
		return res, err
	}
	return s.sum(workers), nil
}

// vecStream is the Pippenger fed piece by piece: every window's buckets
// persist from one piece to the next and are summed once, at the end. A
// dense query read from a mapped file in pieces of 2^22 points (the 2^27
// H query) thus pays one bucket reduction per window instead of one per
// piece and window, which was 7 % of its CPU. With workers windows in
// flight at once it holds workers windows' accumulators when the pieces
// are one (msmVector), and all nw windows' (16 × 4.3 MB in G1 at c = 16)
// when they are many.
type vecStream[A, J any, PA vecAffine[A], PJ vecJacobian[J, A]] struct {
	c, nw, nb, batch int
	newAdder         func(int) vecAdder[A]
	keep             bool                // windows keep their buckets (more than one piece)
	wins             []*vecWindow[A, PA] // with keep: per window, once it has run
	sums             []J                 // without keep: per window, its sum
}

// newVecStream prepares for pieces of at most piece points (which pick the
// window c). keepWindows is how many window states may exist at once:
// the workers of a single piece, or every window for a stream of pieces.
func newVecStream[A, J any, PA vecAffine[A], PJ vecJacobian[J, A]](piece int, newAdder func(int) vecAdder[A], batch, keepWindows int) *vecStream[A, J, PA, PJ] {
	c := windowBits(piece)
	nw := (256 + c - 1) / c
	nb := 1 << (c - 1)
	// A batch of a quarter of the buckets at most: more would queue too
	// many points; 1024 amortises the inversion (≈ 4 µs) to a few ns.
	batch = min(batch, max(64, nb/4))
	return &vecStream[A, J, PA, PJ]{c: c, nw: nw, nb: nb, batch: batch, newAdder: newAdder,
		keep: keepWindows >= nw, wins: make([]*vecWindow[A, PA], nw), sums: make([]J, nw)}
}

// add sums one piece into every window's buckets.
func (s *vecStream[A, J, PA, PJ]) add(points []A, scalars []fr.Element, workers int, y func() error) error {
	n := len(scalars)
	if n == 0 {
		return nil
	}
	digits := vecDigits[A, PA](points, scalars, s.c, s.nw, workers)
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		errOnce sync.Once
		failed  atomic.Bool
		firstE  error
	)
	workers = max(1, min(workers, s.nw))
	for range workers {
		wg.Go(func() {
			var own *vecWindow[A, PA] // a single piece's window state, reused across windows
			for !failed.Load() {
				w := int(next.Add(1)) - 1
				if w >= s.nw {
					return
				}
				ds := digits[w*n : (w+1)*n]
				v := s.wins[w]
				switch {
				case v != nil: // a later piece: the buckets carry on
					v.points = points
					v.resume(ds)
				case s.keep:
					v = newVecWindow[A, PA](points, s.nb, s.batch, s.newAdder)
					v.start(ds)
				default:
					if own == nil {
						own = newVecWindow[A, PA](points, s.nb, s.batch, s.newAdder)
					}
					v = own
					v.start(ds)
				}
				if err := v.run(ds, y); err != nil {
					errOnce.Do(func() { firstE = err })
					failed.Store(true)
					return
				}
				if s.keep {
					s.wins[w] = v
				} else {
					// Summed now: the state is reused for the next window.
					s.sums[w] = vecSum[A, J, PA, PJ](v)
				}
			}
		})
	}
	wg.Wait()
	return firstE
}

// sum is the multi-exponentiation of every piece added: each window's
// buckets summed (now, when they were kept), the windows combined by
// doubling.
func (s *vecStream[A, J, PA, PJ]) sum(workers int) J {
	if s.keep {
		par.Chunks(s.nw, 1, workers, func(lo, hi int) {
			for w := lo; w < hi; w++ {
				if v := s.wins[w]; v != nil {
					s.sums[w] = vecSum[A, J, PA, PJ](v)
				}
			}
		})
	}
	res := s.sums[s.nw-1]
	for w := s.nw - 2; w >= 0; w-- {
		for range s.c {
			PJ(&res).DoubleAssign()
		}
		PJ(&res).AddAssign(&s.sums[w])
	}
	return res
}

// run places the window's points (digits ds) into its buckets and
// flushes every pending addition, calling y every YieldPoints points.
func (v *vecWindow[A, PA]) run(ds []uint16, y func() error) error {
	n := len(ds)
	for lo := 0; lo < n; lo += YieldPoints {
		if y != nil {
			if err := y(); err != nil {
				return err
			}
		}
		for i := lo; i < min(lo+YieldPoints, n); i++ {
			// The bucket record of the point prefetchAhead on.
			if j := i + prefetchAhead; j < n && ds[j] != 0 {
				ifma.Prefetch(unsafe.Pointer(&v.bucket[(uint32(ds[j])+1)>>1-1]))
			}
			if d := ds[i]; d != 0 {
				v.add(uint32(i), d)
				if v.adder.Len() == v.adder.Cap() {
					v.flush()
				}
			}
		}
	}
	for v.adder.Len() > 0 || len(v.queue) > 0 {
		v.flush()
	}
	return nil
}
