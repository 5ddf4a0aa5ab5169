// Package fuzzcheck holds the two checks every fuzz target of a decoder of
// outside bytes makes on each input (params, vk and proof files, C1 JSON,
// Curio's wrapper, bincode vanilla proofs, test-circuit options): the
// decoder answers quickly (MaxDuration), and what it allocates is bounded
// by the input's size (MaxAllocBytes), so a 4-byte length claiming
// gigabytes is rejected before anything that large is allocated.
//
// Run as fuzz targets they check every generated input; run by go test
// they check the committed seed corpus (testdata/fuzz/<FuzzName>/) and the
// crafted worst cases each target adds with f.Add, in every CI run.
package fuzzcheck

import (
	"runtime"
	"testing"
	"time"
)

// MaxDuration is how long a decoder may take on one input.
const MaxDuration = 100 * time.Millisecond

// AllocFactor and AllocSlack bound what decoding an input of n bytes may
// allocate: AllocFactor·n + AllocSlack. Decoded values take about as much
// memory as their encoding (a 96-byte G1 point decodes to 96 bytes, a
// 64-character hex domain to 32), so the bound only fails for allocations
// driven by a length the input claims rather than by the bytes it has.
const (
	AllocFactor = 16
	AllocSlack  = 1 << 20
)

// MaxAllocBytes is the allocation bound for an input of n bytes.
func MaxAllocBytes(n int) uint64 { return AllocFactor*uint64(n) + AllocSlack }

// Duration returns the fastest of up to three runs of decode, stopping as
// soon as one is within MaxDuration: taking the fastest keeps scheduler
// and GC pauses of a loaded machine from being reported as slow inputs.
func Duration(decode func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		decode()
		if best = min(best, time.Since(start)); best <= MaxDuration {
			break
		}
	}
	return best
}

// Allocated returns the bytes one run of decode allocates (the process's
// total allocation over the run; decoders run on the calling goroutine).
func Allocated(decode func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	decode()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Check fails t when decode, run on an input of n bytes, takes longer
// than MaxDuration or allocates more than MaxAllocBytes(n).
func Check(t testing.TB, n int, decode func()) {
	t.Helper()
	if d := Duration(decode); d > MaxDuration {
		t.Fatalf("decoding %d bytes takes %v (at most %v)", n, d, MaxDuration)
	}
	if a := Allocated(decode); a > MaxAllocBytes(n) {
		t.Fatalf("decoding %d bytes allocates %d bytes (at most %d)", n, a, MaxAllocBytes(n))
	}
}
