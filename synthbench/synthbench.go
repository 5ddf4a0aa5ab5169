// Package synthbench is the synthesis microbenchmark behind `cuzk bench
// synth`: it synthesises partition circuits (the PoRep circuit of
// porep/circuit, planned from a C1 by porep/c2) into each kind of
// constraint system and measures wall time, allocation and peak memory per
// row; it also builds the synthetic partitions of random inputs shaped as
// each kind's (Synthetic: PoRep, WindowPoSt, WinningPoSt) and measures one
// through the prover's H stage (ThroughH). It benchmarks every kind, so it
// lives under none of them, and apart from the daemon harnesses of package
// bench, which only talk to a daemon.
package synthbench

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// CSKind selects the constraint system the synthesis benchmark fills.
type CSKind string

// The constraint systems `cuzk bench synth --cs` accepts.
const (
	CSProving   CSKind = "proving"   // exact ProvingAssignment (rows built, merged, evaluated; densities)
	CSTemplated CSKind = "templated" // rows evaluated while built, densities from a first exact run
	CSWitness   CSKind = "witness"   // values only, no rows
	CSCount     CSKind = "count"     // counts only
)

// ParseCSKind parses a --cs value.
func ParseCSKind(s string) (CSKind, error) {
	switch k := CSKind(s); k {
	case CSProving, CSTemplated, CSWitness, CSCount:
		return k, nil
	}
	return "", fmt.Errorf("unknown constraint system %q (proving, templated, witness or count)", s)
}

// Iteration is one synthesis of one partition.
type Iteration struct {
	Iteration   int     `json:"iteration"`
	Partition   int     `json:"partition"`
	CS          CSKind  `json:"cs"`
	WallNs      int64   `json:"wall_ns"`
	Constraints int     `json:"constraints"`
	Inputs      int     `json:"inputs"`
	Aux         int     `json:"aux"`
	NsPerRow    float64 `json:"ns_per_constraint"`
	BytesPerRow float64 `json:"bytes_per_constraint"`
	AllocsPerRw float64 `json:"allocs_per_constraint"`
	// PeakRSS is the process's peak resident set after this run, as
	// Options.PeakRSS reads it (VmHWM never decreases from one iteration
	// to the next); 0 without it.
	PeakRSS uint64 `json:"peak_rss_bytes"`
	// UserNs and SysNs are the process's user and system CPU time during
	// the run (getrusage: the garbage collector's workers included), and
	// MinorFaults its page faults. They separate the synthesis itself
	// (user time, flat per row at every size) from the first touch of
	// fresh memory (system time: one fault per 4 KiB page the vectors
	// grow into, which the kernel zeroes and, in a VM, the host may first
	// have to back).
	UserNs      int64 `json:"user_ns"`
	SysNs       int64 `json:"sys_ns"`
	MinorFaults int64 `json:"minor_faults"`
}

// Options configure Run.
type Options struct {
	CS         CSKind
	Iterations int
	Partition  int // -1: every partition
	// OmitC builds proving and templated assignments without c
	// (r1cs.AssignmentOptions.OmitC), as the CPU prover takes them.
	OmitC bool
	// PeakRSS, when set, reads the process's peak resident set after each
	// run (cuzk passes bench.PeakRSS).
	PeakRSS func() uint64
	// Guard, when set, is called once the partition is counted, with the
	// bytes the runs are about to allocate (see Need); its error stops
	// Run before anything large is allocated.
	Guard func(need int64) error
}

// Need is the heap a run of kind allocates for a circuit of size hint: the
// recorded vectors (a, b and, unless omitC, c rows and the assignment, 32
// bytes per element) and the density bitmaps, as ProvingAssignment.Bytes
// counts them. A templated run first needs an exact one for its
// densities, of the same size.
func Need(kind CSKind, hint r1cs.Size, omitC bool) int64 {
	const fr = 32
	vars := int64(hint.Inputs + hint.Aux)
	rowVectors := int64(3)
	if omitC {
		rowVectors = 2
	}
	switch kind {
	case CSProving, CSTemplated:
		return fr*(rowVectors*int64(hint.Constraints)+vars) + 3*vars/8
	case CSWitness:
		return fr * vars
	}
	return 0
}

// Run synthesises the partition circuits (one per partition, e.g. a
// planned C1's) the given number of times, one after another on this
// goroutine, and measures each run. Templated runs get their densities
// from one untimed exact synthesis of the same partition first.
func Run(ctx context.Context, parts []r1cs.Circuit, opt Options, each func(Iteration)) ([]Iteration, error) {
	if opt.Iterations <= 0 {
		opt.Iterations = 1
	}
	var idx []int
	if opt.Partition >= 0 {
		if opt.Partition >= len(parts) {
			return nil, fmt.Errorf("partition %d of %d", opt.Partition, len(parts))
		}
		idx = []int{opt.Partition}
	} else {
		for i := range parts {
			idx = append(idx, i)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("no partition circuits")
	}
	var out []Iteration
	densities := map[int]*r1cs.Densities{}
	// Size every buffer up front, as the engine does from the parameters:
	// otherwise the first run measures slice regrowth, not synthesis.
	counted, err := r1cs.Synthesize(parts[idx[0]], r1cs.Counter{})
	if err != nil {
		return nil, err
	}
	hint := counted.Size()
	hint.Constraints += hint.Inputs // the prover's input rows
	if opt.Guard != nil {
		if err := opt.Guard(Need(opt.CS, hint, opt.OmitC)); err != nil {
			return nil, err
		}
	}
	aopt := r1cs.AssignmentOptions{OmitC: opt.OmitC}
	for it := 0; it < opt.Iterations; it++ {
		for _, k := range idx {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			c := parts[k]
			if opt.CS == CSTemplated && densities[k] == nil {
				pa := r1cs.NewAssignment(hint, nil, aopt)
				if _, err := r1cs.Synthesize(c, pa); err != nil {
					return out, err
				}
				densities[k] = pa.Density
			}
			// Free the previous run's buffers before allocating this one's,
			// so the peak resident set is that of one run.
			runtime.GC()
			var backend r1cs.Sink
			switch opt.CS {
			case CSProving:
				backend = r1cs.NewAssignment(hint, nil, aopt)
			case CSTemplated:
				backend = r1cs.NewAssignment(hint, densities[k], aopt)
			case CSWitness:
				backend = r1cs.NewWitnessAssignment(hint)
			case CSCount:
				backend = r1cs.Counter{}
			default:
				return out, fmt.Errorf("unknown constraint system %q", opt.CS)
			}
			runtime.GC()
			bytes0, allocs0 := heapCounters()
			ru0 := usage()
			t := time.Now()
			cs, err := r1cs.Synthesize(c, backend)
			wall := time.Since(t)
			if err != nil {
				return out, err
			}
			ru1 := usage()
			bytes1, allocs1 := heapCounters()
			shape := cs.Size()
			rows := float64(max(shape.Constraints, 1))
			r := Iteration{
				Iteration: it, Partition: k, CS: opt.CS, WallNs: wall.Nanoseconds(),
				Constraints: shape.Constraints, Inputs: shape.Inputs, Aux: shape.Aux,
				NsPerRow:    float64(wall.Nanoseconds()) / rows,
				BytesPerRow: float64(bytes1-bytes0) / rows,
				AllocsPerRw: float64(allocs1-allocs0) / rows,
				UserNs:      ru1.user - ru0.user,
				SysNs:       ru1.sys - ru0.sys,
				MinorFaults: ru1.minflt - ru0.minflt,
			}
			if opt.PeakRSS != nil {
				r.PeakRSS = opt.PeakRSS()
			}
			out = append(out, r)
			if each != nil {
				each(r)
			}
			backend = nil
		}
	}
	return out, nil
}

type rusage struct{ user, sys, minflt int64 }

// usage reads the process's CPU times (ns) and minor faults; zeros when
// getrusage fails.
func usage() rusage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return rusage{}
	}
	return rusage{user: ru.Utime.Nano(), sys: ru.Stime.Nano(), minflt: ru.Minflt}
}

// heapCounters reads cumulative heap bytes and objects allocated.
func heapCounters() (bytes, objects uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}
