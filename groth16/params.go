package groth16

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"golang.org/x/sys/unix"

	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/internal/regfile"
)

// Params are bellperson's Groth16 parameters (the proving key).
//
//	H   G1, m−1 points: τ^i·t(τ)/δ
//	L   G1, one per aux variable: (β·u_i + α·v_i + w_i)/δ
//	A   G1, one per input, then one per A-dense aux variable: u_i
//	BG1 G1, one per B-dense input, then per B-dense aux variable: v_i
//	BG2 G2, same as BG1
type Params struct {
	VK  *VerifyingKey
	H   []bls.G1Affine
	L   []bls.G1Affine
	A   []bls.G1Affine
	BG1 []bls.G1Affine
	BG2 []bls.G2Affine

	// mapping, when set, holds the queries instead of H … BG2, which are
	// then nil (MapParamsFile).
	mapping *mapping
}

// NumInputs is the number of inputs the circuit has, ONE included.
func (p *Params) NumInputs() int { return len(p.VK.IC) }

// EncodedSize is the size of the .params encoding.
func (p *Params) EncodedSize() int64 {
	q := p.Queries()
	return p.VK.EncodedSize() + 5*4 +
		int64(q.H+q.L+q.A+q.B)*G1Uncompressed +
		int64(q.B)*G2Uncompressed
}

// MemorySize is the heap the decoded points occupy: the verifying key
// alone for mapped parameters, whose queries are file-backed.
func (p *Params) MemorySize() int64 {
	const g1, g2 = 96, 192 // affine, Montgomery form
	return int64(len(p.H)+len(p.L)+len(p.A)+len(p.BG1)+len(p.VK.IC))*g1 + int64(len(p.BG2))*g2
}

// WriteTo writes p in bellperson's .params layout (resident parameters
// only).
func (p *Params) WriteTo(w io.Writer) (int64, error) {
	if p.mapping != nil {
		return 0, errors.New("groth16: mapped parameters are a file already; copy the file")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	k, err := bw.Write(p.VK.Bytes())
	n += int64(k)
	if err != nil {
		return n, err
	}
	writeG1 := func(v []bls.G1Affine) error {
		var l [4]byte
		binary.BigEndian.PutUint32(l[:], uint32(len(v)))
		k, err := bw.Write(l[:])
		n += int64(k)
		if err != nil {
			return err
		}
		for i := range v {
			b := v[i].RawBytes()
			k, err := bw.Write(b[:])
			n += int64(k)
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, v := range [][]bls.G1Affine{p.H, p.L, p.A, p.BG1} {
		if err := writeG1(v); err != nil {
			return n, err
		}
	}
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], uint32(len(p.BG2)))
	k, err = bw.Write(l[:])
	n += int64(k)
	if err != nil {
		return n, err
	}
	for i := range p.BG2 {
		b := p.BG2[i].RawBytes()
		k, err := bw.Write(b[:])
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// WriteParamsFile writes p to path atomically (temp file, then rename), so a
// crash never leaves a truncated file under the final name.
func WriteParamsFile(path string, p *Params) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("groth16: %w", err)
	}
	if _, err := p.WriteTo(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("groth16: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("groth16: writing %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// LoadOptions control parameter decoding.
type LoadOptions struct {
	// SubgroupChecks verifies every point is in the prime-order subgroup
	// (batched, probabilistic). It costs several times the rest of
	// decoding: leave it off for official files whose digests were checked
	// (rust-fil-proofs loads them unchecked too) and for parameters this
	// machine generated; turn it on for files of unknown provenance.
	SubgroupChecks bool
	// Workers decoding in parallel; 0 means GOMAXPROCS.
	Workers int

	// guardFaults: the bytes are a file mapping (LoadParamsFile), so a
	// read may fault if the file shrinks; each decoding goroutine turns
	// that into ErrFileChanged.
	guardFaults bool
}

// ErrParamsFormat is returned when data is not a well-formed .params image.
var ErrParamsFormat = errors.New("malformed groth16 parameters")

// span is one point vector of a .params image.
type span struct {
	name  string
	g1    *[]bls.G1Affine
	g2    *[]bls.G2Affine
	start int64
	n     int
}

// DecodeParams decodes a whole .params image. Every length is checked
// against the data before anything is allocated or any point decoded, so a
// malformed image is rejected at once; points are then decoded in parallel
// straight into their final slices. Errors wrap ErrParamsFormat.
func DecodeParams(b []byte, opt LoadOptions) (*Params, error) {
	p, err := decodeParams(b, opt)
	if err != nil {
		return nil, fmt.Errorf("groth16: %w: %w", ErrParamsFormat, err)
	}
	return p, nil
}

func decodeParams(b []byte, opt LoadOptions) (*Params, error) {
	layout, vkSize, err := layoutOf(b)
	if err != nil {
		return nil, err
	}
	p := &Params{}
	spans := layout[:]
	for i, dst := range []*[]bls.G1Affine{&p.H, &p.L, &p.A, &p.BG1} {
		spans[i].g1 = dst
	}
	spans[4].g2 = &p.BG2
	if p.VK, _, err = decodeVerifyingKey(b[:vkSize], true); err != nil {
		return nil, err
	}
	for i := range spans {
		if s := &spans[i]; s.g1 != nil {
			*s.g1 = make([]bls.G1Affine, s.n)
		} else {
			*s.g2 = make([]bls.G2Affine, s.n)
		}
	}

	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const chunk = 1 << 14
	type job struct {
		s      *span
		lo, hi int
	}
	var jobs []job
	for i := range spans {
		for lo := 0; lo < spans[i].n; lo += chunk {
			jobs = append(jobs, job{&spans[i], lo, min(lo+chunk, spans[i].n)})
		}
	}
	var (
		mu       sync.Mutex
		firstErr *PointError
	)
	par.Chunks(len(jobs), 1, workers, func(lo, hi int) {
		if opt.guardFaults {
			// Each goroutine needs its own: SetPanicOnFault is per goroutine.
			restore := debug.SetPanicOnFault(true)
			defer debug.SetPanicOnFault(restore)
		}
		for _, j := range jobs[lo:hi] {
			e := decodeChunkGuarded(b, j.s, j.lo, j.hi, opt)
			if e == nil {
				continue
			}
			mu.Lock()
			// Report the earliest failure so that errors are deterministic.
			if firstErr == nil || e.Offset < firstErr.Offset {
				firstErr = e
			}
			mu.Unlock()
		}
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return p, nil
}

// decodeChunkGuarded is decodeChunk that, over a mapped file
// (LoadOptions.guardFaults), reports a fault on a vanished page as the
// point's error instead of crashing the worker.
func decodeChunkGuarded(b []byte, s *span, lo, hi int, opt LoadOptions) (perr *PointError) {
	if opt.guardFaults {
		defer func() {
			if ferr := faultError(recover(), b); ferr != nil {
				var fe *FormatError
				errors.As(ferr, &fe)
				perr = &PointError{Vector: s.name, Index: lo + int(fe.Offset-s.start)/pointSize(s), Offset: fe.Offset, Err: ErrFileChanged}
			}
		}()
	}
	return decodeChunk(b, s, lo, hi, opt.SubgroupChecks)
}

func pointSize(s *span) int {
	if s.g2 != nil {
		return G2Uncompressed
	}
	return G1Uncompressed
}

// decodeChunk decodes points [lo, hi) of one vector. Subgroup membership is
// checked for the whole chunk at once (gnark-crypto's probabilistic batch
// test, error < 2^-64, several times cheaper than one check per point);
// only a failing chunk is rechecked point by point to name the culprit.
func decodeChunk(b []byte, s *span, lo, hi int, subgroup bool) *PointError {
	if s.g1 != nil {
		pts := *s.g1
		for i := lo; i < hi; i++ {
			o := s.start + int64(i)*G1Uncompressed
			if err := decodeG1Uncompressed(&pts[i], b[o:o+G1Uncompressed], false); err != nil {
				return &PointError{Vector: s.name, Index: i, Offset: o, Err: err}
			}
		}
		if subgroup && !bls.IsInSubGroupBatchG1(pts[lo:hi]) {
			i := lo + firstNotInSubgroup(pts[lo:hi], bls.IsInSubGroupBatchG1, (*bls.G1Affine).IsInSubGroup)
			return &PointError{Vector: s.name, Index: i, Offset: s.start + int64(i)*G1Uncompressed, Err: ErrNotInSubgroup}
		}
		return nil
	}
	pts := *s.g2
	for i := lo; i < hi; i++ {
		o := s.start + int64(i)*G2Uncompressed
		if err := decodeG2Uncompressed(&pts[i], b[o:o+G2Uncompressed], false); err != nil {
			return &PointError{Vector: s.name, Index: i, Offset: o, Err: err}
		}
	}
	if subgroup && !bls.IsInSubGroupBatchG2(pts[lo:hi]) {
		i := lo + firstNotInSubgroup(pts[lo:hi], bls.IsInSubGroupBatchG2, (*bls.G2Affine).IsInSubGroup)
		return &PointError{Vector: s.name, Index: i, Offset: s.start + int64(i)*G2Uncompressed, Err: ErrNotInSubgroup}
	}
	return nil
}

// firstNotInSubgroup returns the index of the first point of pts outside the
// prime-order subgroup, pts having failed the batch test. It bisects with
// the batch test (one-sided: it never fails a clean range), which costs about
// one more batch test over pts; checking point by point would cost several
// times that, an easy way for a hostile file to stall a load. If the
// probabilistic test missed the culprit on the way down (< 2^-64) it falls
// back to checking every point.
func firstNotInSubgroup[A any](pts []A, batch func([]A) bool, one func(*A) bool) int {
	lo, hi := 0, len(pts)
	for hi-lo > 64 {
		mid := lo + (hi-lo)/2
		if !batch(pts[lo:mid]) {
			hi = mid
		} else {
			lo = mid
		}
	}
	for i := lo; i < hi; i++ {
		if !one(&pts[i]) {
			return i
		}
	}
	for i := range pts {
		if !one(&pts[i]) {
			return i
		}
	}
	return len(pts) - 1 // unreachable: pts failed the batch test
}

// LoadParamsFile memory-maps a .params file and decodes it; the mapping is
// released before returning, so the file's bytes are held only once (as
// decoded points). A file truncated while it is read (another process
// rewriting the parameter cache in place) is an error naming the byte that
// vanished (ErrFileChanged), not a SIGBUS that kills the process.
func LoadParamsFile(path string, opt LoadOptions) (*Params, error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer unmap()
	return decodeMapped(path, data, opt)
}

// mapFile maps path read-only; unmap releases it.
func mapFile(path string) (data []byte, unmap func(), err error) {
	// A FIFO or device in the parameter cache is refused here, at once,
	// instead of blocking the load (and its circuit) in open(2).
	f, st, err := regfile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("groth16: %w", err)
	}
	defer f.Close()
	if st.Size() == 0 {
		return nil, nil, fmt.Errorf("groth16: %s: %w: empty file", path, ErrParamsFormat)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("groth16: mmap %s: %w", path, err)
	}
	_ = unix.Madvise(data, unix.MADV_SEQUENTIAL)
	return data, func() { _ = unix.Munmap(data) }, nil
}

// decodeMapped decodes the mapping data of path, turning a fault on a
// page the file no longer backs into ErrFileChanged.
func decodeMapped(path string, data []byte, opt LoadOptions) (p *Params, err error) {
	defer func() {
		if ferr := faultError(recover(), data); ferr != nil {
			p, err = nil, fmt.Errorf("groth16: %s: %w", path, ferr)
		}
	}()
	restore := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(restore)
	opt.guardFaults = true
	p, err = DecodeParams(data, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ErrFileChanged is returned when a memory-mapped parameter file stops
// backing the bytes being read: it was truncated (or rewritten in place)
// while loading. A file replaced by rename does not do this; the mapping
// keeps the old one.
var ErrFileChanged = errors.New("the file shrank while it was read (truncated or rewritten in place)")

// faultError converts a recovered memory fault inside data into an error
// with its offset; nil stays nil and any other panic is re-raised.
func faultError(r any, data []byte) error {
	if r == nil {
		return nil
	}
	fault, ok := r.(interface{ Addr() uintptr })
	if !ok {
		panic(r)
	}
	addr := fault.Addr()
	base := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	if addr < base || addr >= base+uintptr(len(data)) {
		panic(r) // a fault outside the mapping is a bug, not the file
	}
	return &FormatError{What: fmt.Sprintf("reading a %d-byte mapping", len(data)), Offset: int64(addr - base), Err: ErrFileChanged}
}

// FileTarget is a ParamsTarget over a file. Allocate reserves the file's
// blocks (fallocate), so that a disk too small for the image fails at once
// with ENOSPC instead of after the hour its points take; where the file
// system cannot reserve, the file is only extended.
type FileTarget struct{ *os.File }

// Allocate implements ParamsTarget.
func (f FileTarget) Allocate(size int64) error {
	err := unix.Fallocate(int(f.Fd()), 0, 0, size)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		err = f.Truncate(size)
	}
	if err != nil {
		return fmt.Errorf("reserving %d bytes for %s: %w", size, f.Name(), err)
	}
	return nil
}
