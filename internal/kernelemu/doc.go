// Package kernelemu runs the amd64 assembly kernels of this binary under the
// Bochs CPU emulator (PyPI bochscpu-python 0.3.1, driven by the embedded
// emu.py), so that tests of AVX-512 kernels execute on machines whose CPU
// lacks the instructions.
//
// A call maps, at their own addresses, the pages of the kernel's machine
// code (read from this process's memory through /proc/self/mem, located by an
// assembly helper of the kernel's package and the runtime's function table), of every memory region the kernel touches, and of a
// stack whose top holds a return address into a page of hlt. The kernel
// runs at CPL 3 until it returns into that hlt, which raises #GP and ends
// the run; the regions are then copied back. Kernels must be leaf
// functions (Go ABI0, arguments on the stack) that touch only the regions
// given, their stack frame and their code: no calls, no data symbols.
//
// Test policy ([ForTest]): CUZK_KERNEL_TESTS=require makes a missing
// emulator a failure; otherwise tests skip with a message. Linux on amd64
// only; elsewhere the package is empty.
package kernelemu
