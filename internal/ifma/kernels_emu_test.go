//go:build linux && amd64 && !purego

package ifma

import (
	"testing"
	"unsafe"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/kernelemu"
)

const pkgPath = "github.com/cuzk-dev/cuzk/internal/ifma."

// emulated is the assembly kernels run under the Bochs emulator.
func emulated(t testing.TB) kernels {
	e := kernelemu.ForTest(t)
	var tab [len(kernelNames)]uintptr
	kernelAddrs(&tab)
	fns := map[string]kernelemu.Func{}
	for i, name := range kernelNames {
		f, err := kernelemu.FuncAt(pkgPath+name, tab[i])
		if err != nil {
			t.Fatal(err)
		}
		fns[name] = f
	}
	call := func(name string, args []uint64, regions ...kernelemu.Region) {
		t.Helper()
		if _, err := e.Call(fns[name], args, regions...); err != nil {
			t.Fatal(err)
		}
	}
	ptr := func(p unsafe.Pointer) uint64 { return uint64(uintptr(p)) }
	groupsRegion := func(z *Fp8, n int) kernelemu.Region { return kernelemu.Slice(unsafe.Slice(z, n)) }
	elemsRegion := func(e *fp.Element, stride, n int) kernelemu.Region {
		return kernelemu.Bytes(unsafe.Pointer(e), 8*(stride*(8*n-1)+6))
	}
	binary := func(name string) func(z, x, y *Fp8, n int) {
		return func(z, x, y *Fp8, n int) {
			call(name, []uint64{ptr(unsafe.Pointer(z)), ptr(unsafe.Pointer(x)), ptr(unsafe.Pointer(y)), uint64(n)},
				groupsRegion(z, n), groupsRegion(x, n), groupsRegion(y, n))
		}
	}
	// The batch kernels reach points through pointer arrays: each pointer's
	// point (96 bytes) is a region too.
	pointeesOf := func(size int, ps ...[]unsafe.Pointer) []kernelemu.Region {
		var r []kernelemu.Region
		for _, s := range ps {
			r = append(r, kernelemu.Slice(s))
			for _, p := range s {
				r = append(r, kernelemu.Bytes(p, size))
			}
		}
		return r
	}
	pointees := func(ps ...[]unsafe.Pointer) []kernelemu.Region { return pointeesOf(96, ps...) }
	fr := func(name string, lanes bool) func(lo, hi, z *fr.Element, n int) {
		return func(lo, hi, z *fr.Element, n int) {
			nz := 1
			if lanes {
				nz = 8 * n
			}
			call(name, []uint64{ptr(unsafe.Pointer(lo)), ptr(unsafe.Pointer(hi)), ptr(unsafe.Pointer(z)), uint64(n)},
				kernelemu.Slice(unsafe.Slice(lo, 8*n)), kernelemu.Slice(unsafe.Slice(hi, 8*n)), kernelemu.Slice(unsafe.Slice(z, nz)))
		}
	}
	return kernels{
		g2Forward: func(accs, qs *unsafe.Pointer, grp *g2Group, zero *uint8, work *g2Work, n int) {
			as, qv := unsafe.Slice(accs, 8*n+prefetchSlack), unsafe.Slice(qs, 8*n+prefetchSlack)
			regions := append(pointeesOf(192, as, qv), kernelemu.Slice(unsafe.Slice(grp, n)), kernelemu.Slice(unsafe.Slice(zero, n)),
				kernelemu.Bytes(unsafe.Pointer(work), int(unsafe.Sizeof(*work))))
			call("g2Forward", []uint64{ptr(unsafe.Pointer(accs)), ptr(unsafe.Pointer(qs)), ptr(unsafe.Pointer(grp)), ptr(unsafe.Pointer(zero)), ptr(unsafe.Pointer(work)), uint64(n)}, regions...)
		},
		g2Backward: func(accs, qs *unsafe.Pointer, neg *uint8, grp *g2Group, zero *uint8, work *g2Work, n int) {
			as, qv := unsafe.Slice(accs, 8*n), unsafe.Slice(qs, 8*n)
			regions := append(pointeesOf(192, as, qv), kernelemu.Slice(unsafe.Slice(neg, n)), kernelemu.Slice(unsafe.Slice(grp, n)),
				kernelemu.Slice(unsafe.Slice(zero, n)), kernelemu.Bytes(unsafe.Pointer(work), int(unsafe.Sizeof(*work))))
			call("g2Backward", []uint64{ptr(unsafe.Pointer(accs)), ptr(unsafe.Pointer(qs)), ptr(unsafe.Pointer(neg)), ptr(unsafe.Pointer(grp)), ptr(unsafe.Pointer(zero)), ptr(unsafe.Pointer(work)), uint64(n)}, regions...)
		},
		frCT:  fr("frCT", false),
		frGS:  fr("frGS", false),
		frCTv: fr("frCTv", true),
		frGSv: fr("frGSv", true),
		g1Forward: func(accs, qs *unsafe.Pointer, grp *g1Group, zero *uint8, work *g1Work, n int) {
			as, qv := unsafe.Slice(accs, 8*n+prefetchSlack), unsafe.Slice(qs, 8*n+prefetchSlack)
			regions := append(pointees(as, qv), kernelemu.Slice(unsafe.Slice(grp, n)), kernelemu.Slice(unsafe.Slice(zero, n)),
				kernelemu.Bytes(unsafe.Pointer(work), int(unsafe.Sizeof(*work))))
			call("g1Forward", []uint64{ptr(unsafe.Pointer(accs)), ptr(unsafe.Pointer(qs)), ptr(unsafe.Pointer(grp)), ptr(unsafe.Pointer(zero)), ptr(unsafe.Pointer(work)), uint64(n)}, regions...)
		},
		g1Backward: func(accs, qs *unsafe.Pointer, neg *uint8, grp *g1Group, zero *uint8, work *g1Work, n int) {
			as, qv := unsafe.Slice(accs, 8*n), unsafe.Slice(qs, 8*n)
			regions := append(pointees(as, qv), kernelemu.Slice(unsafe.Slice(neg, n)), kernelemu.Slice(unsafe.Slice(grp, n)),
				kernelemu.Slice(unsafe.Slice(zero, n)), kernelemu.Bytes(unsafe.Pointer(work), int(unsafe.Sizeof(*work))))
			call("g1Backward", []uint64{ptr(unsafe.Pointer(accs)), ptr(unsafe.Pointer(qs)), ptr(unsafe.Pointer(neg)), ptr(unsafe.Pointer(grp)), ptr(unsafe.Pointer(zero)), ptr(unsafe.Pointer(work)), uint64(n)}, regions...)
		},
		fpMul: binary("fpMul"),
		fpAdd: binary("fpAdd"),
		fpSub: binary("fpSub"),
		fpFrom64: func(z *Fp8, src *fp.Element, stride, n int) {
			call("fpFrom64", []uint64{ptr(unsafe.Pointer(z)), ptr(unsafe.Pointer(src)), uint64(stride), uint64(n)},
				groupsRegion(z, n), elemsRegion(src, stride, n))
		},
		fpTo64: func(dst *fp.Element, x *Fp8, stride, n int) {
			call("fpTo64", []uint64{ptr(unsafe.Pointer(dst)), ptr(unsafe.Pointer(x)), uint64(stride), uint64(n)},
				elemsRegion(dst, stride, n), groupsRegion(x, n))
		},
	}
}

// TestAsmKernelsEmulated runs the same differential tests as
// TestAsmKernelsNative on the kernels' machine code under the emulator,
// whatever this CPU has.
func TestAsmKernelsEmulated(t *testing.T) { testKernels(t, emulated(t)) }

// TestG1AdderEmulated runs the batch kernels' machine code under the
// emulator (smaller batches: about a second of emulation per group).
func TestG1AdderEmulated(t *testing.T) { testG1Adder(t, emulated(t), []int{1, 9, 16}) }

func TestFrKernelsEmulated(t *testing.T) { testFrKernels(t, emulated(t)) }

func TestG2AdderEmulated(t *testing.T) { testG2Adder(t, emulated(t), []int{1, 9}) }
