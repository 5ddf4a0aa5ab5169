package groth16

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"golang.org/x/sys/unix"

	"github.com/cuzk-dev/cuzk/internal/par"
)

// Parameters read, not held.
//
// A 32 GiB partition's .params file is about 61 GB (WindowPoSt) or 47 GB
// (PoRep): more than most hosts can hold decoded beside a partition's
// working set. MapParamsFile maps the file instead and decodes only its
// verifying key; the prover then reads each query's points from the
// mapping as its multi-exponentiation consumes them, a window at a time,
// and tells the kernel after each window that the bytes are no longer
// needed (MADV_DONTNEED: they leave the process's RSS and stay in the page
// cache only while memory allows). What the process holds of the file is
// therefore file-backed and evictable, a window or two at a time; what it
// allocates for the points is the window's decoded copy.

// QuerySizes are the lengths of a proving key's queries.
type QuerySizes struct {
	H, L, A, B int // B: b_g1 and b_g2 alike
}

// Queries returns the lengths of p's queries (resident or mapped).
func (p *Params) Queries() QuerySizes {
	if p.mapping != nil {
		return p.mapping.sizes
	}
	return QuerySizes{H: len(p.H), L: len(p.L), A: len(p.A), B: len(p.BG1)}
}

// Mapped reports whether p's queries are read from a mapped file
// (MapParamsFile) rather than held in memory.
func (p *Params) Mapped() bool { return p.mapping != nil }

// Close releases the file mapping of mapped parameters (no-op for resident
// ones). p must not be used afterwards; the caller guarantees no prover
// still reads it.
func (p *Params) Close() error {
	if p.mapping == nil {
		return nil
	}
	return p.mapping.close()
}

// mapping is the file behind mapped parameters.
type mapping struct {
	path  string
	data  []byte
	sizes QuerySizes
	// byte offsets of the first point of each query
	h, l, a, b1, b2 int64
	once            sync.Once
	cleanup         runtime.Cleanup
	// file says data maps a file (tests build mappings over the heap,
	// where MADV_DONTNEED would zero the bytes).
	file bool
	// raChunk is the most one MADV_WILLNEED call reads ahead on the
	// file's device (readaheadChunk).
	raChunk int64
}

// readaheadChunk is how many bytes one MADV_WILLNEED call reads into the
// page cache on the block device dev: Linux reads at most
// max(read_ahead_kb, max_sectors_kb) per call (force_page_cache_ra) and
// silently drops the rest of the range, so willNeed asks in chunks of it.
// 128 KiB, the kernel's default, where sysfs does not say.
func readaheadChunk(dev uint64) int64 {
	kb := func(path string) int64 {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v
	}
	dir := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(dev), unix.Minor(dev))
	for _, q := range []string{dir + "/queue", dir + "/../queue"} {
		if c := max(kb(q+"/read_ahead_kb"), kb(q+"/max_sectors_kb")); c > 0 {
			return min(max(c<<10, 128<<10), 16<<20)
		}
	}
	return 128 << 10
}

// shrunk reports whether the mapped file is now shorter than the mapping:
// truncated while mapped. A point in the page holding the new end reads as
// zeros, not as a fault; such a decoding failure is the file's change.
func (m *mapping) shrunk() bool {
	st, err := os.Stat(m.path)
	return m.file && (err != nil || st.Size() < int64(len(m.data)))
}

func (m *mapping) close() error {
	var err error
	m.once.Do(func() {
		m.cleanup.Stop()
		err = unix.Munmap(m.data)
	})
	return err
}

// MapOptions control MapParamsFile.
type MapOptions struct {
	// Verify decodes every point once at mapping time, in windows, with
	// the curve check and (SubgroupChecks) the batched subgroup test, so
	// a bad file fails here rather than inside a proof. Without it only
	// the header and the verifying key are read; the prover checks each
	// point's encoding as it decodes it, and curve membership through each
	// multi-exponentiation's result (a point off the curve leaves it off;
	// the point is then named by a checked pass, msmMapped).
	Verify         bool
	SubgroupChecks bool
	Workers        int
}

// MapParamsFile maps the .params file at path for proving without holding
// its points (see above): it checks the header (every vector length
// against the file size), decodes and fully checks the verifying key and,
// with opt.Verify, every point. Close releases the mapping; dropping the
// Params without Close releases it when the collector finds it unreachable.
func MapParamsFile(path string, opt MapOptions) (p *Params, err error) {
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unmap()
		}
	}()
	defer func() {
		if ferr := faultError(recover(), data); ferr != nil {
			p, err = nil, fmt.Errorf("groth16: %s: %w", path, ferr)
		}
	}()
	restore := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(restore)

	m := &mapping{path: path, data: data, file: true, raChunk: 128 << 10}
	if st, err := os.Stat(path); err == nil {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			m.raChunk = readaheadChunk(uint64(sys.Dev))
		}
	}
	spans, vkSize, err := layoutOf(data)
	if err != nil {
		return nil, fmt.Errorf("groth16: %s: %w: %w", path, ErrParamsFormat, err)
	}
	vk, _, err := decodeVerifyingKey(data[:vkSize], true)
	if err != nil {
		return nil, fmt.Errorf("groth16: %s: %w: %w", path, ErrParamsFormat, err)
	}
	m.sizes = QuerySizes{H: spans[0].n, L: spans[1].n, A: spans[2].n, B: spans[3].n}
	m.h, m.l, m.a, m.b1, m.b2 = spans[0].start, spans[1].start, spans[2].start, spans[3].start, spans[4].start
	p = &Params{VK: vk, mapping: m}
	if opt.Verify {
		if err := p.verifyMapped(opt); err != nil {
			return nil, fmt.Errorf("groth16: %s: %w: %w", path, ErrParamsFormat, err)
		}
	}
	// Nothing else references data once p is unreachable.
	m.cleanup = runtime.AddCleanup(p, func(b []byte) { _ = unix.Munmap(b) }, data)
	return p, nil
}

// layoutOf checks the vector lengths of a .params image against its size,
// without decoding any point, and returns the five spans (h, l, a, b_g1,
// b_g2) and the verifying key's size.
func layoutOf(b []byte) ([5]span, int64, error) {
	var spans [5]span
	_, vkSize, err := vkIC(b)
	if err != nil {
		return spans, 0, err
	}
	names := [5]string{"h", "l", "a", "b_g1", "b_g2"}
	pos := vkSize
	for i := range spans {
		s := &spans[i]
		s.name = names[i]
		if int64(len(b))-pos < 4 {
			return spans, 0, &FormatError{What: "length of " + s.name, Offset: pos, Err: ErrTruncated}
		}
		s.n = int(binary.BigEndian.Uint32(b[pos:]))
		pos += 4
		size := int64(G1Uncompressed)
		if i == 4 {
			size = G2Uncompressed
		}
		need := int64(s.n) * size
		if int64(len(b))-pos < need {
			return spans, 0, &FormatError{What: fmt.Sprintf("%s holds %d points (%d bytes) from byte %d but the data ends at %d", s.name, s.n, need, pos, len(b)),
				Offset: pos, Err: ErrTruncated}
		}
		s.start = pos
		pos += need
	}
	if pos != int64(len(b)) {
		return spans, 0, &FormatError{What: fmt.Sprintf("%d trailing bytes after b_g2", int64(len(b))-pos), Offset: pos}
	}
	if spans[3].n != spans[4].n {
		return spans, 0, &FormatError{What: fmt.Sprintf("b_g1 has %d points but b_g2 %d", spans[3].n, spans[4].n), Offset: spans[4].start - 4}
	}
	return spans, vkSize, nil
}

// verifyWindow is how many points a verification or proving window
// decodes at once: 96 MiB of G1 points, 192 MiB of G2.
const verifyWindow = 1 << 20

// verifyMapped decodes every point of p's mapping once, a window at a
// time, and reports the first bad one.
func (p *Params) verifyMapped(opt MapOptions) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for _, q := range []query[bls.G1Affine]{p.hQuery(), p.lQuery(), p.aQuery(), p.b1Query()} {
		if err := verifyQuery(q, opt.SubgroupChecks, workers, bls.IsInSubGroupBatchG1, (*bls.G1Affine).IsInSubGroup); err != nil {
			return err
		}
	}
	return verifyQuery(p.b2Query(), opt.SubgroupChecks, workers, bls.IsInSubGroupBatchG2, (*bls.G2Affine).IsInSubGroup)
}

func verifyQuery[A any](q query[A], subgroup bool, workers int, batch func([]A) bool, one func(*A) bool) error {
	buf := make([]A, min(verifyWindow, q.n))
	for lo := 0; lo < q.n; lo += verifyWindow {
		hi := min(lo+verifyWindow, q.n)
		pts, err := q.read(lo, hi, buf, workers)
		if err != nil {
			return err
		}
		if subgroup {
			var bad error
			var mu sync.Mutex
			par.Chunks(len(pts), 1<<14, workers, func(a, b int) {
				if !batch(pts[a:b]) {
					i := a + firstNotInSubgroup(pts[a:b], batch, one)
					mu.Lock()
					if bad == nil {
						bad = &PointError{Vector: q.name, Index: lo + i, Offset: q.offset(lo + i), Err: ErrNotInSubgroup}
					}
					mu.Unlock()
				}
			})
			if bad != nil {
				return bad
			}
		}
		q.drop(lo, hi)
	}
	return nil
}

// query is one point vector of a proving key: resident (pts) or read from
// a mapping (raw, n points of size bytes each).
type query[A any] struct {
	name   string
	pts    []A
	raw    []byte
	base   int64 // raw's offset in the file, for error messages
	n      int
	size   int
	decode func(*A, []byte, bool) error
	// encoding is decode without the curve check and the Montgomery
	// form, for reads whose results are checked instead (readNeeded
	// unchecked), and montgomery converts a chunk of its points; nil
	// means decode.
	encoding   func(*A, []byte) error
	montgomery func([]A)
	m          *mapping
}

func g1Query(name string, pts []bls.G1Affine) query[bls.G1Affine] {
	return query[bls.G1Affine]{name: name, pts: pts, n: len(pts), size: G1Uncompressed, decode: decodeG1Uncompressed}
}

func (p *Params) mappedG1(name string, off int64, n int) query[bls.G1Affine] {
	m := p.mapping
	return query[bls.G1Affine]{name: name, raw: m.data[off : off+int64(n)*G1Uncompressed], base: off, n: n, size: G1Uncompressed, decode: decodeG1Uncompressed, encoding: decodeG1Encoding, montgomery: montgomeryG1, m: m}
}

func (p *Params) hQuery() query[bls.G1Affine] {
	if p.mapping != nil {
		return p.mappedG1("h", p.mapping.h, p.mapping.sizes.H)
	}
	return g1Query("h", p.H)
}

func (p *Params) lQuery() query[bls.G1Affine] {
	if p.mapping != nil {
		return p.mappedG1("l", p.mapping.l, p.mapping.sizes.L)
	}
	return g1Query("l", p.L)
}

func (p *Params) aQuery() query[bls.G1Affine] {
	if p.mapping != nil {
		return p.mappedG1("a", p.mapping.a, p.mapping.sizes.A)
	}
	return g1Query("a", p.A)
}

func (p *Params) b1Query() query[bls.G1Affine] {
	if p.mapping != nil {
		return p.mappedG1("b_g1", p.mapping.b1, p.mapping.sizes.B)
	}
	return g1Query("b_g1", p.BG1)
}

func (p *Params) b2Query() query[bls.G2Affine] {
	if m := p.mapping; m != nil {
		n := m.sizes.B
		return query[bls.G2Affine]{name: "b_g2", raw: m.data[m.b2 : m.b2+int64(n)*G2Uncompressed], base: m.b2, n: n, size: G2Uncompressed, decode: decodeG2Uncompressed, encoding: decodeG2Encoding, montgomery: montgomeryG2, m: m}
	}
	return query[bls.G2Affine]{name: "b_g2", pts: p.BG2, n: len(p.BG2), size: G2Uncompressed, decode: decodeG2Uncompressed}
}

// resident says the points are in memory.
func (q query[A]) resident() bool { return q.m == nil }

// slice returns points [lo, hi) as a query of their own.
func (q query[A]) slice(lo, hi int) query[A] {
	s := q
	s.n = hi - lo
	if q.m == nil {
		s.pts = q.pts[lo:hi]
		return s
	}
	s.raw = q.raw[int64(lo)*int64(q.size) : int64(hi)*int64(q.size)]
	s.base = q.base + int64(lo)*int64(q.size)
	return s
}

func (q query[A]) offset(i int) int64 { return q.base + int64(i)*int64(q.size) }

// read returns points [lo, hi): a view of resident points, or mapped ones
// decoded into buf (which must hold hi−lo) by workers goroutines. A bad
// encoding, a point off the curve or a page the file no longer backs (it
// was truncated while mapped) is an error naming the point and its offset.
func (q query[A]) read(lo, hi int, buf []A, workers int) ([]A, error) {
	return q.readNeeded(lo, hi, buf, nil, workers, true)
}

// readNeeded is read, but of a mapped query it decodes point lo+i only
// where need[i] (every point when need is nil); the others are left as
// they were in buf, for a caller that never reads them. A bad point that
// is not needed is not noticed: it cannot change the result. Unless
// checked, points are decoded without the curve check (q.encoding), for a
// caller that checks its result (msmMapped) and then names the bad point
// with a checked pass (firstBadPoint).
func (q query[A]) readNeeded(lo, hi int, buf []A, need []bool, workers int, checked bool) ([]A, error) {
	if q.m == nil {
		return q.pts[lo:hi], nil
	}
	decode := func(p *A, b []byte) error { return q.decode(p, b, false) }
	var finish func([]A)
	if !checked && q.encoding != nil {
		decode, finish = q.encoding, q.montgomery
	}
	out := buf[:hi-lo]
	var mu sync.Mutex
	var first *PointError
	par.Chunks(hi-lo, 1<<12, workers, func(a, b int) {
		if e := q.readChunk(out, lo, a, b, need, decode, finish); e != nil {
			mu.Lock()
			if first == nil || e.Offset < first.Offset {
				first = e
			}
			mu.Unlock()
		}
	})
	if first != nil {
		if !errors.Is(first, ErrFileChanged) && q.m.shrunk() {
			first.Err = fmt.Errorf("%w (%w)", ErrFileChanged, first.Err)
		}
		return nil, first
	}
	return out, nil
}

// readChunk decodes points lo+a … lo+b−1 into out[a:b], guarding against
// faults on a mapping whose file shrank, and runs finish over out[a:b]
// (the points not needed as well: they are never read, and whatever they
// hold is below p).
func (q query[A]) readChunk(out []A, lo, a, b int, need []bool, decode func(*A, []byte) error, finish func([]A)) (perr *PointError) {
	restore := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(restore)
	defer func() {
		if ferr := faultError(recover(), q.m.data); ferr != nil {
			var fe *FormatError
			errors.As(ferr, &fe)
			perr = &PointError{Vector: q.name, Index: int((fe.Offset - q.base) / int64(q.size)), Offset: fe.Offset, Err: ErrFileChanged}
		}
	}()
	for i := a; i < b; i++ {
		if need != nil && !need[i] {
			continue
		}
		k := lo + i
		o := int64(k) * int64(q.size)
		if err := decode(&out[i], q.raw[o:o+int64(q.size)]); err != nil {
			return &PointError{Vector: q.name, Index: k, Offset: q.base + o, Err: err}
		}
	}
	if finish != nil {
		finish(out[a:b])
	}
	return nil
}

// willNeed asks the kernel to start reading points [lo, hi) of a mapped
// file into the page cache (MADV_WILLNEED, one readahead chunk per call)
// and returns at once, so that the next window's pages arrive while this
// one is summed: faulting them in as the decoders reach them left a
// Boolean-heavy MSM waiting on the disk (this machine's disk gives about
// 1 GB/s to faults, its decoders 2 GB/s). The pages are not mapped into
// the process and count against nothing until read. A goroutine makes the
// calls, which block while the requests are queued; being system calls,
// they leave the Go scheduler's processors to the workers.
func (q query[A]) willNeed(lo, hi int) {
	lo, hi = max(lo, 0), min(hi, q.n)
	if q.m == nil || !q.m.file || hi <= lo {
		return
	}
	page := int64(os.Getpagesize())
	start := (q.base + int64(lo)*int64(q.size)) / page * page
	end := q.base + int64(hi)*int64(q.size)
	chunk := max(q.m.raChunk, page)
	data := q.m.data
	go func() {
		for o := start; o < end; o += chunk {
			_ = unix.Madvise(data[o:min(o+chunk, end)], unix.MADV_WILLNEED)
		}
	}()
}

// drop tells the kernel that points [lo, hi) of a mapped query have been
// consumed, so that their pages leave this process's RSS (a resident
// query ignores it). Pages are dropped whole, so the bytes shared with
// the neighbouring points stay.
func (q query[A]) drop(lo, hi int) {
	if q.m == nil || !q.m.file || hi <= lo {
		return
	}
	page := int64(os.Getpagesize())
	start := q.base + int64(lo)*int64(q.size)
	end := q.base + int64(hi)*int64(q.size)
	start = (start + page - 1) / page * page
	end = end / page * page
	if end <= start {
		return
	}
	_ = unix.Madvise(q.m.data[start:end], unix.MADV_DONTNEED)
}
