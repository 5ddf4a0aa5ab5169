package bench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/porep/c2"
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

// SynthIteration is one synthesis of one partition.
type SynthIteration struct {
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
	// PeakRSS is the process's peak resident set after this run (VmHWM,
	// so it never decreases from one iteration to the next).
	PeakRSS uint64 `json:"peak_rss_bytes"`
}

// SynthOptions configure Synth.
type SynthOptions struct {
	CS         CSKind
	Iterations int
	Partition  int // -1: every partition
	Workers    int // for the C1 self-check only; synthesis is single-threaded
}

// Synth synthesises the partitions of a planned C1 the given number of
// times and measures each run. Templated runs get their densities from one
// untimed exact synthesis of the same partition first.
func Synth(ctx context.Context, parts []c2.Partition, opt SynthOptions, each func(SynthIteration)) ([]SynthIteration, error) {
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
	var out []SynthIteration
	densities := map[int]*r1cs.Densities{}
	// Size every buffer up front, as the engine does from the parameters:
	// otherwise the first run measures slice regrowth, not synthesis.
	counted, err := r1cs.Synthesize(parts[idx[0]].Circuit, r1cs.Counter{})
	if err != nil {
		return nil, err
	}
	hint := counted.Size()
	hint.Constraints += hint.Inputs // the prover's input rows
	for it := 0; it < opt.Iterations; it++ {
		for _, k := range idx {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			c := parts[k].Circuit
			if opt.CS == CSTemplated && densities[k] == nil {
				pa := r1cs.NewProvingAssignment(hint)
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
				backend = r1cs.NewProvingAssignment(hint)
			case CSTemplated:
				backend = r1cs.NewTemplatedAssignment(hint, densities[k])
			case CSWitness:
				backend = r1cs.NewWitnessAssignment(hint)
			case CSCount:
				backend = r1cs.Counter{}
			default:
				return out, fmt.Errorf("unknown constraint system %q", opt.CS)
			}
			runtime.GC()
			bytes0, allocs0 := heapCounters()
			t := time.Now()
			cs, err := r1cs.Synthesize(c, backend)
			wall := time.Since(t)
			if err != nil {
				return out, err
			}
			bytes1, allocs1 := heapCounters()
			shape := cs.Size()
			rows := float64(max(shape.Constraints, 1))
			r := SynthIteration{
				Iteration: it, Partition: k, CS: opt.CS, WallNs: wall.Nanoseconds(),
				Constraints: shape.Constraints, Inputs: shape.Inputs, Aux: shape.Aux,
				NsPerRow:    float64(wall.Nanoseconds()) / rows,
				BytesPerRow: float64(bytes1-bytes0) / rows,
				AllocsPerRw: float64(allocs1-allocs0) / rows,
				PeakRSS:     PeakRSS(),
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

// heapCounters reads cumulative heap bytes and objects allocated.
func heapCounters() (bytes, objects uint64) {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// PeakRSS is the process's peak resident set (VmHWM), in bytes; 0 if
// unknown.
func PeakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, _ := strconv.ParseUint(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}
