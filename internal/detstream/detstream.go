// Package detstream is the deterministic byte stream that the Go tests, the
// seal defaults and the Rust reference harness (tools/rustref) all draw
// inputs from, so both sides rebuild identical inputs without sharing files:
//
//	stream(label) = SHA256(label ‖ u32le(0)) ‖ SHA256(label ‖ u32le(1)) ‖ …
package detstream

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Stream is the deterministic input stream shared with the Rust harness:
// SHA256(label || u32le(0)) || SHA256(label || u32le(1)) || ...
type Stream struct {
	label   []byte
	counter uint32
	buf     []byte
}

// New returns the stream for a label.
func New(label string) *Stream { return &Stream{label: []byte(label)} }

// Bytes returns the next n bytes.
func (s *Stream) Bytes(n int) []byte {
	for len(s.buf) < n {
		var ctr [4]byte
		binary.LittleEndian.PutUint32(ctr[:], s.counter)
		s.counter++
		h := sha256.New()
		h.Write(s.label)
		h.Write(ctr[:])
		s.buf = h.Sum(s.buf)
	}
	out := append([]byte(nil), s.buf[:n]...)
	s.buf = s.buf[n:]
	return out
}

// Fr returns the next field element: 32 bytes with byte 31 &= 0x3f, LE.
func (s *Stream) Fr() fr.Element {
	var b [32]byte
	copy(b[:], s.Bytes(32))
	b[31] &= 0x3f
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		panic(err) // < 2^254 < r: cannot happen
	}
	return e
}

// Bits returns the next n bits: bit i = byte[i/8] >> (i%8) & 1.
func (s *Stream) Bits(n int) []bool {
	b := s.Bytes((n + 7) / 8)
	out := make([]bool, n)
	for i := range out {
		out[i] = b[i/8]>>(i%8)&1 == 1
	}
	return out
}

// U64 returns the next 8 bytes as a little-endian integer.
func (s *Stream) U64() uint64 { return binary.LittleEndian.Uint64(s.Bytes(8)) }
