package bincode

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

var (
	// ErrInvalid is wrapped by every decoding error.
	ErrInvalid = errors.New("invalid bincode")
	// ErrTruncated is returned when the input ends inside a field.
	ErrTruncated = errors.New("truncated")
	// ErrLength is returned when a Vec length differs from the one the
	// expected shape requires, or cannot fit in the remaining input.
	ErrLength = errors.New("bad length")
	// ErrVariant is returned when an enum tag names no variant, or a
	// variant the expected tree shape does not use.
	ErrVariant = errors.New("bad enum variant")
	// ErrIndex is returned when a path element's index is outside its arity.
	ErrIndex = errors.New("path index out of range")
	// ErrNotCanonical is returned when a Poseidon domain element is not a
	// canonical (reduced) field element. Upstream would panic converting it.
	ErrNotCanonical = errors.New("field element not canonical")
	// ErrTrailing is returned when bytes remain after the top-level value.
	ErrTrailing = errors.New("trailing bytes")
)

// Error is a decoding error at Offset in the input, inside Field.
type Error struct {
	Offset int
	Field  string // e.g. "sectors[0].inclusion_proofs[7].path[2].hashes"
	Err    error  // one of the specific sentinels, possibly wrapped with detail
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("bincode: %v at offset %d", e.Err, e.Offset)
	}
	return fmt.Sprintf("bincode: %s: %v at offset %d", e.Field, e.Err, e.Offset)
}

// Unwrap returns the specific sentinel (with its detail) and ErrInvalid.
func (e *Error) Unwrap() []error { return []error{e.Err, ErrInvalid} }

type segment struct {
	name  string
	index int // -1: no index
}

// Reader decodes from a byte slice. The zero value is not usable; use
// NewReader. Field names are pushed and popped by the decoders so that an
// error can name where it happened.
type Reader struct {
	buf  []byte
	off  int
	path []segment
}

// NewReader reads buf, which it does not copy or modify.
func NewReader(buf []byte) *Reader {
	return &Reader{buf: buf, path: make([]segment, 0, 8)}
}

// Offset is the number of bytes consumed.
func (r *Reader) Offset() int { return r.off }

// Remaining is the number of bytes left.
func (r *Reader) Remaining() int { return len(r.buf) - r.off }

// Push enters field name (index < 0 for a plain field).
func (r *Reader) Push(name string, index int) { r.path = append(r.path, segment{name, index}) }

// Index replaces the index of the innermost field, for loops.
func (r *Reader) Index(i int) { r.path[len(r.path)-1].index = i }

// Pop leaves the innermost field.
func (r *Reader) Pop() { r.path = r.path[:len(r.path)-1] }

// Field formats the current field path.
func (r *Reader) Field() string {
	var b strings.Builder
	for i, s := range r.path {
		if i > 0 && s.name != "" {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
		if s.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// Errorf builds an *Error at offset off in the current field wrapping
// sentinel with a detail message.
func (r *Reader) Errorf(off int, sentinel error, format string, args ...any) error {
	err := sentinel
	if format != "" {
		err = fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, args...))
	}
	return &Error{Offset: off, Field: r.Field(), Err: err}
}

func (r *Reader) need(n int) error {
	if r.Remaining() < n {
		return r.Errorf(r.off, ErrTruncated, "need %d bytes, %d left", n, r.Remaining())
	}
	return nil
}

// U32 reads a little-endian u32.
func (r *Reader) U32() (uint32, error) {
	if err := r.need(4); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.buf[r.off:])
	r.off += 4
	return v, nil
}

// U64 reads a little-endian u64 (also usize).
func (r *Reader) U64() (uint64, error) {
	if err := r.need(8); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v, nil
}

// Bytes32 reads a [u8; 32] (no length prefix).
func (r *Reader) Bytes32() ([32]byte, error) {
	var b [32]byte
	if err := r.need(32); err != nil {
		return b, err
	}
	copy(b[:], r.buf[r.off:r.off+32])
	r.off += 32
	return b, nil
}

// Fr reads a Poseidon domain element: 32 little-endian bytes of a
// canonical field element.
func (r *Reader) Fr() (fr.Element, error) {
	off := r.off
	b, err := r.Bytes32()
	if err != nil {
		return fr.Element{}, err
	}
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		return fr.Element{}, r.Errorf(off, ErrNotCanonical, "%x", b)
	}
	return e, nil
}

// Len reads a Vec length and checks it before anything is allocated: it
// must be want when want >= 0, and at most max(0, remaining)/elemSize
// elements of elemSize bytes must fit in what is left (elemSize >= 1).
func (r *Reader) Len(want int, elemSize int) (int, error) {
	off := r.off
	n, err := r.U64()
	if err != nil {
		return 0, err
	}
	if want >= 0 && n != uint64(want) {
		return 0, r.Errorf(off, ErrLength, "length %d, want %d", n, want)
	}
	if elemSize < 1 {
		elemSize = 1
	}
	if n > uint64(r.Remaining()/elemSize) {
		return 0, r.Errorf(off, ErrTruncated, "length %d needs %d-byte elements, %d bytes left", n, elemSize, r.Remaining())
	}
	return int(n), nil
}

// Done fails with ErrTrailing unless the input is consumed.
func (r *Reader) Done() error {
	if r.Remaining() != 0 {
		return &Error{Offset: r.off, Err: fmt.Errorf("%w: %d bytes after the value", ErrTrailing, r.Remaining())}
	}
	return nil
}

// Writer appends bincode to a byte slice.
type Writer struct {
	Buf []byte
}

// U32 appends a little-endian u32.
func (w *Writer) U32(v uint32) { w.Buf = binary.LittleEndian.AppendUint32(w.Buf, v) }

// U64 appends a little-endian u64.
func (w *Writer) U64(v uint64) { w.Buf = binary.LittleEndian.AppendUint64(w.Buf, v) }

// Len appends a Vec length.
func (w *Writer) Len(n int) { w.U64(uint64(n)) }

// Bytes32 appends 32 bytes.
func (w *Writer) Bytes32(b *[32]byte) { w.Buf = append(w.Buf, b[:]...) }

// Fr appends the canonical little-endian bytes of e.
func (w *Writer) Fr(e *fr.Element) {
	b := e.Bytes() // big-endian
	for i := 31; i >= 0; i-- {
		w.Buf = append(w.Buf, b[i])
	}
}

// DecodeEntries decodes each entry of a request's vanilla_proofs with
// decode; an error names the entry ("vanilla_proofs[3]: …") and still
// unwraps to decode's *Error.
func DecodeEntries[T any](entries [][]byte, decode func([]byte) (T, error)) ([]T, error) {
	out := make([]T, len(entries))
	for i, e := range entries {
		v, err := decode(e)
		if err != nil {
			return nil, fmt.Errorf("vanilla_proofs[%d]: %w", i, err)
		}
		out[i] = v
	}
	return out, nil
}
