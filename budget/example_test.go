package budget_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
)

// One budget covers every large allocation of a proof (parameters,
// working sets): a request waits until its bytes are free, urgent ones
// first, and a part is returned as soon as it is no longer needed, so
// the process never holds more than the budget says.
func Example() {
	const GiB = 1 << 30
	b := budget.New(10 * GiB)
	b.SetReserve(1*GiB, 3) // held back for priority 3 and above

	ctx := context.Background()
	work, err := b.Acquire(ctx, 8*GiB, 1) // a partition's working set
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("used %d GiB; a priority-1 request may still take %d GiB, a priority-3 one %d GiB\n",
		b.Used()/GiB, (b.Capacity(1)-b.Used())/GiB, (b.Capacity(3)-b.Used())/GiB)

	// A second partition waits for memory until the first returns some
	// (its a, b, c vectors once the prover has consumed them).
	got := make(chan *budget.Reservation)
	go func() {
		r, err := b.Acquire(ctx, 3*GiB, 1)
		if err != nil {
			log.Fatal(err)
		}
		got <- r
	}()
	for b.Waiting() == 0 {
		time.Sleep(time.Millisecond)
	}
	fmt.Println("waiting:", b.Waiting())
	work.Release(2 * GiB)
	second := <-got
	fmt.Printf("granted; used %d GiB, the first holds %d GiB\n", b.Used()/GiB, work.Remaining()/GiB)

	// More than the budget can ever hold fails at once.
	_, err = b.Acquire(ctx, 11*GiB, 1)
	fmt.Println(errors.Is(err, budget.ErrExceedsBudget), err)

	work.Close()
	second.Close()
	fmt.Printf("used %d GiB, peak %d GiB\n", b.Used()/GiB, b.Peak()/GiB)
	// Output:
	// used 8 GiB; a priority-1 request may still take 1 GiB, a priority-3 one 2 GiB
	// waiting: 1
	// granted; used 9 GiB, the first holds 6 GiB
	// true memory request exceeds the whole budget: need 11GiB, budget is 10GiB of which 1GiB are reserved for urgent work
	// used 0 GiB, peak 9 GiB
}
