package budget

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func acquireAsync(b *Budget, ctx context.Context, n int64, prio int) chan *Reservation {
	ch := make(chan *Reservation, 1)
	go func() {
		r, err := b.Acquire(ctx, n, prio)
		if err != nil {
			close(ch)
			return
		}
		ch <- r
	}()
	return ch
}

func waitWaiting(t *testing.T, b *Budget, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for b.Waiting() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters, want %d", b.Waiting(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestExceedsBudgetFailsAtOnce(t *testing.T) {
	b := New(100)
	_, err := b.Acquire(context.Background(), 101, 0)
	if !errors.Is(err, ErrExceedsBudget) {
		t.Fatalf("err = %v", err)
	}
	r, err := b.Acquire(context.Background(), 100, 0)
	if err != nil || b.Used() != 100 {
		t.Fatal(err, b.Used())
	}
	r.Close()
	if b.Used() != 0 {
		t.Fatal(b.Used())
	}
}

func TestWaitersServedByPriorityThenArrival(t *testing.T) {
	b := New(10)
	hold, _ := b.TryAcquire(10)
	ctx := context.Background()
	order := make(chan string, 4)
	start := func(name string, prio int) {
		go func() {
			r, err := b.Acquire(ctx, 10, prio)
			if err != nil {
				t.Error(err)
				return
			}
			order <- name
			time.Sleep(time.Millisecond)
			r.Close()
		}()
	}
	start("low", 1)
	waitWaiting(t, b, 1)
	start("normal1", 2)
	waitWaiting(t, b, 2)
	start("critical", 4)
	waitWaiting(t, b, 3)
	start("normal2", 2)
	waitWaiting(t, b, 4)
	hold.Close()
	want := []string{"critical", "normal1", "normal2", "low"}
	for _, w := range want {
		if got := <-order; got != w {
			t.Fatalf("got %s, want %s", got, w)
		}
	}
}

// TestHeadIsNotStarved: a small request that would fit does not overtake a
// larger one of the same priority waiting before it.
func TestHeadIsNotStarved(t *testing.T) {
	b := New(10)
	hold, _ := b.TryAcquire(6)
	big := acquireAsync(b, context.Background(), 8, 0)
	waitWaiting(t, b, 1)
	small := acquireAsync(b, context.Background(), 2, 0)
	waitWaiting(t, b, 2)
	if _, ok := b.TryAcquire(1); ok {
		t.Fatal("TryAcquire jumped the queue")
	}
	select {
	case <-small:
		t.Fatal("small request overtook the waiting head")
	case <-time.After(20 * time.Millisecond):
	}
	hold.Close()
	rb := <-big
	rs := <-small
	if b.Used() != 10 {
		t.Fatal(b.Used())
	}
	rb.Close()
	rs.Close()
}

func TestCancelledWaiterLeavesQueue(t *testing.T) {
	b := New(10)
	hold, _ := b.TryAcquire(10)
	ctx, cancel := context.WithCancel(context.Background())
	first := acquireAsync(b, ctx, 10, 5)
	waitWaiting(t, b, 1)
	second := acquireAsync(b, context.Background(), 4, 0)
	waitWaiting(t, b, 2)
	cancel()
	if r, ok := <-first; ok {
		t.Fatalf("cancelled waiter got %v", r)
	}
	waitWaiting(t, b, 1)
	hold.Close()
	r := <-second
	if b.Used() != 4 {
		t.Fatal(b.Used())
	}
	r.Close()
}

func TestEvictorAndRetryAt(t *testing.T) {
	b := New(10)
	pinned, _ := b.TryAcquire(8) // an "idle parameter set"
	var calls atomic.Int32
	ready := time.Now().Add(80 * time.Millisecond)
	var mu sync.Mutex
	b.SetEvictor(func(need int64, _ string) time.Time {
		calls.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if time.Now().Before(ready) {
			return ready
		}
		if pinned != nil {
			pinned.Close()
			pinned = nil
		}
		return time.Time{}
	})
	start := time.Now()
	r, err := b.Acquire(context.Background(), 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 70*time.Millisecond {
		t.Fatalf("granted after %v, before the entry became evictable", el)
	}
	if c := calls.Load(); c < 2 || c > 6 {
		t.Fatalf("evictor called %d times", c)
	}
	r.Close()
	if b.Used() != 0 {
		t.Fatal(b.Used())
	}
}

func TestPokeRetriesEviction(t *testing.T) {
	b := New(10)
	held, _ := b.TryAcquire(10)
	var evictable atomic.Bool
	b.SetEvictor(func(need int64, _ string) time.Time {
		if evictable.Load() {
			held.Close()
		}
		return time.Time{} // nothing will become evictable by itself
	})
	got := acquireAsync(b, context.Background(), 10, 0)
	waitWaiting(t, b, 1)
	select {
	case <-got:
		t.Fatal("granted without eviction")
	case <-time.After(20 * time.Millisecond):
	}
	evictable.Store(true)
	b.Poke()
	select {
	case r := <-got:
		r.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("Poke did not lead to eviction")
	}
}

func TestReservationAccounting(t *testing.T) {
	b := New(100)
	r, _ := b.TryAcquire(60)
	r.Release(10)
	s := r.Split(20)
	if r.Remaining() != 30 || s.Remaining() != 20 || b.Used() != 50 {
		t.Fatal(r.Remaining(), s.Remaining(), b.Used())
	}
	if b.Peak() != 60 {
		t.Fatal(b.Peak())
	}
	s.Close()
	s.Close()
	r.Close()
	if b.Used() != 0 {
		t.Fatal(b.Used())
	}
	defer func() {
		if recover() == nil {
			t.Fatal("over-release did not panic")
		}
	}()
	r.Release(1)
}

func TestConcurrentStress(t *testing.T) {
	b := New(1000)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(3))*time.Millisecond)
				r, err := b.Acquire(ctx, int64(rng.IntN(600)), rng.IntN(4))
				cancel()
				if err != nil {
					continue
				}
				if u := b.Used(); u > 1000 {
					t.Errorf("used %d over the budget", u)
				}
				if n := r.Remaining(); n > 1 {
					r.Release(n / 2)
				}
				r.Close()
			}
		}()
	}
	wg.Wait()
	if b.Used() != 0 || b.Waiting() != 0 || b.Peak() > 1000 {
		t.Fatalf("used %d waiting %d peak %d", b.Used(), b.Waiting(), b.Peak())
	}
}

// TestGrantedWaiterDoesNotEvict: a waiter granted while it was asking the
// evictor, with another "do not fit" kick pending, returns its reservation
// instead of asking the evictor again for memory it no longer needs.
func TestGrantedWaiterDoesNotEvict(t *testing.T) {
	for run := range 20 {
		b := New(10)
		held, _ := b.TryAcquire(6)
		var calls atomic.Int32
		inEvictor := make(chan struct{})
		resume := make(chan struct{})
		b.SetEvictor(func(need int64, _ string) time.Time {
			if calls.Add(1) == 1 {
				close(inEvictor)
				<-resume
			}
			return time.Time{}
		})
		got := acquireAsync(b, context.Background(), 5, 0)
		<-inEvictor
		b.Poke()        // a kick for the head, which does not fit yet
		held.Release(2) // now it fits: granted while in the evictor
		close(resume)
		r := <-got
		if r == nil {
			t.Fatal("not granted")
		}
		if n := calls.Load(); n != 1 {
			t.Fatalf("run %d: evictor called %d times; the granted waiter evicted again", run, n)
		}
		r.Close()
		held.Close()
	}
}

// TestOnlyTheHeadEvicts: a waiter that was kicked as head but has been
// overtaken by a higher-priority request since leaves eviction to the new
// head; the evictor hears each waiter's keep tag.
func TestOnlyTheHeadEvicts(t *testing.T) {
	b := New(10)
	held, _ := b.TryAcquire(8)
	var mu sync.Mutex
	calls := map[string]int{}
	inEvictor := make(chan struct{})
	resume := make(chan struct{})
	b.SetEvictor(func(need int64, keep string) time.Time {
		mu.Lock()
		calls[keep]++
		first := calls[keep] == 1 && keep == "low"
		mu.Unlock()
		if first {
			close(inEvictor)
			<-resume
		}
		return time.Time{}
	})
	low := make(chan *Reservation, 1)
	go func() {
		r, _ := b.AcquireKeeping(context.Background(), 5, 0, "low")
		low <- r
	}()
	<-inEvictor
	b.Poke() // kicks "low", the head for now
	high := make(chan *Reservation, 1)
	go func() {
		r, _ := b.AcquireKeeping(context.Background(), 5, 9, "high")
		high <- r
	}()
	waitWaiting(t, b, 2)
	close(resume)
	time.Sleep(20 * time.Millisecond) // "low" acts on its stale kick
	mu.Lock()
	got := maps.Clone(calls)
	mu.Unlock()
	if got["low"] != 1 || got["high"] < 1 {
		t.Fatalf("evictor calls by tag %v: want low once (before it was overtaken), high at least once", got)
	}
	held.Close()
	rh := <-high
	rh.Close()
	rl := <-low
	rl.Close()
	if b.Used() != 0 {
		t.Fatal(b.Used())
	}
}

// TestReserve: requests below the reserve's priority leave the reserve
// free; urgent requests may use it and count against it first, also
// through Split and partial Release; a request that only the reserve
// could hold fails at once.
func TestReserve(t *testing.T) {
	b := New(100)
	b.SetReserve(30, 10)
	if n, p := b.Reserve(); n != 30 || p != 10 || b.Capacity(5) != 70 || b.Capacity(10) != 100 {
		t.Fatalf("reserve %d at %d, capacities %d and %d", n, p, b.Capacity(5), b.Capacity(10))
	}
	ctx := context.Background()
	if _, err := b.Acquire(ctx, 71, 5); !errors.Is(err, ErrExceedsBudget) {
		t.Fatalf("71 of 70 at normal priority: %v", err)
	}
	normal, err := b.Acquire(ctx, 70, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.TryAcquire(1); ok {
		t.Fatal("TryAcquire took reserved memory")
	}
	// A normal waiter does not get the reserve even when it is the head.
	late := acquireAsync(b, ctx, 10, 5)
	waitWaiting(t, b, 1)
	urgent, err := b.Acquire(ctx, 20, 10)
	if err != nil || b.Used() != 90 {
		t.Fatalf("urgent request: %v, used %d", err, b.Used())
	}
	select {
	case <-late:
		t.Fatal("normal waiter granted from the reserve")
	default:
	}
	// The urgent part splits off (parameters kept resident) and the rest
	// goes back: 10 reserved bytes stay held, 20 are held back, none free.
	params := urgent.Split(10)
	urgent.Close()
	select {
	case <-late:
		t.Fatal("normal waiter granted from the reserve")
	case <-time.After(20 * time.Millisecond):
	}
	normal.Release(10)
	r := <-late
	if r == nil || b.Used() != 80 {
		t.Fatalf("late waiter not granted when normal memory was freed (used %d)", b.Used())
	}
	params.Close()
	r.Close()
	normal.Close()
	if b.Used() != 0 || b.usedHigh != 0 {
		t.Fatalf("used %d, urgent %d after closing everything", b.Used(), b.usedHigh)
	}
}

// TestOnChange: the hook sees every grant and release with the new total.
func TestOnChange(t *testing.T) {
	b := New(100)
	var seen []int64
	b.SetOnChange(func(used int64) { seen = append(seen, used) })
	r, ok := b.TryAcquire(30)
	if !ok {
		t.Fatal("not granted")
	}
	r.Release(10)
	r.Close()
	if fmt.Sprint(seen) != "[30 20 0]" {
		t.Fatalf("seen %v", seen)
	}
}
