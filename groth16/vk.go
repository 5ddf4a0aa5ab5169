package groth16

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/internal/regfile"
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
// (subgroup included). Errors wrap ErrVerifyingKeyFormat.
func DecodeVerifyingKey(b []byte) (*VerifyingKey, int, error) {
	vk, n, err := decodeVerifyingKey(b, false)
	if err != nil {
		return nil, 0, fmt.Errorf("groth16: %w: %w", ErrVerifyingKeyFormat, err)
	}
	return vk, n, nil
}

// vkIC reads the IC length of a vk at the front of b and returns the vk's
// encoded size, checking that b holds it all. Nothing is allocated, so a
// hostile length costs nothing.
func vkIC(b []byte) (n int, size int64, err error) {
	off := vkFixedSize - 4
	if len(b) < vkFixedSize {
		return 0, 0, &FormatError{What: fmt.Sprintf("verifying key needs %d bytes before its IC points", vkFixedSize), Offset: int64(len(b)), Err: ErrTruncated}
	}
	n = int(binary.BigEndian.Uint32(b[off:]))
	if n == 0 {
		return 0, 0, &FormatError{What: "empty ic", Offset: int64(off)}
	}
	size = vkFixedSize + int64(n)*G1Uncompressed
	if int64(len(b)) < size {
		return 0, 0, &FormatError{What: fmt.Sprintf("ic holds %d points (%d bytes) but only %d bytes follow", n, int64(n)*G1Uncompressed, len(b)-vkFixedSize),
			Offset: int64(len(b)), Err: ErrTruncated}
	}
	return n, size, nil
}

// decodeVerifyingKey decodes the vk at the front of b; with exact, b must
// hold nothing else. Lengths are checked before any point is decoded, so
// data with the wrong structure is rejected at once. Its errors are a
// *PointError or *FormatError, without prefix.
func decodeVerifyingKey(b []byte, exact bool) (*VerifyingKey, int, error) {
	n, size, err := vkIC(b)
	if err != nil {
		return nil, 0, err
	}
	if exact && int64(len(b)) != size {
		return nil, 0, &FormatError{What: fmt.Sprintf("%d trailing bytes after the verifying key", int64(len(b))-size), Offset: size}
	}
	vk := new(VerifyingKey)
	off := 0
	g1 := func(p *bls.G1Affine, name string, i int) error {
		if err := decodeG1Uncompressed(p, b[off:], true); err != nil {
			return &PointError{Vector: name, Index: i, Offset: int64(off), Err: err}
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
		func() error { return g1(&vk.AlphaG1, "vk.alpha_g1", 0) },
		func() error { return g1(&vk.BetaG1, "vk.beta_g1", 0) },
		func() error { return g2(&vk.BetaG2, "vk.beta_g2") },
		func() error { return g2(&vk.GammaG2, "vk.gamma_g2") },
		func() error { return g1(&vk.DeltaG1, "vk.delta_g1", 0) },
		func() error { return g2(&vk.DeltaG2, "vk.delta_g2") },
	} {
		if err := step(); err != nil {
			return nil, 0, err
		}
	}
	off += 4 // the IC length, read by vkIC
	vk.IC = make([]bls.G1Affine, n)
	if err := decodeIC(vk.IC, b, off); err != nil {
		return nil, 0, err
	}
	return vk, off + n*G1Uncompressed, nil
}

// icChunk is how many IC points one worker decodes at a time: one chunk,
// run inline, for a PoRep key's few hundred, about fifty for a 64 GiB
// WindowPoSt key's 25,301.
const icChunk = 512

// decodeIC decodes len(ic) points from b at off on every CPU: the subgroup
// check costs about 40 µs a point, which made a 64 GiB WindowPoSt key a
// second of serial work in every verify-post. The error is the first bad
// point's, whichever worker found it.
func decodeIC(ic []bls.G1Affine, b []byte, off int) error {
	errs := make([]error, (len(ic)+icChunk-1)/icChunk)
	par.Chunks(len(ic), icChunk, runtime.GOMAXPROCS(0), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			at := off + i*G1Uncompressed
			if err := decodeG1Uncompressed(&ic[i], b[at:], true); err != nil {
				errs[lo/icChunk] = &PointError{Vector: "vk.ic", Index: i, Offset: int64(at), Err: err}
				return
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// ReadVerifyingKeyFile reads a .vk file; trailing bytes are an error.
func ReadVerifyingKeyFile(path string) (*VerifyingKey, error) {
	b, _, err := regfile.ReadFile(path, 0)
	if err != nil {
		return nil, fmt.Errorf("groth16: %w", err)
	}
	vk, _, err := decodeVerifyingKey(b, true)
	if err != nil {
		return nil, fmt.Errorf("groth16: %s: %w: %w", path, ErrVerifyingKeyFormat, err)
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
