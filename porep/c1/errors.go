package c1

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Every error returned by this package is an [*Error]
// wrapping exactly one of them.
var (
	// ErrSyntax is returned when the input is not well-formed JSON (or has
	// trailing data).
	ErrSyntax = errors.New("c1: malformed JSON")
	// ErrType is returned when a value has the wrong JSON type or form: an
	// object where an array belongs, a float or negative number where an
	// unsigned integer belongs, a number out of range, a domain that is not
	// exactly 32 integers 0..255, an enum object without exactly one key.
	ErrType = errors.New("c1: wrong JSON type")
	// ErrMissingField is returned when a required object key is absent.
	ErrMissingField = errors.New("c1: missing field")
	// ErrUnknownField is returned when an object has a key the schema does
	// not define.
	ErrUnknownField = errors.New("c1: unknown field")
	// ErrDuplicateField is returned when an object has the same key twice.
	ErrDuplicateField = errors.New("c1: duplicate field")
	// ErrUnknownVariant is returned when an enum tag is not one of its
	// variants (a Merkle proof other than Single/Sub/Top, a vanilla_proofs
	// key other than the five StackedDrg{size}V1 names).
	ErrUnknownVariant = errors.New("c1: unknown enum variant")
	// ErrUnknownProof is returned when registered_proof names no registered
	// seal proof.
	ErrUnknownProof = errors.New("c1: unknown registered proof")
	// ErrProofMismatch is returned when values that must name the same proof
	// type disagree: registered_proof against the vanilla_proofs key, or the
	// wrapper's SectorSize against registered_proof.
	ErrProofMismatch = errors.New("c1: registered proof mismatch")
	// ErrShape is returned when the proofs do not have the shape of the
	// registered proof (partition or challenge counts, path lengths,
	// arities, variant, column height, parent counts, index out of its
	// arity).
	ErrShape = errors.New("c1: proof shape does not match the registered proof")
	// ErrNonCanonical is returned when a field element is not canonical: not
	// below the scalar modulus r, or, for a SHA-254 domain, not below 2^254.
	ErrNonCanonical = errors.New("c1: non-canonical field element")
	// ErrZeroCommitment is returned when comm_d or comm_r is all zero.
	ErrZeroCommitment = errors.New("c1: all-zero commitment")
	// ErrZeroSeed is returned when the interactive challenge seed is all
	// zero.
	ErrZeroSeed = errors.New("c1: all-zero seed")
	// ErrBase64 is returned when the wrapper's Phase1Out is not standard
	// padded base64.
	ErrBase64 = errors.New("c1: invalid base64")
)

// Error locates a failure. Path is the JSON path of the offending value
// (keys joined by '.', array indexes in brackets, "" for the document
// itself); Offset is its byte offset in the input, or -1 when the failure was
// found after decoding.
type Error struct {
	Path   string
	Offset int
	Msg    string
	Err    error // one of the sentinels
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Path != "" {
		b.WriteString(" at ")
		b.WriteString(e.Path)
	}
	if e.Offset >= 0 {
		b.WriteString(" (byte ")
		b.WriteString(strconv.Itoa(e.Offset))
		b.WriteString(")")
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	return b.String()
}

// Unwrap returns the sentinel.
func (e *Error) Unwrap() error { return e.Err }

// pathSeg is one step of a JSON path: a key, or an index when key is "".
type pathSeg struct {
	key   string
	index int
}

// path is a stack of segments, rendered only when an error is reported so
// that the success path never formats strings.
type path []pathSeg

func (p *path) key(k string) { *p = append(*p, pathSeg{key: k}) }
func (p *path) idx(i int)    { *p = append(*p, pathSeg{index: i}) }
func (p *path) pop()         { *p = (*p)[:len(*p)-1] }

func (p path) String() string {
	var b strings.Builder
	for _, s := range p {
		if s.key == "" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

// withKey renders p followed by one more key without modifying p.
func (p path) withKey(k string) string {
	s := p.String()
	if s == "" {
		return k
	}
	return s + "." + k
}
