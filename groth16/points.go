package groth16

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"

	"github.com/cuzk-dev/cuzk/internal/ifma"
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
	if err := decodeG1Encoding(p, b); err != nil {
		return err
	}
	p.X.Mul(&p.X, &montgomeryR2)
	p.Y.Mul(&p.Y, &montgomeryR2)
	if !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// decodeG1Encoding is decodeG1Uncompressed without the curve check and
// without the Montgomery form: the flags, infinity and canonical
// coordinates, left as plain integers for montgomeryG1 to convert a chunk
// at a time (eight lanes at once on the IFMA kernels). The prover decodes
// mapped parameters with it and checks the curve on each
// multi-exponentiation's result instead (msmMapped), which a point off the
// curve cannot leave on it; the curve check was 40 % of decoding, and
// decoding 9 % of the dense H MSM.
func decodeG1Encoding(p *bls.G1Affine, b []byte) error {
	if err := uncompressedHeader(b, G1Uncompressed); err != nil {
		return err
	}
	if !plainFp(&p.X, b[:fp.Bytes], true) {
		return fmt.Errorf("%w: x: not below the modulus", ErrInvalidEncoding)
	}
	if !plainFp(&p.Y, b[fp.Bytes:2*fp.Bytes], false) {
		return fmt.Errorf("%w: y: not below the modulus", ErrInvalidEncoding)
	}
	return nil
}

// uncompressedHeader checks an uncompressed point's length and flags: not
// compressed, not infinity.
func uncompressedHeader(b []byte, size int) error {
	if len(b) < size {
		return ErrTruncated
	}
	switch b[0] & flagMask {
	case 0:
	case flagInfinity:
		return ErrInfinity
	default:
		return ErrInvalidEncoding
	}
	return nil
}

// plainFp reads a 48-byte big-endian integer (its top three bits masked
// off when flagged: they hold the encoding's flags) into z's limbs as
// they are, and reports whether it is below p.
func plainFp(z *fp.Element, b []byte, flagged bool) bool {
	_ = b[fp.Bytes-1]
	top := binary.BigEndian.Uint64(b[0:8])
	if flagged {
		top &^= uint64(flagMask) << 56
	}
	z[5] = top
	z[4] = binary.BigEndian.Uint64(b[8:16])
	z[3] = binary.BigEndian.Uint64(b[16:24])
	z[2] = binary.BigEndian.Uint64(b[24:32])
	z[1] = binary.BigEndian.Uint64(b[32:40])
	z[0] = binary.BigEndian.Uint64(b[40:48])
	for i := 5; i >= 0; i-- {
		if z[i] != modulusLimbs[i] {
			return z[i] < modulusLimbs[i]
		}
	}
	return false // equal to p
}

// modulusLimbs is p's little-endian limbs.
var modulusLimbs = func() (l [6]uint64) {
	m := fp.Modulus()
	for i := range l {
		l[i] = new(big.Int).Rsh(m, uint(64*i)).Uint64()
	}
	return l
}()

// montgomeryR2 converts plain limbs to Montgomery form (ifma.MulConst).
var montgomeryR2 = ifma.MontgomeryR2()

// montgomeryG1 finishes decodeG1Encoding's points: their coordinates,
// contiguous in memory, to Montgomery form.
func montgomeryG1(pts []bls.G1Affine) {
	if len(pts) > 0 {
		ifma.MulConst(unsafe.Slice(&pts[0].X, 2*len(pts)), &montgomeryR2)
	}
}

// montgomeryG2 is montgomeryG1 for decodeG2Encoding's points.
func montgomeryG2(pts []bls.G2Affine) {
	if len(pts) > 0 {
		ifma.MulConst(unsafe.Slice(&pts[0].X.A0, 4*len(pts)), &montgomeryR2)
	}
}

// decodeG2Uncompressed decodes a 192-byte point (x.c1, x.c0, y.c1, y.c0),
// rejecting infinity.
func decodeG2Uncompressed(p *bls.G2Affine, b []byte, subgroup bool) error {
	if err := decodeG2Encoding(p, b); err != nil {
		return err
	}
	for _, c := range []*fp.Element{&p.X.A0, &p.X.A1, &p.Y.A0, &p.Y.A1} {
		c.Mul(c, &montgomeryR2)
	}
	if !p.IsOnCurve() {
		return ErrNotOnCurve
	}
	if subgroup && !p.IsInSubGroup() {
		return ErrNotInSubgroup
	}
	return nil
}

// decodeG2Encoding is decodeG2Uncompressed without the curve check and
// the Montgomery form (see decodeG1Encoding; montgomeryG2 converts).
func decodeG2Encoding(p *bls.G2Affine, b []byte) error {
	if err := uncompressedHeader(b, G2Uncompressed); err != nil {
		return err
	}
	for _, c := range []struct {
		dst  *fp.Element
		off  int
		name string
	}{{&p.X.A1, 0, "x.c1"}, {&p.X.A0, 48, "x.c0"}, {&p.Y.A1, 96, "y.c1"}, {&p.Y.A0, 144, "y.c0"}} {
		if !plainFp(c.dst, b[c.off:c.off+fp.Bytes], c.off == 0) {
			return fmt.Errorf("%w: %s: not below the modulus", ErrInvalidEncoding, c.name)
		}
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
