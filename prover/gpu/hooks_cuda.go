//go:build cuda

package gpu

/*
#include "csrc/cuzk_supraseal.h"
*/
import "C"

import (
	"fmt"
	"math/bits"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// This file exposes the wrapper's host-side helpers to the tests (cgo is
// not allowed in _test.go files) and the benchmarks to the device check.

// layoutIndex names the entries of cuzk_layout.
type layoutIndex int

const (
	sizeofFr         layoutIndex = C.CUZK_SIZEOF_FR
	alignofFr        layoutIndex = C.CUZK_ALIGNOF_FR
	sizeofFp         layoutIndex = C.CUZK_SIZEOF_FP
	sizeofG1         layoutIndex = C.CUZK_SIZEOF_G1
	sizeofG2         layoutIndex = C.CUZK_SIZEOF_G2
	sizeofAssignment layoutIndex = C.CUZK_SIZEOF_ASSIGNMENT
	sizeofProof      layoutIndex = C.CUZK_SIZEOF_PROOF
	offProofA        layoutIndex = C.CUZK_OFF_PROOF_A
	offProofB        layoutIndex = C.CUZK_OFF_PROOF_B
	offProofC        layoutIndex = C.CUZK_OFF_PROOF_C
)

// cppLayout is what the C++ compiler laid out (supraseal's and sppark's
// own types, from the translation unit that holds the kernels).
func cppLayout() []uintptr {
	var out [C.CUZK_LAYOUT_N]C.size_t
	C.cuzk_layout(&out[0])
	r := make([]uintptr, len(out))
	for i, v := range out {
		r[i] = uintptr(v)
	}
	return r
}

// assignmentField is one field of Assignment<fr_t>: its index in
// cuzk_layout and its offset in the C struct cgo hands over.
type assignmentField struct {
	name   string
	index  layoutIndex
	offset uintptr
}

func assignmentFields() []assignmentField {
	var a C.cuzk_assignment
	return []assignmentField{
		{"a_aux_density", C.CUZK_OFF_A_AUX_DENSITY, unsafe.Offsetof(a.a_aux_density)},
		{"a_aux_bit_len", C.CUZK_OFF_A_AUX_BIT_LEN, unsafe.Offsetof(a.a_aux_bit_len)},
		{"a_aux_popcount", C.CUZK_OFF_A_AUX_POPCOUNT, unsafe.Offsetof(a.a_aux_popcount)},
		{"b_inp_density", C.CUZK_OFF_B_INP_DENSITY, unsafe.Offsetof(a.b_inp_density)},
		{"b_inp_bit_len", C.CUZK_OFF_B_INP_BIT_LEN, unsafe.Offsetof(a.b_inp_bit_len)},
		{"b_inp_popcount", C.CUZK_OFF_B_INP_POPCOUNT, unsafe.Offsetof(a.b_inp_popcount)},
		{"b_aux_density", C.CUZK_OFF_B_AUX_DENSITY, unsafe.Offsetof(a.b_aux_density)},
		{"b_aux_bit_len", C.CUZK_OFF_B_AUX_BIT_LEN, unsafe.Offsetof(a.b_aux_bit_len)},
		{"b_aux_popcount", C.CUZK_OFF_B_AUX_POPCOUNT, unsafe.Offsetof(a.b_aux_popcount)},
		{"a", C.CUZK_OFF_A, unsafe.Offsetof(a.a)},
		{"b", C.CUZK_OFF_B, unsafe.Offsetof(a.b)},
		{"c", C.CUZK_OFF_C, unsafe.Offsetof(a.c)},
		{"abc_size", C.CUZK_OFF_ABC_SIZE, unsafe.Offsetof(a.abc_size)},
		{"inp_assignment_data", C.CUZK_OFF_INP_DATA, unsafe.Offsetof(a.inp_assignment_data)},
		{"inp_assignment_size", C.CUZK_OFF_INP_SIZE, unsafe.Offsetof(a.inp_assignment_size)},
		{"aux_assignment_data", C.CUZK_OFF_AUX_DATA, unsafe.Offsetof(a.aux_assignment_data)},
		{"aux_assignment_size", C.CUZK_OFF_AUX_SIZE, unsafe.Offsetof(a.aux_assignment_size)},
	}
}

func cgoSizeofAssignment() uintptr { return unsafe.Sizeof(C.cuzk_assignment{}) }

func cFrFromU64(v uint64) (out fr.Element) {
	C.cuzk_fr_from_u64(C.uint64_t(v), (*C.cuzk_fr)(unsafe.Pointer(&out)))
	return out
}

func cFrMul(a, b *fr.Element) (out fr.Element) {
	C.cuzk_fr_mul((*C.cuzk_fr)(unsafe.Pointer(a)), (*C.cuzk_fr)(unsafe.Pointer(b)), (*C.cuzk_fr)(unsafe.Pointer(&out)))
	return out
}

// cFrCanonical is blst's to_scalar: the canonical value, little-endian.
func cFrCanonical(a *fr.Element) (out [32]byte) {
	C.cuzk_fr_to_canonical((*C.cuzk_fr)(unsafe.Pointer(a)), (*C.uint8_t)(&out[0]))
	return out
}

func cFrIsOne(a *fr.Element) bool { return C.cuzk_fr_is_one((*C.cuzk_fr)(unsafe.Pointer(a))) != 0 }

// cG1Deserialize decodes 96 uncompressed bytes with blst, as supraseal's
// SRS reader does, straight into a gnark-crypto point.
func cG1Deserialize(b *[96]byte) (p bls.G1Affine, code int) {
	code = int(C.cuzk_g1_deserialize((*C.uint8_t)(&b[0]), (*C.cuzk_g1)(unsafe.Pointer(&p))))
	return p, code
}

func cG2Deserialize(b *[192]byte) (p bls.G2Affine, code int) {
	code = int(C.cuzk_g2_deserialize((*C.uint8_t)(&b[0]), (*C.cuzk_g2)(unsafe.Pointer(&p))))
	return p, code
}

// MSMTimes are the two timings of BenchMSM, in milliseconds.
type MSMTimes struct {
	Host     float64 // points and scalars from host memory
	Resident float64 // points already on the device, scalars from host
}

// BenchMSM runs sppark's G1 MSM over points and scalars (Montgomery form)
// on device 0, twice (see MSMTimes), and returns the result.
func BenchMSM(points []bls.G1Affine, scalars []fr.Element) (bls.G1Affine, MSMTimes, error) {
	var out bls.G1Affine
	var t MSMTimes
	if len(points) != len(scalars) || len(points) == 0 {
		return out, t, fmt.Errorf("gpu: %d points, %d scalars", len(points), len(scalars))
	}
	var h, r C.double
	err := goError("msm", C.cuzk_bench_msm((*C.cuzk_g1)(unsafe.Pointer(&points[0])), (*C.cuzk_fr)(unsafe.Pointer(&scalars[0])),
		C.size_t(len(points)), (*C.cuzk_g1)(unsafe.Pointer(&out)), &h, &r))
	t.Host, t.Resident = float64(h), float64(r)
	return out, t, err
}

// NTTTimes are the two timings of BenchNTT, in milliseconds.
type NTTTimes struct {
	Host   float64 // sppark's NTT::Base: host to device, transform, back
	Device float64 // the transform alone on device-resident data
}

// BenchNTT transforms v (length a power of two, natural order in and out)
// in place on device 0 with sppark's NTT.
func BenchNTT(v []fr.Element, inverse bool) (NTTTimes, error) {
	var t NTTTimes
	if len(v) == 0 || len(v)&(len(v)-1) != 0 {
		return t, fmt.Errorf("gpu: NTT of %d elements", len(v))
	}
	inv := C.int(0)
	if inverse {
		inv = 1
	}
	var h, d C.double
	err := goError("ntt", C.cuzk_bench_ntt((*C.cuzk_fr)(unsafe.Pointer(&v[0])), C.uint32_t(bits.TrailingZeros(uint(len(v)))), inv, &h, &d))
	t.Host, t.Device = float64(h), float64(d)
	return t, err
}
