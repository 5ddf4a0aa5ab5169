package ntt

import (
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/utils"
	"github.com/cuzk-dev/cuzk/internal/testenv"
)

func randomVector(n int, seed uint64) []fr.Element {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := make([]fr.Element, n)
	for i := range v {
		// Reduced by SetBigInt-free means: the top limb below q's keeps it < q.
		v[i] = fr.Element{rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64() >> 3}
	}
	// Edge values where a butterfly's reduction could slip.
	if n >= 4 {
		v[0].SetZero()
		v[1].SetOne()
		v[2].SetOne()
		v[2].Neg(&v[2]) // q − 1
	}
	return v
}

func equal(t *testing.T, what string, got, want []fr.Element) {
	t.Helper()
	for i := range want {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("%s: element %d differs", what, i)
		}
	}
}

// sizes covers the base case, the first recursive sizes and layers split
// across workers.
var sizes = []int{1, 2, 3, 4, 5, 10, 11, 12, 13, 15}

// TestMatchesGnark: DIF and DIT equal gnark-crypto's fft.Domain
// transforms (the reference the prover used before) on random and edge
// inputs, for several sizes and worker counts.
func TestMatchesGnark(t *testing.T) {
	for _, lg := range sizes {
		n := 1 << lg
		ref := fft.NewDomain(uint64(n))
		for _, mode := range modes {
			for _, workers := range []int{1, 2, 3, 8} {
				d, err := newDomain(n, workers, MaxTable, mode.vec)
				if err != nil {
					t.Fatal(err)
				}
				if d.Bytes() != TableBytes(n) {
					t.Fatalf("2^%d: Bytes %d, TableBytes %d", lg, d.Bytes(), TableBytes(n))
				}
				if g := d.Generator(); !g.Equal(&ref.Generator) {
					t.Fatalf("2^%d: generator differs from gnark-crypto's", lg)
				}
				in := randomVector(n, uint64(lg*10+workers))
				name := fmt.Sprintf("2^%d/%s/workers=%d", lg, mode.name, workers)

				got, want := slices.Clone(in), slices.Clone(in)
				d.DIF(got, workers)
				ref.FFT(want, fft.DIF, fft.WithNbTasks(1))
				equal(t, name+"/DIF", got, want)

				got, want = slices.Clone(in), slices.Clone(in)
				d.DIT(got, nil, workers)
				ref.FFT(want, fft.DIT, fft.WithNbTasks(1))
				equal(t, name+"/DIT", got, want)
			}
		}
	}
}

// modes are the two multiplications every transform test runs: scalar
// fr.Mul, and gnark-crypto's fr.Vector products (IFMA where the CPU has
// it, its generic code elsewhere: the gathering around them is ours).
var modes = []struct {
	name string
	vec  bool
}{{"scalar", false}, {"vector", true}}

// TestCompactTwiddles: with the twiddle table cut short (as above
// MaxTable), both transforms still equal gnark-crypto's, whatever the cut.
func TestCompactTwiddles(t *testing.T) {
	for _, lg := range []int{13, 14, 15} {
		n := 1 << lg
		ref := fft.NewDomain(uint64(n))
		in := randomVector(n, uint64(lg))
		want := slices.Clone(in)
		ref.FFT(want, fft.DIF, fft.WithNbTasks(1))
		wantDIT := slices.Clone(in)
		ref.FFT(wantDIT, fft.DIT, fft.WithNbTasks(1))
		for _, table := range []int{n / 4, n / 8, n >> baseLog, 1} {
			for _, mode := range modes {
				d, err := newDomain(n, 2, table, mode.vec)
				if err != nil {
					t.Fatal(err)
				}
				if table == n/4 && d.Bytes() >= TableBytes(n) {
					t.Fatalf("2^%d: compact table of %d bytes, the full one %d", lg, d.Bytes(), TableBytes(n))
				}
				if len(d.z) >= n/2 || d.y == nil {
					t.Fatalf("2^%d, table %d: not compact (%d twiddles)", lg, table, len(d.z))
				}
				for _, workers := range []int{1, 3} {
					name := fmt.Sprintf("2^%d/table=%d/%s/workers=%d", lg, len(d.z), mode.name, workers)
					got := slices.Clone(in)
					d.DIF(got, workers)
					equal(t, name+"/DIF", got, want)
					got = slices.Clone(in)
					d.DIT(got, nil, workers)
					equal(t, name+"/DIT", got, wantDIT)
				}
			}
		}
	}
}

// TestDITScaled: DIT with factors equals scaling first, then DIT; the
// factors are c·x^bitrev(p) with the exception at 0.
func TestDITScaled(t *testing.T) {
	for _, lg := range sizes {
		n := 1 << lg
		d, err := New(n, 2)
		if err != nil {
			t.Fatal(err)
		}
		var x, c, at0 fr.Element
		x.SetUint64(7)
		c.SetRandom()
		at0.SetRandom()
		s := NewBitRevPowers(lg, x, c, at0)
		in := randomVector(n, uint64(lg))
		want := slices.Clone(in)
		for p := range want {
			var f fr.Element
			f.Exp(x, big.NewInt(int64(reverse(p, lg)))).Mul(&f, &c)
			if p == 0 {
				f = at0
			}
			if got := s.At(p); !got.Equal(&f) {
				t.Fatalf("2^%d: factor of position %d differs", lg, p)
			}
			want[p].Mul(&want[p], &f)
		}
		d.DIT(want, nil, 1)
		for _, mode := range modes {
			d.vec, s.vec = mode.vec, mode.vec
			for _, workers := range []int{1, 2, 5} {
				got := slices.Clone(in)
				d.DIT(got, s, workers)
				equal(t, fmt.Sprintf("2^%d/%s/workers=%d", lg, mode.name, workers), got, want)
			}
			// Scale alone, over pieces that straddle the runs of p>>h.
			got := slices.Clone(in)
			for off := 0; off < n; off += 37 {
				s.Scale(got[off:min(off+37, n)], off)
			}
			scaled := slices.Clone(in)
			for p := range scaled {
				f := s.At(p)
				scaled[p].Mul(&scaled[p], &f)
			}
			equal(t, fmt.Sprintf("2^%d/%s/Scale", lg, mode.name), got, scaled)
		}
	}
}

// TestRoundTrip: DIF then DIT with the reversal and 1/n folded in as the
// package documentation says gives back the input.
func TestRoundTrip(t *testing.T) {
	const lg = 12
	n := 1 << lg
	d, _ := New(n, 2)
	in := randomVector(n, 3)
	v := slices.Clone(in)
	d.DIF(v, 2) // v[bitrev(k)] = n·IDFT(in)[−k]
	var inv fr.Element
	inv.SetUint64(uint64(n)).Inverse(&inv)
	one := fr.One()
	d.DIT(v, NewBitRevPowers(lg, one, inv, inv), 2) // DFT_ω of IDFT read backwards: in[−i]
	for i := range in {
		if j := (n - i) % n; !v[j].Equal(&in[i]) {
			t.Fatalf("round trip: element %d differs", i)
		}
	}
}

func TestNewRejects(t *testing.T) {
	for _, n := range []int{0, 1, 3, 6, 1 << 33} {
		if _, err := New(n, 1); err == nil {
			t.Errorf("New(%d) accepted", n)
		}
	}
}

// TestLarge runs the prover's 2^22 domain against gnark-crypto (seconds of
// work; skipped with -short).
func TestLarge(t *testing.T) {
	testenv.Short(t, "2^22 transforms")
	const lg = 22
	n := 1 << lg
	ref := fft.NewDomain(uint64(n))
	d, err := New(n, 2)
	if err != nil {
		t.Fatal(err)
	}
	in := randomVector(n, 22)
	got, want := slices.Clone(in), slices.Clone(in)
	d.DIF(got, 2)
	ref.FFT(want, fft.DIF, fft.WithNbTasks(2))
	equal(t, "2^22/DIF", got, want)
	d.DIT(got, nil, 2)
	ref.FFT(want, fft.DIT, fft.WithNbTasks(2))
	equal(t, "2^22/DIT", got, want)
}

// TestYield: DIFYield, DITYield and BitReverse with a yield function that
// lets them go on give what DIF, DIT and gnark-crypto's bit reversal give,
// calling it at least once per base block (so a pause or a stop is never
// more than a base block or a layer segment away), also in compact mode;
// an error from it stops every worker and is returned; in both modes
// (scalar butterflies and the vector kernels).
func TestYield(t *testing.T) {
	stop := errors.New("stop")
	for _, lg := range []int{1, 4, 12, 15} {
		n := 1 << lg
		in := randomVector(n, uint64(lg))
		for _, mt := range []struct {
			maxTable int
			vec      bool
		}{{MaxTable, false}, {n / 8, false}, {MaxTable, true}, {n / 8, true}} {
			d, err := newDomain(n, 2, max(mt.maxTable, 1), mt.vec)
			if err != nil {
				t.Fatal(err)
			}
			scale := NewBitRevPowers(lg, fr.NewElement(7), fr.NewElement(3), fr.NewElement(5))
			for _, workers := range []int{1, 2, 3} {
				var calls atomic.Int64
				y := func() error { calls.Add(1); return nil }
				want, got := slices.Clone(in), slices.Clone(in)
				d.DIF(want, workers)
				if err := d.DIFYield(got, workers, y); err != nil {
					t.Fatal(err)
				}
				equal(t, fmt.Sprintf("DIFYield 2^%d, %d workers", lg, workers), got, want)
				d.DIT(want, scale, workers)
				if err := d.DITYield(got, scale, workers, y); err != nil {
					t.Fatal(err)
				}
				equal(t, fmt.Sprintf("DITYield 2^%d, %d workers", lg, workers), got, want)
				utils.BitReverse(want)
				if err := BitReverse(got, workers, y); err != nil {
					t.Fatal(err)
				}
				equal(t, fmt.Sprintf("BitReverse 2^%d, %d workers", lg, workers), got, want)
				if base := int64(max(1, n>>baseLog)); calls.Load() < 2*base {
					t.Fatalf("2^%d: %d yields over two transforms of %d base blocks", lg, calls.Load(), base)
				}

				var after atomic.Int64
				failing := func() error {
					if after.Add(1) > 1 {
						return stop
					}
					return nil
				}
				if err := d.DIFYield(slices.Clone(in), workers, failing); n >= 1<<baseLog && !errors.Is(err, stop) {
					t.Fatalf("DIFYield 2^%d stopped with %v", lg, err)
				}
				after.Store(0)
				if err := d.DITYield(slices.Clone(in), nil, workers, failing); n >= 1<<baseLog && !errors.Is(err, stop) {
					t.Fatalf("DITYield 2^%d stopped with %v", lg, err)
				}
				if err := BitReverse(slices.Clone(in), workers, func() error { return stop }); !errors.Is(err, stop) && n > 1 {
					t.Fatalf("BitReverse 2^%d stopped with %v", lg, err)
				}
			}
		}
	}
}

// TestBitRevTable: the table permuted in place holds x^(j·2^(nbits−lb)) at
// bitrev(j), for one worker and for several splitting the swaps.
func TestBitRevTable(t *testing.T) {
	x := fft.NewDomain(1 << 16).Generator
	for _, count := range []int{1, 2, 1 << 5, 1 << 14} {
		lb := bits.TrailingZeros(uint(count))
		for _, workers := range []int{1, 3} {
			got := bitRevTable(count, 16, &x, workers)
			var step, want fr.Element
			step.Exp(x, big.NewInt(int64(1)<<(16-lb)))
			for k := range count {
				want.Exp(step, big.NewInt(int64(reverse(k, lb))))
				if !got[k].Equal(&want) {
					t.Fatalf("count %d, workers %d: t[%d] is not x^bitrev(%d)", count, workers, k, k)
				}
			}
		}
	}
}
