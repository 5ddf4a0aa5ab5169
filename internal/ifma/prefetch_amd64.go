//go:build !purego

package ifma

import "unsafe"

// Prefetch asks the CPU to bring the cache line at p into L1 (PREFETCHT0;
// it never faults). The MSM's bucket lookups are random lines that would
// otherwise stall the loop one by one.
//
//go:noescape
func Prefetch(p unsafe.Pointer)
