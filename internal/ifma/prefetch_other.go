//go:build !amd64 || purego

package ifma

import "unsafe"

// Prefetch does nothing here.
func Prefetch(p unsafe.Pointer) {}
