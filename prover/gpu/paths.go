package gpu

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cuzk-dev/cuzk/groth16"
)

// ErrUnknownParams is returned when Start is given parameters whose .params
// file was never registered in Paths.
var ErrUnknownParams = errors.New("gpu: no .params file registered for these parameters")

// ErrParamsMismatch is returned when a .params file does not hold the
// parameters it is registered for (another circuit, or a truncated file).
var ErrParamsMismatch = errors.New("gpu: .params file does not match the parameters")

// Paths maps decoded parameters to the .params files they were read from.
// supraseal reads the file again itself, into pinned memory, so the file
// must be the very one the parameters came from; Register checks that
// cheaply (verifying key, vector lengths, file size) without reading the
// points.
type Paths struct {
	mu sync.Mutex
	m  map[*groth16.Params]string
}

// Register records that p was read from path, after checking the file.
func (ps *Paths) Register(p *groth16.Params, path string) error {
	if err := CheckParamsFile(path, p); err != nil {
		return err
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.m == nil {
		ps.m = make(map[*groth16.Params]string)
	}
	ps.m[p] = path
	return nil
}

// Forget drops p (when the engine evicts it).
func (ps *Paths) Forget(p *groth16.Params) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	delete(ps.m, p)
}

// Lookup returns the file registered for p.
func (ps *Paths) Lookup(p *groth16.Params) (string, error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	path, ok := ps.m[p]
	if !ok {
		return "", ErrUnknownParams
	}
	return path, nil
}

// CheckParamsFile checks that the .params file at path encodes p: the same
// verifying key bytes, the same lengths of h, l, a, b_g1 and b_g2 at the
// offsets supraseal's reader expects, and nothing after b_g2.
func CheckParamsFile(path string, p *groth16.Params) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if st.Size() != p.EncodedSize() {
		return fmt.Errorf("%w: %s is %d bytes, the parameters encode to %d", ErrParamsMismatch, path, st.Size(), p.EncodedSize())
	}
	vk := p.VK.Bytes()
	got := make([]byte, len(vk))
	if _, err := io.ReadFull(f, got); err != nil {
		return fmt.Errorf("gpu: %s: %w", path, err)
	}
	if !bytes.Equal(got, vk) {
		return fmt.Errorf("%w: %s has another verifying key", ErrParamsMismatch, path)
	}
	off := int64(len(vk))
	q := p.Queries()
	for _, v := range []struct {
		name string
		n    int
		size int64
	}{
		{"h", q.H, groth16.G1Uncompressed},
		{"l", q.L, groth16.G1Uncompressed},
		{"a", q.A, groth16.G1Uncompressed},
		{"b_g1", q.B, groth16.G1Uncompressed},
		{"b_g2", q.B, groth16.G2Uncompressed},
	} {
		var l [4]byte
		if _, err := f.ReadAt(l[:], off); err != nil {
			return fmt.Errorf("gpu: %s: length of %s: %w", path, v.name, err)
		}
		if n := binary.BigEndian.Uint32(l[:]); int(n) != v.n {
			return fmt.Errorf("%w: %s has %d %s points, the parameters %d", ErrParamsMismatch, path, n, v.name, v.n)
		}
		off += 4 + int64(v.n)*v.size
	}
	return nil
}
