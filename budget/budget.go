package budget

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/internal/bytesize"
)

// ErrExceedsBudget is returned when the request can never be granted because it is larger
// than the whole budget.
var ErrExceedsBudget = errors.New("memory request exceeds the whole budget")

// Evictor frees memory (by releasing reservations) on behalf of the head
// waiter, which needs need more bytes than are free. keep is the waiter's
// tag (see AcquireKeeping): the evictor must not free what the waiter is
// waiting to use. It returns, when it could free more later (an entry
// becomes old enough to evict), the time to ask again; a zero time means
// nothing will become evictable without some other change, which Poke
// signals.
type Evictor func(need int64, keep string) (retryAt time.Time)

// Budget is a byte budget with priority-ordered waiters.
type Budget struct {
	total int64

	mu   sync.Mutex
	used int64
	// reserve bytes are held back for requests of priority reservePrio or
	// more; usedHigh is what such requests hold now (it counts against
	// the reserve first).
	reserve     int64
	reservePrio int
	usedHigh    int64
	peak        int64
	seq         uint64
	waiters     []*waiter // sorted: priority desc, seq asc
	evictor     Evictor
	onChange    func(used int64)
}

type waiter struct {
	n       int64
	prio    int
	high    bool // may use the reserve
	seq     uint64
	keep    string
	granted bool
	ready   chan struct{} // closed on grant
	kick    chan struct{} // buffered(1): "you are the head and do not fit"
}

// New returns a budget of total bytes.
func New(total int64) *Budget {
	if total < 0 {
		total = 0
	}
	return &Budget{total: total}
}

// SetOnChange installs a function told of every change of Used, with the
// new value. It runs with the budget's lock held, so it must be quick and
// must not call the budget. Call it once, before the budget is shared (the
// daemon keeps the Go heap's soft limit just above what is reserved).
func (b *Budget) SetOnChange(fn func(used int64)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onChange = fn
}

// SetEvictor installs the function asked to free memory when a request
// does not fit. Call it once, before the budget is shared.
func (b *Budget) SetEvictor(e Evictor) {
	b.mu.Lock()
	b.evictor = e
	b.mu.Unlock()
}

// Total is the size of the budget.
func (b *Budget) Total() int64 { return b.total }

// SetReserve holds n bytes back for requests of priority prio or more:
// a request of lower priority is granted only while it leaves
// n − (what requests of priority ≥ prio hold now) bytes free, so urgent
// work finds its memory at once even when ordinary work would fill the
// budget. n is capped to the budget. Call it once, before the budget is
// shared.
func (b *Budget) SetReserve(n int64, prio int) {
	b.mu.Lock()
	b.reserve = min(max(n, 0), b.total)
	b.reservePrio = prio
	b.mu.Unlock()
}

// Reserve is the reserved amount and the priority that may use it.
func (b *Budget) Reserve() (n int64, prio int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.reserve, b.reservePrio
}

// Capacity is the most one request of priority prio can ever be granted:
// the budget, less the reserve for requests below its priority.
func (b *Budget) Capacity(prio int) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reserve > 0 && prio < b.reservePrio {
		return b.total - b.reserve
	}
	return b.total
}

// high says whether a request of priority prio may use the reserve.
func (b *Budget) high(prio int) bool { return b.reserve > 0 && prio >= b.reservePrio }

// freeForLocked is what a request of priority prio could be granted now.
func (b *Budget) freeForLocked(prio int) int64 {
	free := b.total - b.used
	if b.reserve > 0 && prio < b.reservePrio {
		free -= max(0, b.reserve-b.usedHigh)
	}
	return free
}

// Used is the number of bytes reserved now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Peak is the highest Used since New or the last ResetPeak.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// ResetPeak sets Peak to the current Used.
func (b *Budget) ResetPeak() {
	b.mu.Lock()
	b.peak = b.used
	b.mu.Unlock()
}

// Waiting is the number of requests waiting for memory.
func (b *Budget) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}

// TryAcquire reserves n bytes if they are free now and nobody is waiting
// ahead; it never evicts or blocks.
// It has the lowest priority: it never takes reserved bytes.
func (b *Budget) TryAcquire(n int64) (*Reservation, bool) {
	if n < 0 {
		panic("budget: negative request")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.waiters) > 0 || n > b.freeForLocked(minPrio) {
		return nil, false
	}
	b.grantLocked(n, false)
	return &Reservation{b: b, n: n}, true
}

// minPrio is below every priority a caller passes.
const minPrio = -1 << 31

// Acquire reserves n bytes, waiting until they are free. Requests of higher
// prio are served first, equal ones in arrival order. It fails at once with
// ErrExceedsBudget when n exceeds the whole budget, and with ctx's error when
// ctx ends first (nothing is then reserved).
func (b *Budget) Acquire(ctx context.Context, n int64, prio int) (*Reservation, error) {
	return b.AcquireKeeping(ctx, n, prio, "")
}

// AcquireKeeping is Acquire for a caller that waits in order to use
// something the evictor could free: while this request is the head
// waiter, the evictor is asked to keep the thing tagged keep.
func (b *Budget) AcquireKeeping(ctx context.Context, n int64, prio int, keep string) (*Reservation, error) {
	if n < 0 {
		panic("budget: negative request")
	}
	if c := b.Capacity(prio); n > c {
		if c < b.total {
			return nil, fmt.Errorf("%w: need %s, budget is %s of which %s are reserved for urgent work", ErrExceedsBudget,
				bytesize.Format(n), bytesize.Format(b.total), bytesize.Format(b.total-c))
		}
		return nil, fmt.Errorf("%w: need %s, budget is %s", ErrExceedsBudget, bytesize.Format(n), bytesize.Format(b.total))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.seq++
	w := &waiter{n: n, prio: prio, high: b.high(prio), seq: b.seq, keep: keep, ready: make(chan struct{}), kick: make(chan struct{}, 1)}
	b.insertLocked(w)
	b.dispatchLocked()
	b.mu.Unlock()

	var timer *time.Timer
	var timerC <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-w.ready:
			return &Reservation{b: b, n: n, high: w.high}, nil
		case <-ctx.Done():
			b.mu.Lock()
			if w.granted {
				// Granted in the race with cancellation: give it back.
				b.releaseLocked(n, w.high)
			} else {
				b.removeLocked(w)
			}
			b.dispatchLocked()
			b.mu.Unlock()
			return nil, ctx.Err()
		case <-w.kick:
		case <-timerC:
			timerC = nil
		}
		// A kick or the timer can race with a grant (select picks at
		// random among ready cases), and a waiter kicked as head may have
		// been overtaken since. Only a head that still does not fit asks
		// the evictor, outside the lock; then dispatch decides.
		b.mu.Lock()
		if w.granted {
			b.mu.Unlock()
			return &Reservation{b: b, n: n, high: w.high}, nil
		}
		ev, free := b.evictor, b.freeForLocked(w.prio)
		head := b.waiters[0] == w
		b.mu.Unlock()
		if ev == nil || !head || w.n <= free {
			b.mu.Lock()
			b.dispatchQuietLocked()
			b.mu.Unlock()
			continue
		}
		if retryAt := ev(w.n-free, w.keep); !retryAt.IsZero() {
			d := max(time.Until(retryAt), time.Millisecond)
			if timer == nil {
				timer = time.NewTimer(d)
			} else {
				timer.Reset(d)
			}
			timerC = timer.C
		}
		// Grant what now fits, but do not kick this waiter again for the
		// eviction it just tried: only a new event (release, Poke, the
		// timer) makes another attempt worthwhile.
		b.mu.Lock()
		b.dispatchQuietLocked()
		b.mu.Unlock()
	}
}

// Poke tells the budget that memory may have become evictable (a parameter
// set lost its last user), so a waiting head should ask the evictor again.
func (b *Budget) Poke() {
	b.mu.Lock()
	b.dispatchLocked()
	b.mu.Unlock()
}

func (b *Budget) insertLocked(w *waiter) {
	i := len(b.waiters)
	for i > 0 {
		p := b.waiters[i-1]
		if p.prio > w.prio || (p.prio == w.prio && p.seq < w.seq) {
			break
		}
		i--
	}
	b.waiters = append(b.waiters, nil)
	copy(b.waiters[i+1:], b.waiters[i:])
	b.waiters[i] = w
}

func (b *Budget) removeLocked(w *waiter) {
	for i, x := range b.waiters {
		if x == w {
			b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
			return
		}
	}
}

// dispatchLocked grants waiters from the head while they fit and kicks the
// first one that does not, so it asks the evictor.
func (b *Budget) dispatchLocked() { b.dispatch(true) }

// dispatchQuietLocked grants what fits without kicking the head.
func (b *Budget) dispatchQuietLocked() { b.dispatch(false) }

func (b *Budget) dispatch(kick bool) {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if w.n > b.freeForLocked(w.prio) {
			if kick {
				select {
				case w.kick <- struct{}{}:
				default:
				}
			}
			return
		}
		b.waiters = b.waiters[1:]
		b.grantLocked(w.n, w.high)
		w.granted = true
		close(w.ready)
	}
}

func (b *Budget) grantLocked(n int64, high bool) {
	b.used += n
	if high {
		b.usedHigh += n
	}
	if b.used > b.peak {
		b.peak = b.used
	}
	if b.onChange != nil {
		b.onChange(b.used)
	}
}

func (b *Budget) releaseLocked(n int64, high bool) {
	b.used -= n
	if high {
		b.usedHigh -= n
	}
	if b.used < 0 {
		panic("budget: released more than reserved")
	}
	if b.onChange != nil {
		b.onChange(b.used)
	}
}

// Reservation is memory granted by a Budget. It is safe for concurrent use.
type Reservation struct {
	b    *Budget
	mu   sync.Mutex
	n    int64
	high bool // granted at a priority that may use the reserve
}

// Remaining is the number of bytes still held.
func (r *Reservation) Remaining() int64 {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// Release returns n of the held bytes (for example a partition's a/b/c
// vectors once the prover has consumed them). It panics if n exceeds what
// is held.
func (r *Reservation) Release(n int64) {
	if n == 0 || r == nil {
		return
	}
	r.mu.Lock()
	if n < 0 || n > r.n {
		r.mu.Unlock()
		panic(fmt.Sprintf("budget: release of %d bytes from a reservation holding %d", n, r.n))
	}
	r.n -= n
	r.mu.Unlock()
	r.b.mu.Lock()
	r.b.releaseLocked(n, r.high)
	r.b.dispatchLocked()
	r.b.mu.Unlock()
}

// Close returns everything still held. It is idempotent and nil-safe.
func (r *Reservation) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	n := r.n
	r.n = 0
	r.mu.Unlock()
	if n > 0 {
		r.b.mu.Lock()
		r.b.releaseLocked(n, r.high)
		r.b.dispatchLocked()
		r.b.mu.Unlock()
	}
}

// Split moves n of the held bytes into a new reservation, which the caller
// then owns (for example the parameter part of a combined request).
func (r *Reservation) Split(n int64) *Reservation {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n < 0 || n > r.n {
		panic(fmt.Sprintf("budget: split of %d bytes from a reservation holding %d", n, r.n))
	}
	r.n -= n
	return &Reservation{b: r.b, n: n, high: r.high}
}
