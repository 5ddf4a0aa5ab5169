package ntt

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
)

// cpuTime is the process's user+system time: on the shared 2-core machine
// wall time is mostly the neighbours' load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTransform compares one forward transform against gnark-crypto's
// (with its precomputed tables, built outside the timing) at 2^18 and 2^22,
// reporting CPU time next to wall time. Run both sides in one invocation so
// that they alternate under the same load:
//
//	go test -run '^$' -bench Transform -count 5 ./internal/ntt
func BenchmarkTransform(b *testing.B) {
	for _, lg := range []int{18, 22} {
		n := 1 << lg
		v := randomVector(n, 1)
		d, _ := New(n, 2)
		compact, _ := newDomain(n, 2, n/8, d.vec) // as 2^27 runs: a quarter of the table
		ref := fft.NewDomain(uint64(n))
		run := func(name string, f func()) {
			b.Run(fmt.Sprintf("%s/2^%d", name, lg), func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					f()
				}
				b.ReportMetric(float64(cpuTime()-c0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
		run("DIF/ntt", func() { d.DIF(v, 2) })
		run("DIF/gnark", func() { ref.FFT(v, fft.DIF, fft.WithNbTasks(2)) })
		run("DIF/ntt-compact", func() { compact.DIF(v, 2) })
		run("DIT/ntt", func() { d.DIT(v, nil, 2) })
		run("DIT/gnark", func() { ref.FFT(v, fft.DIT, fft.WithNbTasks(2)) })
	}
}
