// Package fuzzcheck holds the two checks every fuzz target of a decoder of
// outside bytes makes on each input (params, vk and proof files, C1 JSON,
// Curio's wrapper, bincode vanilla proofs, test-circuit options, config,
// token and manifest files, sector directories, the CLI's JSON inputs):
// the decoder answers quickly (MaxDurationFor), and what it allocates is bounded
// by the input's size (MaxAllocBytes), so a 4-byte length claiming
// gigabytes is rejected before anything that large is allocated.
//
// Run as fuzz targets they check every generated input; run by go test
// they check the committed seed corpus (testdata/fuzz/<FuzzName>/) and the
// seeds each target adds with f.Add, in every CI run. Megabyte worst cases
// go through Check in ordinary tests instead (c1's
// TestWorstCasesAreRejected), so they do not slow the fuzzer.
package fuzzcheck

import (
	"flag"
	"runtime"
	"strings"
	"testing"
	"time"
)

// MaxDuration and PerByte bound how long a decoder may take on an input
// of n bytes: MaxDuration + n·PerByte, so about 100 ms for anything the
// fuzzer generates (inputs of kilobytes) and 200 ms for a megabyte of
// crafted worst case. Reading a megabyte takes a millisecond and the
// decoders run at 20–40 ns per byte, so only work that grows faster than
// the input (a claimed length, a quadratic step) fails the bound. Under
// the fuzzer the bound is FuzzingSlowdown times as long.
const (
	MaxDuration = 100 * time.Millisecond
	PerByte     = 100 * time.Nanosecond
)

// MaxDurationFor is the time bound for an input of n bytes.
func MaxDurationFor(n int) time.Duration { return MaxDuration + time.Duration(n)*PerByte }

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

// Measure runs decode once and returns how long it took and the bytes it
// allocated (the process's total allocation over the run; decoders run on
// the calling goroutine). If the run took longer than limit, decode runs
// up to twice more and the fastest run counts: scheduler and GC pauses of
// a loaded machine are not slow inputs.
func Measure(limit time.Duration, decode func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	decode()
	best := time.Since(start)
	runtime.ReadMemStats(&after)
	for i := 0; i < 2 && best > limit; i++ {
		start := time.Now()
		decode()
		best = min(best, time.Since(start))
	}
	return best, after.TotalAlloc - before.TotalAlloc
}

// FuzzingSlowdown is how much more time an input gets while the fuzzer
// runs (go test -fuzz): its coverage instrumentation makes the decoders
// two to four times slower, and its workers share the machine.
const FuzzingSlowdown = 4

// fuzzing says whether this process runs under go test -fuzz (the
// coordinator and its workers all carry the flag).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// Check fails t when decode, run on an input of n bytes, takes longer
// than MaxDurationFor(n) (FuzzingSlowdown times that under the fuzzer)
// or allocates more than MaxAllocBytes(n).
func Check(t testing.TB, n int, decode func()) {
	t.Helper()
	limit := MaxDurationFor(n)
	if fuzzing() {
		limit *= FuzzingSlowdown
	}
	d, a := Measure(limit, decode)
	if d > limit {
		t.Fatalf("decoding %d bytes takes %v (at most %v)", n, d, limit)
	}
	if a > MaxAllocBytes(n) {
		t.Fatalf("decoding %d bytes allocates %d bytes (at most %d)", n, a, MaxAllocBytes(n))
	}
}

// HostileJSON are documents every JSON reader of outside files must
// reject or accept quickly: wrong types, huge numbers, deep nesting, long
// strings. A fresh slice each call, for fuzz targets to seed with.
func HostileJSON() []string {
	return []string{
		``, `null`, `[]`, `{}`, `"x"`,
		`{"registered_proof": "8", "randomness": 1, "sectors": {}}`,
		`{"registered_proof": 99999999999999999999, "randomness": "00", "sectors": [{}]}`,
		`{"registered_proof": -1, "randomness": "x", "sectors": [{"sector_id": -1, "comm_r": 5}]}`,
		`{"registered_proof": null, "randomness": "x", "sectors": [{}]}`,
		strings.Repeat(`{"a":`, 5000),
		strings.Repeat(`[`, 5000),
		`{"randomness": "` + strings.Repeat(`\u0041`, 2000) + `"}`,
	}
}
