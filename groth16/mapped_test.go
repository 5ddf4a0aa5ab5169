package groth16

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"golang.org/x/sys/unix"

	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/internal/par"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// encodeQuery returns the .params encoding of points, as a mapped query
// over it sees them.
func g1Raw(pts []bls.G1Affine) []byte {
	var b []byte
	for i := range pts {
		r := pts[i].RawBytes()
		b = append(b, r[:]...)
	}
	return b
}

func g2Raw(pts []bls.G2Affine) []byte {
	var b []byte
	for i := range pts {
		r := pts[i].RawBytes()
		b = append(b, r[:]...)
	}
	return b
}

// TestMappedMSMMatchesResident: the windowed multi-exponentiation over a
// mapped query gives the resident one's point, for density-filtered and
// unfiltered scalars, Boolean-heavy and dense, with windows and pieces
// that do and do not divide the input, with and without a yield function.
func TestMappedMSMMatchesResident(t *testing.T) {
	const n = 3000
	for _, mix := range []struct{ zero, one float64 }{{0.5, 0.45}, {0, 0}, {0.2, 0.1}} {
		scalars, p1, p2, sel := msmInputs(n, mix.zero, mix.one, 21)
		for _, filt := range []*r1cs.Bitset{nil, sel} {
			k := n
			if filt != nil {
				k = filt.Count()
			}
			want1, err := msmG1(p1[:k], scalars, filt, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			want2, err := msmG2(p2[:k], scalars, filt, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := &mapping{}
			raw1, raw2 := g1Raw(p1[:k]), g2Raw(p2[:k])
			m.data = append(append([]byte(nil), raw1...), raw2...)
			q1 := query[bls.G1Affine]{name: "q1", raw: m.data[:len(raw1)], n: k, size: G1Uncompressed, decode: decodeG1Uncompressed, encoding: decodeG1Encoding, montgomery: montgomeryG1, m: m}
			q2 := query[bls.G2Affine]{name: "q2", raw: m.data[len(raw1):], base: int64(len(raw1)), n: k, size: G2Uncompressed, decode: decodeG2Uncompressed, encoding: decodeG2Encoding, montgomery: montgomeryG2, m: m}
			yields := 0
			// {1 << 20, 1500}: two dense pieces that share their buckets (vecStream).
			for _, shape := range []struct{ window, piece int }{{64, 100}, {640, 7}, {1 << 20, 1 << 22}, {1 << 20, 1500}} {
				for _, y := range []func() error{nil, func() error { yields++; return nil }} {
					got1, err := msmMapped[bls.G1Affine, bls.G1Jac, g1Batch](q1, scalars, filt, 3, y, shape.window, shape.piece)
					if err != nil || !got1.Equal(&want1) {
						t.Fatalf("G1 mix %v filtered %v window %d piece %d: differs (%v)", mix, filt != nil, shape.window, shape.piece, err)
					}
					got2, err := msmMapped[bls.G2Affine, bls.G2Jac, g2Batch](q2, scalars, filt, 3, y, shape.window, shape.piece)
					if err != nil || !got2.Equal(&want2) {
						t.Fatalf("G2 mix %v filtered %v window %d piece %d: differs (%v)", mix, filt != nil, shape.window, shape.piece, err)
					}
				}
			}
			if yields == 0 {
				t.Fatal("the yield function was never called")
			}
		}
	}
}

// TestMappedBadPoint: a corrupt point in a mapped query is an error
// naming the query, the point and its byte offset.
func TestMappedBadPoint(t *testing.T) {
	scalars, p1, _, _ := msmInputs(200, 0, 0, 5)
	raw := g1Raw(p1)
	raw[96*37+50] ^= 1 // y of point 37: off the curve
	m := &mapping{data: raw}
	q := query[bls.G1Affine]{name: "l", raw: raw, base: 1000, n: len(p1), size: G1Uncompressed, decode: decodeG1Uncompressed, encoding: decodeG1Encoding, montgomery: montgomeryG1, m: m}
	_, err := msmMapped[bls.G1Affine, bls.G1Jac, g1Batch](q, scalars, nil, 2, nil, 64, 64)
	var pe *PointError
	if !errors.As(err, &pe) || pe.Vector != "l" || pe.Index != 37 || pe.Offset != 1000+96*37 || !errors.Is(err, ErrNotOnCurve) {
		t.Fatalf("err %v", err)
	}
	// The points are read without the curve check; the result's check
	// catches it, in G2 too.
	if _, err := q.readNeeded(0, len(p1), make([]bls.G1Affine, len(p1)), nil, 2, false); err != nil {
		t.Fatalf("unchecked read: %v", err)
	}
	_, _, p2, _ := msmInputs(200, 0, 0, 6)
	raw2 := g2Raw(p2)
	raw2[192*150+170] ^= 1
	q2 := query[bls.G2Affine]{name: "b_g2", raw: raw2, n: len(p2), size: G2Uncompressed, decode: decodeG2Uncompressed, encoding: decodeG2Encoding, montgomery: montgomeryG2, m: &mapping{data: raw2}}
	_, err = msmMapped[bls.G2Affine, bls.G2Jac, g2Batch](q2, scalars, nil, 2, nil, 64, 64)
	if !errors.As(err, &pe) || pe.Vector != "b_g2" || pe.Index != 150 || !errors.Is(err, ErrNotOnCurve) {
		t.Fatalf("G2: err %v", err)
	}
}

// TestMappedSkipsZeroScalarPoints: in a Boolean-heavy MSM over a mapped
// query only the points of nonzero scalars are decoded, under a density
// filter too: a corrupt point whose scalar is zero changes nothing, one
// whose scalar is not is still an error naming it.
func TestMappedSkipsZeroScalarPoints(t *testing.T) {
	const n = 3000
	scalars, p1, _, sel := msmInputs(n, 0.5, 0.45, 9)
	for _, filt := range []*r1cs.Bitset{nil, sel} {
		k := n
		if filt != nil {
			k = filt.Count()
		}
		want, err := msmG1(p1[:k], scalars, filt, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The point of the first zero and of the first nonzero scalar.
		zeroPt, livePt := -1, -1
		for i, pt := 0, 0; i < n && (zeroPt < 0 || livePt < 0); i++ {
			if filt != nil && !filt.Get(i) {
				continue
			}
			if scalars[i].IsZero() && zeroPt < 0 {
				zeroPt = pt
			} else if !scalars[i].IsZero() && livePt < 0 {
				livePt = pt
			}
			pt++
		}
		for _, c := range []struct {
			point   int
			wantErr bool
		}{{zeroPt, false}, {livePt, true}} {
			raw := g1Raw(p1[:k])
			raw[96*c.point+50] ^= 1 // off the curve
			q := query[bls.G1Affine]{name: "a", raw: raw, n: k, size: G1Uncompressed, decode: decodeG1Uncompressed, encoding: decodeG1Encoding, montgomery: montgomeryG1, m: &mapping{data: raw}}
			got, err := msmMapped[bls.G1Affine, bls.G1Jac, g1Batch](q, scalars, filt, 2, nil, 640, 100)
			var pe *PointError
			switch {
			case c.wantErr && (!errors.As(err, &pe) || pe.Index != c.point || !errors.Is(err, ErrNotOnCurve)):
				t.Fatalf("filtered %v: corrupt point %d of a nonzero scalar: %v", filt != nil, c.point, err)
			case !c.wantErr && (err != nil || !got.Equal(&want)):
				t.Fatalf("filtered %v: corrupt point %d of a zero scalar: %v", filt != nil, c.point, err)
			}
		}
	}
}

// writeTestParams writes Setup's parameters for c to a file and returns
// the resident parameters and the path.
func writeTestParams(t *testing.T, c r1cs.Circuit) (*Params, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.params")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SetupTo(context.Background(), c, fixedToxicWaste(), FileTarget{f}, SetupOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p, err := LoadParamsFile(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p, path
}

// TestMappedProveMatchesResident: a proof from mapped parameters is the
// same bytes as one from resident parameters, and either with an
// assignment that omits c; Verify on a mapped file checks every point.
func TestMappedProveMatchesResident(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 1500, Inputs: 3, Seed: 11}
	res, path := writeTestParams(t, c)
	mp, err := MapParamsFile(path, MapOptions{Verify: true, SubgroupChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	if mp.Queries() != res.Queries() || !mp.Mapped() || res.Mapped() || mp.EncodedSize() != res.EncodedSize() {
		t.Fatalf("queries %+v vs %+v", mp.Queries(), res.Queries())
	}
	if !bytes.Equal(mp.VK.Bytes(), res.VK.Bytes()) {
		t.Fatal("verifying keys differ")
	}
	prove := func(p *Params, omitC bool) []byte {
		pa := r1cs.NewAssignment(r1cs.Size{}, nil, r1cs.AssignmentOptions{OmitC: omitC})
		cs, err := r1cs.Synthesize(c, pa)
		if err != nil {
			t.Fatal(err)
		}
		cs.AppendInputRows()
		in := append([]fr.Element(nil), pa.Input[1:]...)
		proofs, err := Prove(context.Background(), p, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		pvk, err := Prepare(p.VK)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := Verify(pvk, &proofs[0], in); err != nil || !ok {
			t.Fatalf("proof does not verify (%v)", err)
		}
		b := proofs[0].Bytes()
		return b[:]
	}
	want := prove(res, false)
	for _, tc := range []struct {
		p     *Params
		omitC bool
	}{{res, true}, {mp, false}, {mp, true}} {
		if got := prove(tc.p, tc.omitC); !bytes.Equal(got, want) {
			t.Fatalf("mapped %v, omit c %v: proof differs", tc.p.Mapped(), tc.omitC)
		}
	}
}

// TestMapParamsFileErrors: a truncated or corrupt file is refused at
// mapping time (header, verifying key; every point with Verify), and a file
// truncated after mapping fails the proof with ErrFileChanged instead of
// killing the process.
func TestMapParamsFileErrors(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 600, Inputs: 2, Seed: 12}
	_, path := writeTestParams(t, c)
	orig, _ := os.ReadFile(path)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if _, err := MapParamsFile(write("short", orig[:len(orig)-5]), MapOptions{}); !errors.Is(err, ErrParamsFormat) || !errors.Is(err, ErrTruncated) {
		t.Errorf("truncated: %v", err)
	}
	bad := append([]byte(nil), orig...)
	bad[len(bad)-10] ^= 0x40 // inside the last b_g2 point
	if _, err := MapParamsFile(write("corrupt", bad), MapOptions{}); err != nil {
		t.Errorf("corrupt point without Verify should map: %v", err)
	}
	var pe *PointError
	if _, err := MapParamsFile(write("corrupt2", bad), MapOptions{Verify: true}); !errors.As(err, &pe) || pe.Vector != "b_g2" {
		t.Errorf("corrupt point with Verify: %v", err)
	}
	// Truncated while mapped.
	live := write("live", orig)
	mp, err := MapParamsFile(live, MapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	if err := os.Truncate(live, int64(len(orig))/3); err != nil {
		t.Fatal(err)
	}
	pa := r1cs.NewProvingAssignment(r1cs.Size{})
	cs, _ := r1cs.Synthesize(c, pa)
	cs.AppendInputRows()
	_, err = Prove(context.Background(), mp, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{Workers: 2})
	if !errors.Is(err, ErrFileChanged) || !errors.As(err, &pe) {
		t.Fatalf("prove over a truncated mapping: %v", err)
	}
}

// TestDensePieceStaysWholeOnIFMA: with a yield function, a dense mapped
// query goes to the IFMA Pippenger in whole pieces (it yields inside),
// and to gnark-crypto's MultiExp, which cannot, in pieces of YieldPoints.
func TestDensePieceStaysWholeOnIFMA(t *testing.T) {
	piece := mappedPiece(G1Uncompressed)
	if got := densePiece(piece, false); got != piece {
		t.Errorf("no yield: densePiece = %d, want %d", got, piece)
	}
	want := YieldPoints
	if ifma.Enabled() {
		want = piece
	}
	if got := densePiece(piece, true); got != want {
		t.Errorf("yield, IFMA %v: densePiece = %d, want %d", ifma.Enabled(), got, want)
	}
}

// denseBenchQuery is the dense benchmarks' input: 2^CUZK_MSM_LOG (default
// 2^18) G1 points as a mapped "h" query, and as many random scalars.
func denseBenchQuery() (int, query[bls.G1Affine], []fr.Element) {
	lg := 18
	if s := os.Getenv("CUZK_MSM_LOG"); s != "" {
		lg, _ = strconv.Atoi(s)
	}
	n := 1 << lg
	points := manyPoints(n, uint64(lg)+400)
	scalars := make([]fr.Element, n)
	for i := range scalars {
		scalars[i].SetRandom()
	}
	m := &mapping{data: g1Raw(points)}
	return lg, query[bls.G1Affine]{name: "h", raw: m.data, n: n, size: G1Uncompressed, decode: decodeG1Uncompressed, encoding: decodeG1Encoding, montgomery: montgomeryG1, m: m}, scalars
}

// BenchmarkMappedDenseYield: a dense mapped G1 query (the H query's shape)
// with a yield function set, as the engine always runs it, against the
// same query read in YieldPoints pieces (what the engine did before
// densePiece), alternating within each iteration; CPU time per run.
//
//	CUZK_MSM_LOG=20 go test -run '^$' -bench MappedDenseYield -benchtime 3x ./groth16
func BenchmarkMappedDenseYield(b *testing.B) {
	lg, q, scalars := denseBenchQuery()
	noop := func() error { return nil }
	run := func(y func() error, piece int) float64 {
		c0 := cpuSeconds()
		if _, err := msmMapped[bls.G1Affine, bls.G1Jac, g1Batch](q, scalars, nil, 2, y, msmWindow, piece); err != nil {
			b.Fatal(err)
		}
		return cpuSeconds() - c0
	}
	b.Run(fmt.Sprintf("%s/2^%d", ifma.Current().Arithmetic, lg), func(b *testing.B) {
		var now, before, ratios []float64
		for b.Loop() {
			w := run(noop, mappedPiece(G1Uncompressed))
			p := run(nil, YieldPoints)
			now, before, ratios = append(now, w), append(before, p), append(ratios, p/w)
		}
		b.ReportMetric(median(now), "cpu-s")
		b.ReportMetric(median(before), "yieldpieces-cpu-s")
		b.ReportMetric(median(ratios), "yieldpieces/now")
	})
}

// TestWillNeedReadsTheWholeRange: willNeed brings every page of the range
// into the page cache, not just the first readahead chunk (one
// MADV_WILLNEED call reads at most max(read_ahead_kb, max_sectors_kb) and
// drops the rest silently).
func TestWillNeedReadsTheWholeRange(t *testing.T) {
	const n = 1 << 18 // 24 MiB of G1 points: more than one call reads
	path := filepath.Join(t.TempDir(), "points")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Repeat([]byte{7}, n*G1Uncompressed)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, unmap, err := mapFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	m := &mapping{path: path, data: data, file: true, raChunk: 128 << 10}
	q := query[bls.G1Affine]{name: "h", raw: data, n: n, size: G1Uncompressed, m: m}
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	if r := resident(t, data); r == len(data)/os.Getpagesize() {
		t.Skip("the file's pages stay cached (tmpfs?): nothing to observe")
	}
	q.willNeed(0, n)
	pages := len(data) / os.Getpagesize()
	for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
		if resident(t, data) == pages {
			return
		}
	}
	t.Fatalf("%d of %d pages resident 10 s after willNeed (chunk %d)", resident(t, data), pages, m.raChunk)
}

// resident counts the pages of b in the page cache (mincore).
func resident(t *testing.T, b []byte) int {
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		t.Fatalf("mincore: %v", e)
	}
	k := 0
	for _, v := range vec {
		k += int(v & 1)
	}
	return k
}

func TestReadaheadChunk(t *testing.T) {
	st, err := os.Stat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c := readaheadChunk(uint64(st.Sys().(*syscall.Stat_t).Dev))
	if c < 128<<10 || c > 16<<20 {
		t.Fatalf("readahead chunk %d: want 128 KiB to 16 MiB", c)
	}
}

// BenchmarkMappedDenseDecode: a dense mapped G1 query (the H query's
// shape) decoded as the prover decodes it (the encoding only, Montgomery
// form eight lanes at a time, the curve checked on the result) against
// each point fully decoded and checked, alternating within each
// iteration; CPU time per run (docs/performance.md: 7.85 against 9.0
// CPU-s at 2^22).
//
//	CUZK_MSM_LOG=22 go test -run '^$' -bench MappedDenseDecode -benchtime 3x ./groth16
func BenchmarkMappedDenseDecode(b *testing.B) {
	lg, fast, scalars := denseBenchQuery()
	checked := fast
	checked.encoding, checked.montgomery = nil, nil
	noop := func() error { return nil }
	run := func(q query[bls.G1Affine]) float64 {
		c0 := cpuSeconds()
		if _, err := msmMapped[bls.G1Affine, bls.G1Jac, g1Batch](q, scalars, nil, 2, noop, msmWindow, mappedPiece(G1Uncompressed)); err != nil {
			b.Fatal(err)
		}
		return cpuSeconds() - c0
	}
	b.Run(fmt.Sprintf("%s/2^%d", ifma.Current().Arithmetic, lg), func(b *testing.B) {
		var f, c []float64
		for b.Loop() {
			f, c = append(f, run(fast)), append(c, run(checked))
		}
		b.ReportMetric(median(f), "cpu-s")
		b.ReportMetric(median(c), "per-point-checked-cpu-s")
	})
}

// BenchmarkReadAhead: the first 2^25 points of a real parameter file's
// a query (CUZK_READAHEAD_PARAMS names the .params file; skipped
// without), dropped from the page cache, then decoded and summed a window
// at a time by two workers as the Boolean-heavy MSMs do, with and without
// the next window read ahead (willNeed); wall time per pass
// (docs/performance.md: 4.4–4.7 s without, 3.1 s with, 2.8 s cached).
func BenchmarkReadAhead(b *testing.B) {
	path := os.Getenv("CUZK_READAHEAD_PARAMS")
	if path == "" {
		b.Skip("CUZK_READAHEAD_PARAMS names a .params file")
	}
	p, err := MapParamsFile(path, MapOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	q := p.aQuery()
	n := min(q.n, 1<<25)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]bls.G1Affine, msmWindow)
	pass := func(ahead bool) float64 {
		if err := unix.Fadvise(int(f.Fd()), q.base, int64(n)*G1Uncompressed, unix.FADV_DONTNEED); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		for lo := 0; lo < n; lo += msmWindow {
			hi := min(lo+msmWindow, n)
			if ahead {
				q.willNeed(hi, hi+msmWindow)
			}
			pts, err := q.readNeeded(lo, hi, buf, nil, 2, false)
			if err != nil {
				b.Fatal(err)
			}
			// Work on the window, as the MSM's scan would: a sixteenth of
			// the points summed, per chunk.
			sums := make([]bls.G1Jac, (len(pts)+1<<12-1)>>12)
			par.Chunks(len(pts), 1<<12, 2, func(a, c int) {
				for i := a; i < c; i += 16 {
					sums[a>>12].AddMixed(&pts[i])
				}
			})
			q.drop(lo, hi)
		}
		return time.Since(t0).Seconds()
	}
	var with, without []float64
	for b.Loop() {
		without, with = append(without, pass(false)), append(with, pass(true))
	}
	b.ReportMetric(median(with), "ahead-s")
	b.ReportMetric(median(without), "faulted-s")
}
