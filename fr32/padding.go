package fr32

import (
	"errors"
	"fmt"
)

const (
	// UnpaddedChunkSize is the number of raw bytes that pad to exactly one
	// PaddedChunkSize block: 4 elements of 254 data bits.
	UnpaddedChunkSize = 127
	// PaddedChunkSize is the padded size of one UnpaddedChunkSize block.
	PaddedChunkSize = 128

	dataBits    = 254
	elementBits = 256
)

// ErrChunkLength is returned when a buffer is not a whole number of chunks or
// the sizes of source and destination do not correspond.
var ErrChunkLength = errors.New("fr32: buffer length is not a whole number of chunks")

// PaddedSize returns the number of padded bytes needed to hold n raw bytes
// (to_padded_bytes upstream): every 254 data bits take 256 bits, and a partial
// last element is rounded up to whole bytes.
func PaddedSize(n uint64) uint64 {
	bits := n * 8
	padded := bits/dataBits*elementBits + bits%dataBits
	return (padded + 7) / 8
}

// UnpaddedSize returns the number of whole raw bytes stored in n padded bytes
// (to_unpadded_bytes upstream). For whole chunks it is n*127/128.
func UnpaddedSize(n uint64) uint64 {
	bits := n * 8
	raw := bits/elementBits*dataBits + bits%elementBits
	return raw / 8
}

// Pad writes the fr32 padding of src into dst. src must be a whole number of
// 127-byte chunks and dst exactly PaddedSize(len(src)) bytes long.
func Pad(dst, src []byte) error {
	if len(src)%UnpaddedChunkSize != 0 || len(dst) != len(src)/UnpaddedChunkSize*PaddedChunkSize {
		return fmt.Errorf("pad %d raw bytes into %d: %w", len(src), len(dst), ErrChunkLength)
	}
	for len(src) > 0 {
		padChunk((*[PaddedChunkSize]byte)(dst), (*[UnpaddedChunkSize]byte)(src))
		src, dst = src[UnpaddedChunkSize:], dst[PaddedChunkSize:]
	}
	return nil
}

// Unpad recovers raw data from fr32-padded src into dst. src must be a whole
// number of 128-byte chunks and dst exactly UnpaddedSize(len(src)) bytes long.
// Like upstream's write_unpadded, the two pad bits of each element are not
// checked; they are simply dropped.
func Unpad(dst, src []byte) error {
	if len(src)%PaddedChunkSize != 0 || len(dst) != len(src)/PaddedChunkSize*UnpaddedChunkSize {
		return fmt.Errorf("unpad %d padded bytes into %d: %w", len(src), len(dst), ErrChunkLength)
	}
	for len(src) > 0 {
		unpadChunk((*[UnpaddedChunkSize]byte)(dst), (*[PaddedChunkSize]byte)(src))
		src, dst = src[PaddedChunkSize:], dst[UnpaddedChunkSize:]
	}
	return nil
}

// padChunk handles one chunk. Element q of the output holds stream bits
// [254q, 254q+254), which start at byte 254q/8, bit 254q%8 = 0, 6, 4, 2 of the
// raw chunk; each output byte is therefore two neighbouring raw bytes shifted
// together.
func padChunk(out *[PaddedChunkSize]byte, in *[UnpaddedChunkSize]byte) {
	for q := 0; q < 4; q++ {
		start := dataBits * q / 8
		shift := uint(dataBits * q % 8)
		o := out[32*q : 32*q+32]
		for i := range o {
			lo := in[start+i] >> shift
			var hi byte
			if shift != 0 && start+i+1 < UnpaddedChunkSize {
				hi = in[start+i+1] << (8 - shift)
			}
			o[i] = lo | hi
		}
		o[31] &= 0x3f
	}
}

// unpadChunk is the inverse of padChunk: it ORs the 254 data bits of each
// element back into place.
func unpadChunk(out *[UnpaddedChunkSize]byte, in *[PaddedChunkSize]byte) {
	clear(out[:])
	for q := 0; q < 4; q++ {
		start := dataBits * q / 8
		shift := uint(dataBits * q % 8)
		e := in[32*q : 32*q+32]
		for i, b := range e {
			if i == 31 {
				b &= 0x3f
			}
			if start+i < UnpaddedChunkSize {
				out[start+i] |= b << shift
			}
			if shift != 0 && start+i+1 < UnpaddedChunkSize {
				out[start+i+1] |= b >> (8 - shift)
			}
		}
	}
}
