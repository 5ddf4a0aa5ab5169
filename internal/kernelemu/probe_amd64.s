//go:build linux

#include "textflag.h"

// func probe(z, a *[8]uint64) uint64
// The emulator's self-test (probe_amd64_test.go): z[i] = lo52(a[i]·a[i]) +
// a[i] with IFMA on one ZMM register; returns a[0]+…+a[7].
TEXT ·probe(SB), NOSPLIT, $0-24
	MOVQ        z+0(FP), DI
	MOVQ        a+8(FP), SI
	VMOVDQU64   (SI), Z0
	VMOVDQA64   Z0, Z1
	VPMADD52LUQ Z0, Z0, Z1
	VMOVDQU64   Z1, (DI)
	XORQ        AX, AX
	MOVQ        $0, CX

loop:
	ADDQ (SI)(CX*8), AX
	INCQ CX
	CMPQ CX, $8
	JNE  loop
	MOVQ AX, ret+16(FP)
	VZEROUPPER
	RET

// func probeAddr() uintptr
TEXT ·probeAddr(SB), NOSPLIT, $0-8
	LEAQ ·probe(SB), AX
	MOVQ AX, ret+0(FP)
	RET
