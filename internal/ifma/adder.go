package ifma

import (
	"fmt"
	"unsafe"
)

// prefetchSlack is how many pointers past a batch the forward kernels
// read: they prefetch prefetchGroups (4) groups ahead.
const prefetchSlack = 32

// point is what the adder needs of gnark-crypto's affine point types.
type point[P any] interface {
	*P
	Add(a, b *P) *P
	Neg(a *P) *P
	IsInfinity() bool
}

// Adder performs batches of independent affine additions acc += ±q on 8
// lanes with one scalar inversion per batch (Montgomery's trick, one chain
// per lane), in G1 (G1Adder) or G2 (G2Adder). Memory: the kernels' state
// (2 KiB per 8 queued G1 additions, 4 KiB in G2) and 18 bytes of pointers
// and flags per addition, allocated once.
//
// Contract of Add: acc and q are not the point at infinity (the caller
// handles those: adding infinity does nothing, an accumulator at infinity
// takes ±q), and no accumulator is queued twice in one batch. Additions
// whose operands have equal x (acc = ±q) are done with gnark-crypto's
// complete formula after the batch.
type Adder[P any, PP point[P], Grp, Work any] struct {
	forward  func(accs, qs *unsafe.Pointer, grp *Grp, zero *uint8, work *Work, n int)
	backward func(accs, qs *unsafe.Pointer, neg *uint8, grp *Grp, zero *uint8, work *Work, n int)
	runOne   func(*Work)      // the lanes' running products := 1
	invert   func(*Work)      // the lanes' products := their inverses
	accs, qs []unsafe.Pointer // 8 per group, plus prefetchSlack
	neg      []uint8          // per group: lanes whose q is negated
	zero     []uint8          // per group: lanes with equal x (from the kernel)
	grp      []Grp
	work     Work
	n        int
	// Padding of the last group: accumulators and a point that no real
	// entry aliases, with distinct x.
	padAcc  [8]P
	padQ    P
	padInit P
	inf     []*P
}

func newAdder[P any, PP point[P], Grp, Work any](capacity int,
	forward func(accs, qs *unsafe.Pointer, grp *Grp, zero *uint8, work *Work, n int),
	backward func(accs, qs *unsafe.Pointer, neg *uint8, grp *Grp, zero *uint8, work *Work, n int),
	runOne, invert func(*Work), padAcc, padQ P) *Adder[P, PP, Grp, Work] {
	groups := max(1, (capacity+7)/8)
	a := &Adder[P, PP, Grp, Work]{
		forward: forward, backward: backward, runOne: runOne, invert: invert,
		accs:    make([]unsafe.Pointer, 8*groups+prefetchSlack),
		qs:      make([]unsafe.Pointer, 8*groups+prefetchSlack),
		neg:     make([]uint8, groups),
		zero:    make([]uint8, groups),
		grp:     make([]Grp, groups),
		padQ:    padQ,
		padInit: padAcc,
	}
	a.clearPointers(len(a.accs))
	return a
}

func (a *Adder[P, PP, Grp, Work]) clearPointers(n int) {
	for i := 0; i < n; i++ {
		a.accs[i], a.qs[i] = unsafe.Pointer(&a.padQ), unsafe.Pointer(&a.padQ)
	}
}

// Cap is the most additions one batch holds.
func (a *Adder[P, PP, Grp, Work]) Cap() int { return 8 * len(a.grp) }

// Len is the number of additions queued.
func (a *Adder[P, PP, Grp, Work]) Len() int { return a.n }

// Add queues acc += q (acc += −q with negate); see the type's contract.
// It panics when the batch is full (Len == Cap): Flush first.
func (a *Adder[P, PP, Grp, Work]) Add(acc, q *P, negate bool) {
	if a.n == a.Cap() {
		panic(fmt.Sprintf("ifma: adder full (%d additions)", a.n))
	}
	g, l := a.n/8, a.n%8
	if l == 0 {
		a.neg[g] = 0
	}
	a.accs[a.n], a.qs[a.n] = unsafe.Pointer(acc), unsafe.Pointer(q)
	if negate {
		a.neg[g] |= 1 << l
	}
	a.n++
}

// Flush performs the queued additions and empties the batch. It returns
// the accumulators whose sum was the point at infinity (only possible
// for acc = −q; the slice is reused by the next Flush).
func (a *Adder[P, PP, Grp, Work]) Flush() []*P {
	a.inf = a.inf[:0]
	if a.n == 0 {
		return a.inf
	}
	groups := (a.n + 7) / 8
	for i := a.n; i < 8*groups; i++ {
		l := i % 8
		a.padAcc[l] = a.padInit
		a.accs[i], a.qs[i] = unsafe.Pointer(&a.padAcc[l]), unsafe.Pointer(&a.padQ)
		a.neg[i/8] &^= 1 << l
	}
	a.runOne(&a.work)
	a.forward(&a.accs[0], &a.qs[0], &a.grp[0], &a.zero[0], &a.work, groups)
	a.invert(&a.work)
	a.backward(&a.accs[0], &a.qs[0], &a.neg[0], &a.grp[0], &a.zero[0], &a.work, groups)
	for g := 0; g < groups; g++ {
		for z := a.zero[g]; z != 0; z &= z - 1 {
			i := 8*g + trailingZeros8(z)
			if i >= a.n {
				continue // padding
			}
			acc, q := PP(a.accs[i]), PP(a.qs[i])
			p := *q
			if a.neg[g]&(1<<(i%8)) != 0 {
				PP(&p).Neg(q)
			}
			acc.Add(acc, &p)
			if acc.IsInfinity() {
				a.inf = append(a.inf, (*P)(acc))
			}
		}
	}
	// Drop the references to the batch's points (the slack keeps padQ).
	a.clearPointers(8 * groups)
	a.n = 0
	return a.inf
}
