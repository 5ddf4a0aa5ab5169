//go:build !purego

package ifma

import (
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testenv"
	"golang.org/x/sys/cpu"
)

func TestAsmKernelsNative(t *testing.T) {
	if !cpuHasIFMA() {
		testenv.Skip(t, "native IFMA kernels, this CPU has none (emulated instead)", "this CPU has no AVX-512 IFMA: the kernels run only under the emulator here (TestAsmKernelsEmulated)")
	}
	testKernels(t, asmKernels)
}

func cpuHasIFMA() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX512IFMA
}

func TestG1AdderNative(t *testing.T) {
	if !cpuHasIFMA() {
		testenv.Skip(t, "native IFMA kernels, this CPU has none (emulated instead)", "this CPU has no AVX-512 IFMA: see TestG1AdderEmulated")
	}
	testG1Adder(t, asmKernels, adderSizes)
}

func TestFrKernelsNative(t *testing.T) {
	if !cpuHasIFMA() {
		testenv.Skip(t, "native IFMA kernels, this CPU has none (emulated instead)", "this CPU has no AVX-512 IFMA: see TestFrKernelsEmulated")
	}
	testFrKernels(t, asmKernels)
}

func TestG2AdderNative(t *testing.T) {
	if !cpuHasIFMA() {
		testenv.Skip(t, "native IFMA kernels, this CPU has none (emulated instead)", "this CPU has no AVX-512 IFMA: see TestG2AdderEmulated")
	}
	testG2Adder(t, asmKernels, adderSizes)
}
