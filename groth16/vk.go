package groth16

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
)

// VerifyingKey is bellperson's VerifyingKey. IC has one point per public
// input plus one for ONE.
type VerifyingKey struct {
	AlphaG1 bls.G1Affine
	BetaG1  bls.G1Affine
	BetaG2  bls.G2Affine
	GammaG2 bls.G2Affine
	DeltaG1 bls.G1Affine
	DeltaG2 bls.G2Affine
	IC      []bls.G1Affine
}

// vkFixedSize is the size of the vk before its IC points.
const vkFixedSize = 3*G1Uncompressed + 3*G2Uncompressed + 4

// EncodedSize is the size of vk's encoding.
func (vk *VerifyingKey) EncodedSize() int64 {
	return vkFixedSize + int64(len(vk.IC))*G1Uncompressed
}

// Bytes returns vk in bellperson's layout.
func (vk *VerifyingKey) Bytes() []byte {
	buf := make([]byte, 0, vk.EncodedSize())
	g1 := func(p *bls.G1Affine) { b := p.RawBytes(); buf = append(buf, b[:]...) }
	g2 := func(p *bls.G2Affine) { b := p.RawBytes(); buf = append(buf, b[:]...) }
	g1(&vk.AlphaG1)
	g1(&vk.BetaG1)
	g2(&vk.BetaG2)
	g2(&vk.GammaG2)
	g1(&vk.DeltaG1)
	g2(&vk.DeltaG2)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(vk.IC)))
	for i := range vk.IC {
		g1(&vk.IC[i])
	}
	return buf
}

// WriteTo writes vk in bellperson's layout.
func (vk *VerifyingKey) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(vk.Bytes())
	return int64(n), err
}

// DecodeVerifyingKey decodes a vk from the front of b and returns the number
// of bytes it used. The verifying key is small and is always fully checked
// (subgroup included).
func DecodeVerifyingKey(b []byte) (*VerifyingKey, int, error) {
	vk := new(VerifyingKey)
	off := 0
	g1 := func(p *bls.G1Affine, name string) error {
		if err := decodeG1Uncompressed(p, b[off:], true); err != nil {
			return &PointError{Vector: name, Offset: int64(off), Err: err}
		}
		off += G1Uncompressed
		return nil
	}
	g2 := func(p *bls.G2Affine, name string) error {
		if err := decodeG2Uncompressed(p, b[off:], true); err != nil {
			return &PointError{Vector: name, Offset: int64(off), Err: err}
		}
		off += G2Uncompressed
		return nil
	}
	for _, step := range []func() error{
		func() error { return g1(&vk.AlphaG1, "vk.alpha_g1") },
		func() error { return g1(&vk.BetaG1, "vk.beta_g1") },
		func() error { return g2(&vk.BetaG2, "vk.beta_g2") },
		func() error { return g2(&vk.GammaG2, "vk.gamma_g2") },
		func() error { return g1(&vk.DeltaG1, "vk.delta_g1") },
		func() error { return g2(&vk.DeltaG2, "vk.delta_g2") },
	} {
		if err := step(); err != nil {
			return nil, 0, fmt.Errorf("groth16: verifying key: %w", err)
		}
	}
	if len(b)-off < 4 {
		return nil, 0, fmt.Errorf("groth16: verifying key: ic length at byte %d: %w", off, ErrTruncated)
	}
	n := int(binary.BigEndian.Uint32(b[off:]))
	off += 4
	if n == 0 {
		return nil, 0, fmt.Errorf("groth16: verifying key: empty IC")
	}
	if need := int64(n) * G1Uncompressed; int64(len(b)-off) < need {
		return nil, 0, fmt.Errorf("groth16: verifying key: ic holds %d points (%d bytes) but only %d bytes follow: %w", n, need, len(b)-off, ErrTruncated)
	}
	vk.IC = make([]bls.G1Affine, n)
	for i := range vk.IC {
		if err := decodeG1Uncompressed(&vk.IC[i], b[off:], true); err != nil {
			return nil, 0, fmt.Errorf("groth16: verifying key: %w", &PointError{Vector: "vk.ic", Index: i, Offset: int64(off), Err: err})
		}
		off += G1Uncompressed
	}
	return vk, off, nil
}

// ReadVerifyingKeyFile reads a .vk file; trailing bytes are an error.
func ReadVerifyingKeyFile(path string) (*VerifyingKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("groth16: %w", err)
	}
	vk, n, err := DecodeVerifyingKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if n != len(b) {
		return nil, fmt.Errorf("%s: %d trailing bytes after the verifying key", path, len(b)-n)
	}
	return vk, nil
}

// WriteVerifyingKeyFile writes vk to path.
func WriteVerifyingKeyFile(path string, vk *VerifyingKey) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	w := bufio.NewWriter(f)
	if _, err := vk.WriteTo(w); err != nil {
		f.Close()
		return fmt.Errorf("groth16: writing %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("groth16: writing %s: %w", path, err)
	}
	return f.Close()
}
