//go:build linux

package kernelemu

import (
	"strings"
	"testing"
	"unsafe"
)

// TestProbe runs a small IFMA kernel under the emulator against values
// computed here.
func TestProbe(t *testing.T) {
	e := ForTest(t)
	fn, err := FuncAt("github.com/cuzk-dev/cuzk/internal/kernelemu.probe", probeAddr())
	if err != nil {
		t.Fatal(err)
	}
	var z, a, want [8]uint64
	var sum uint64
	for i := range a {
		a[i] = uint64(i+1)<<40 + uint64(i)*0x1234567
		want[i] = a[i] + (a[i]*a[i])&(1<<52-1)
		sum += a[i]
	}
	res, err := e.CallCount(fn, []uint64{uint64(uintptr(unsafe.Pointer(&z))), uint64(uintptr(unsafe.Pointer(&a))), 0},
		Bytes(unsafe.Pointer(&z), 64), Bytes(unsafe.Pointer(&a), 64))
	if err != nil {
		t.Fatal(err)
	}
	if z != want || res.Frame[2] != sum {
		t.Fatalf("emulated %x, sum %x; want %x, sum %x", z, res.Frame[2], want, sum)
	}
	if res.Insns == 0 {
		t.Fatal("no instructions counted")
	}
	t.Logf("%d instructions", res.Insns)
}

// TestUnmappedRegion: memory the call did not declare is not there, and
// the fault is an error naming the exception, not a wrong result.
func TestUnmappedRegion(t *testing.T) {
	e := ForTest(t)
	fn, err := FuncAt("github.com/cuzk-dev/cuzk/internal/kernelemu.probe", probeAddr())
	if err != nil {
		t.Fatal(err)
	}
	var z, a [8]uint64
	_, err = e.Call(fn, []uint64{uint64(uintptr(unsafe.Pointer(&z))), uint64(uintptr(unsafe.Pointer(&a))), 0},
		Bytes(unsafe.Pointer(&z), 64))
	if err == nil || !strings.Contains(err.Error(), "exception 14") {
		t.Fatalf("got %v, want a page fault (exception 14)", err)
	}
	if _, err := FuncAt("github.com/cuzk-dev/cuzk/internal/kernelemu.other", probeAddr()); err == nil {
		t.Fatal("FuncAt accepted a wrong name")
	}
}
