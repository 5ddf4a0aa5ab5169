package par

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestChunksCoverOnce(t *testing.T) {
	for _, c := range []struct{ n, size, workers int }{
		{0, 4, 3}, {1, 4, 3}, {10, 3, 1}, {10, 3, 4}, {1000, 7, 16}, {64, 64, 8}, {5, 0, -1},
	} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			hits := make([]atomic.Int32, c.n)
			var calls atomic.Int32
			Chunks(c.n, c.size, c.workers, func(lo, hi int) {
				calls.Add(1)
				if lo >= hi || hi > c.n || (c.size > 0 && hi-lo > c.size) {
					t.Errorf("bad chunk [%d,%d)", lo, hi)
				}
				for i := lo; i < hi; i++ {
					hits[i].Add(1)
				}
			})
			for i := range hits {
				if h := hits[i].Load(); h != 1 {
					t.Fatalf("item %d run %d times", i, h)
				}
			}
			if size := max(c.size, 1); c.n > 0 && int(calls.Load()) != (c.n+size-1)/size {
				t.Fatalf("%d chunks", calls.Load())
			}
		})
	}
}

func TestDoLowestError(t *testing.T) {
	errAt := func(k int) error { return fmt.Errorf("chunk at %d", k) }
	for _, workers := range []int{1, 4} {
		var started atomic.Int32
		err := Do(context.Background(), 100, 10, workers, func(lo, hi int) error {
			started.Add(1)
			if lo == 30 || lo == 70 {
				return errAt(lo)
			}
			return nil
		})
		// With one worker chunks run in order, so chunk 3 fails first and
		// stops the hand-out; with more, chunk 7 may fail too, but the
		// lowest failure is reported either way.
		if err == nil || err.Error() != errAt(30).Error() {
			t.Fatalf("workers %d: got %v", workers, err)
		}
		if workers == 1 && started.Load() != 4 {
			t.Fatalf("one worker ran %d chunks after the failure at chunk 3", started.Load())
		}
	}
	if err := Do(context.Background(), 100, 10, 3, func(int, int) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestDoCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Do(ctx, 1000, 1, 2, func(lo, hi int) error {
		if ran.Add(1) == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	if n := ran.Load(); n >= 1000 || n < 5 {
		t.Fatalf("%d chunks ran", n)
	}
}
