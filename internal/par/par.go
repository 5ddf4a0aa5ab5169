// Package par is cuzk's one parallel-for. A static split of [0, n) into one
// contiguous range per worker is gnark-crypto's parallel.Execute, which
// callers use directly. This package adds, on top of it, the two things
// Execute lacks:
//
//   - [Chunks]: fixed-size chunks handed out on demand, for loops whose cost
//     varies from chunk to chunk (MSM chunks of different density, fixed-base
//     batches, point decoding) so that no worker idles while another still
//     holds a long static range;
//   - [Do]: the same with a context checked before every chunk and a body that
//     can fail; the first failure or cancellation stops the hand-out.
//
// Both run the body inline, without a goroutine, when one worker suffices.
package par

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/consensys/gnark-crypto/parallel"
)

// Chunks runs fn over [0, n) in chunks [lo, hi) of size items (the last one
// shorter), handed out in order to at most workers goroutines; workers < 1
// means 1. It returns when every chunk is done.
func Chunks(n, size, workers int, fn func(lo, hi int)) {
	run(n, size, workers, func(_, lo, hi int) bool {
		fn(lo, hi)
		return true
	})
}

// Do is Chunks for a body that can fail, under ctx. ctx is checked before
// each chunk; after the first error or cancellation no further chunk starts
// (chunks already running finish). It returns the error of the lowest-indexed
// chunk that failed, which is ctx.Err() if that chunk found ctx done, so the
// error is deterministic whenever fn's failures are; nil when all succeeded.
func Do(ctx context.Context, n, size, workers int, fn func(lo, hi int) error) error {
	var (
		mu       sync.Mutex
		first    = -1
		firstErr error
	)
	run(n, size, workers, func(c, lo, hi int) bool {
		err := ctx.Err()
		if err == nil {
			err = fn(lo, hi)
		}
		if err == nil {
			return true
		}
		mu.Lock()
		if first < 0 || c < first {
			first, firstErr = c, err
		}
		mu.Unlock()
		return false
	})
	return firstErr
}

// run hands chunk indices out through an atomic counter to min(workers,
// chunks) goroutines started by parallel.Execute; fn returning false stops
// the hand-out. Each goroutine drains the counter, so how Execute groups its
// iterations does not matter.
func run(n, size, workers int, fn func(c, lo, hi int) bool) {
	if n <= 0 {
		return
	}
	size = max(size, 1)
	chunks := (n + size - 1) / size
	workers = max(1, min(workers, chunks))
	var next atomic.Int64
	var stop atomic.Bool
	parallel.Execute(workers, func(int, int) {
		for !stop.Load() {
			c := int(next.Add(1) - 1)
			if c >= chunks {
				return
			}
			lo := c * size
			if !fn(c, lo, min(lo+size, n)) {
				stop.Store(true)
			}
		}
	}, workers)
}
