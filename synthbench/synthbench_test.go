package synthbench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Every constraint system measures the same circuit shape, one iteration
// per partition and round, in order.
func TestRun(t *testing.T) {
	parts := []r1cs.Circuit{testcircuits.Cubic{X: 3}, testcircuits.Cubic{X: 4}}
	counted, err := r1cs.Synthesize(parts[0], r1cs.Counter{})
	if err != nil {
		t.Fatal(err)
	}
	want := counted.Size()
	for _, name := range []string{"proving", "templated", "witness", "count"} {
		kind, err := ParseCSKind(name)
		if err != nil {
			t.Fatal(err)
		}
		rss := 0
		var seen []Iteration
		its, err := Run(context.Background(), parts, Options{CS: kind, Iterations: 2, Partition: -1, PeakRSS: func() uint64 { rss++; return 7 }},
			func(it Iteration) { seen = append(seen, it) })
		if err != nil || len(its) != 4 || len(seen) != 4 || rss != 4 {
			t.Fatalf("%s: %v, %d iterations, %d reported, %d RSS reads", kind, err, len(its), len(seen), rss)
		}
		for i, it := range its {
			if it.Iteration != i/2 || it.Partition != i%2 || it.CS != kind || it.Constraints != want.Constraints || it.Inputs != want.Inputs ||
				it.Aux != want.Aux || it.WallNs <= 0 || it.NsPerRow <= 0 || it.PeakRSS != 7 || seen[i] != it {
				t.Errorf("%s: iteration %d: %+v, shape %+v", kind, i, it, want)
			}
		}
	}
	if its, err := Run(context.Background(), parts, Options{CS: CSCount, Partition: 1}, nil); err != nil || len(its) != 1 || its[0].Partition != 1 || its[0].PeakRSS != 0 {
		t.Fatalf("%v %+v", err, its)
	}
	if _, err := Run(context.Background(), parts, Options{CS: CSCount, Partition: 2}, nil); err == nil {
		t.Fatal("partition 2 of 2 accepted")
	}
	if _, err := Run(context.Background(), nil, Options{CS: CSCount, Partition: -1}, nil); err == nil {
		t.Fatal("no circuits accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, parts, Options{CS: CSCount, Partition: -1}, nil); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if _, err := ParseCSKind("bogus"); err == nil {
		t.Fatal("bogus accepted")
	}
}

// The memory guard refuses a run the machine cannot hold, naming how to
// make it smaller, unless forced.
func TestMemoryGuard(t *testing.T) {
	if _, ok := memAvailable(); !ok {
		t.Skip("no /proc/meminfo")
	}
	if err := MemoryGuard(false)(1 << 62); err == nil || !strings.Contains(err.Error(), "--challenges") {
		t.Errorf("guard let 4 EiB through: %v", err)
	}
	if err := MemoryGuard(true)(1 << 62); err != nil {
		t.Errorf("--force: %v", err)
	}
}
