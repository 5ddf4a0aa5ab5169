package groth16

import (
	"errors"
	"fmt"
	"strings"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// Sizes of encoded points.
const (
	G1Uncompressed = bls.SizeOfG1AffineUncompressed // 96
	G2Uncompressed = bls.SizeOfG2AffineUncompressed // 192
	G1Compressed   = bls.SizeOfG1AffineCompressed   // 48
	G2Compressed   = bls.SizeOfG2AffineCompressed   // 96
)

// Errors a decoder reports. Every decoder error wraps one of
// ErrParamsFormat, ErrVerifyingKeyFormat or ErrProofFormat (what was being
// decoded), a *PointError or *FormatError (where: the byte offset) and, for
// a bad point or a short buffer, one of the errors below (why).
var (
	// ErrTruncated is returned when the data ends before what its lengths
	// announce.
	ErrTruncated = errors.New("truncated")
	// ErrInvalidEncoding is returned when a point's flag bits are wrong or
	// a coordinate is not a canonical field element.
	ErrInvalidEncoding = errors.New("invalid point encoding")
	// ErrNotOnCurve is returned when a point's coordinates do not satisfy
	// the curve equation (or, compressed, x has no square root).
	ErrNotOnCurve = errors.New("point not on curve")
	// ErrInfinity is returned when a point is the point at infinity, which
	// no bellperson encoding here may hold.
	ErrInfinity = errors.New("point at infinity")
	// ErrNotInSubgroup is returned when a point lies on the curve but outside
	// the prime-order subgroup.
	ErrNotInSubgroup = errors.New("point not in the prime-order subgroup")
	// ErrVerifyingKeyFormat is returned when data is not a well-formed
	// verifying key.
	ErrVerifyingKeyFormat = errors.New("malformed groth16 verifying key")
	// ErrProofFormat is returned when data is not a well-formed proof or
	// concatenation of proofs.
	ErrProofFormat = errors.New("malformed groth16 proof")
)

// FormatError says where an encoding's structure is wrong: a length prefix
// past the end of the data, a wrong total size, trailing bytes.
type FormatError struct {
	What   string // what is wrong ("h holds 5 points (480 bytes) from byte 1160 but the data ends at 1200")
	Offset int64  // byte offset in the file or buffer
	Err    error  // ErrTruncated when the data is too short, else nil
}

func (e *FormatError) Error() string {
	msg := fmt.Sprintf("%s (at byte %d)", e.What, e.Offset)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *FormatError) Unwrap() error { return e.Err }

// PointError says which point of which vector failed to decode.
type PointError struct {
	Vector string // "vk.ic", "h", "l", "a", "b_g1", "b_g2", "proof.a", ...
	Index  int
	Offset int64 // byte offset in the file or buffer, -1 if unknown
	Err    error
}

func (e *PointError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("%s[%d] at byte %d: %v", e.Vector, e.Index, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s[%d]: %v", e.Vector, e.Index, e.Err)
}

func (e *PointError) Unwrap() error { return e.Err }

const (
	flagCompressed = 0x80
	flagInfinity   = 0x40
	flagLargest    = 0x20
	flagMask       = 0xe0
)

// decodeG1Uncompressed decodes a 96-byte point, rejecting infinity.
func decodeG1Uncompressed(p *bls.G1Affine, b []byte, subgroup bool) error {
	if len(b) < G1Uncompressed {
		return ErrTruncated
	}
	switch b[0] & flagMask {
	case 0:
	case flagInfinity:
		return ErrInfinity
	default:
		return ErrInvalidEncoding
	}
	var x [fp.Bytes]byte
	copy(x[:], b[:fp.Bytes])
	x[0] &^= flagMask
	var err error
	if p.X, err = fp.BigEndian.Element(&x); err != nil {
		return fmt.Errorf("%w: x: %v", ErrInvalidEncoding, err)
	}
	if p.Y, err = fp.BigEndian.Element((*[fp.Bytes]byte)(b[fp.Bytes : 2*fp.Bytes])); err != nil {
		return fmt.Errorf("%w: y: %v", ErrInvalidEncoding, err)
	}
	if !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// decodeG2Uncompressed decodes a 192-byte point (x.c1, x.c0, y.c1, y.c0),
// rejecting infinity.
func decodeG2Uncompressed(p *bls.G2Affine, b []byte, subgroup bool) error {
	if len(b) < G2Uncompressed {
		return ErrTruncated
	}
	switch b[0] & flagMask {
	case 0:
	case flagInfinity:
		return ErrInfinity
	default:
		return ErrInvalidEncoding
	}
	var x1 [fp.Bytes]byte
	copy(x1[:], b[:fp.Bytes])
	x1[0] &^= flagMask
	var err error
	coord := func(dst *fp.Element, src *[fp.Bytes]byte, name string) {
		if err != nil {
			return
		}
		if *dst, err = fp.BigEndian.Element(src); err != nil {
			err = fmt.Errorf("%w: %s: %v", ErrInvalidEncoding, name, err)
		}
	}
	coord(&p.X.A1, &x1, "x.c1")
	coord(&p.X.A0, (*[fp.Bytes]byte)(b[48:96]), "x.c0")
	coord(&p.Y.A1, (*[fp.Bytes]byte)(b[96:144]), "y.c1")
	coord(&p.Y.A0, (*[fp.Bytes]byte)(b[144:192]), "y.c0")
	if err != nil {
		return err
	}
	if !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// decodeG1Compressed decodes a 48-byte point with a subgroup check,
// rejecting infinity (bellperson Proof::read_many).
func decodeG1Compressed(p *bls.G1Affine, b []byte) error {
	return decodeCompressed(p, b, G1Compressed)
}

// decodeG2Compressed decodes a 96-byte point with a subgroup check,
// rejecting infinity.
func decodeG2Compressed(p *bls.G2Affine, b []byte) error {
	return decodeCompressed(p, b, G2Compressed)
}

// decodeCompressed checks the flags bellperson's encoding allows and leaves
// the rest (square root, subgroup) to gnark-crypto's SetBytes, which both
// affine types have.
func decodeCompressed(p interface{ SetBytes([]byte) (int, error) }, b []byte, size int) error {
	if len(b) < size {
		return ErrTruncated
	}
	if b[0]&flagCompressed == 0 {
		return ErrInvalidEncoding
	}
	if b[0]&flagInfinity != 0 {
		return ErrInfinity
	}
	if _, err := p.SetBytes(b[:size]); err != nil {
		return classify(err)
	}
	return nil
}

func classify(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, bls.ErrInvalidEncoding), errors.Is(err, bls.ErrInvalidInfinityEncoding):
		return fmt.Errorf("%w: %v", ErrInvalidEncoding, err)
	case strings.Contains(msg, "subgroup"):
		return ErrNotInSubgroup
	case strings.Contains(msg, "square root"):
		return ErrNotOnCurve
	}
	return fmt.Errorf("%w: %v", ErrInvalidEncoding, err)
}
