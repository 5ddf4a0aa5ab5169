package circuit

import (
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/r1cs"
)

func TestScratchCount(t *testing.T) {
	for _, sz := range []uint64{2 << 10, 8 << 20, 32 << 30, 64 << 30} {
		p, err := ParamsFor(sz)
		if err != nil {
			t.Fatal(err)
		}
		u, err := Blank(p)
		if err != nil {
			t.Fatal(err)
		}
		st := time.Now()
		cs, err := r1cs.Synthesize(u, r1cs.Counter{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d: %+v %v", sz, cs.Shape(), time.Since(st))
	}
}
