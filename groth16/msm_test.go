package groth16

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// msmInputs returns n scalars of which about share0 are 0 and share1 are 1
// (the rest uniform), n G1 and G2 points, and a selection bitset keeping
// about three quarters of the scalars.
func msmInputs(n int, share0, share1 float64, seed uint64) ([]fr.Element, []bls.G1Affine, []bls.G2Affine, *r1cs.Bitset) {
	rng := rand.New(rand.NewPCG(seed, 1))
	scalars := make([]fr.Element, n)
	var sel r1cs.Bitset
	for i := range scalars {
		switch u := rng.Float64(); {
		case u < share0:
		case u < share0+share1:
			scalars[i].SetOne()
		default:
			scalars[i].SetUint64(rng.Uint64())
			scalars[i].Square(&scalars[i])
		}
		sel.Append()
		if rng.IntN(4) != 0 {
			sel.Set(i)
		}
	}
	_, _, g1, g2 := bls.Generators()
	ks := make([]fr.Element, n)
	for i := range ks {
		ks[i].SetUint64(rng.Uint64() | 1)
	}
	p1 := bls.BatchScalarMultiplicationG1(&g1, ks)
	p2 := bls.BatchScalarMultiplicationG2(&g2, ks)
	return scalars, p1, p2, &sel
}

// selected returns the scalars sel keeps (all when sel is nil) and the first
// len of them points, as a density-filtered query stores them.
func selected[A any](scalars []fr.Element, points []A, sel *r1cs.Bitset) ([]fr.Element, []A) {
	if sel == nil {
		return scalars, points
	}
	var out []fr.Element
	for i := range scalars {
		if sel.Get(i) {
			out = append(out, scalars[i])
		}
	}
	return out, points[:len(out)]
}

// wantMSM is gnark-crypto's plain MultiExp of both groups over the
// scalars sel keeps (all of them when nil), paired with the first points as
// msmG1 and msmG2 pair them; k is how many there are.
func wantMSM(t *testing.T, scalars []fr.Element, p1 []bls.G1Affine, p2 []bls.G2Affine, sel *r1cs.Bitset) (want1 bls.G1Jac, want2 bls.G2Jac, k int) {
	t.Helper()
	sc, q1 := selected(scalars, p1, sel)
	if _, err := want1.MultiExp(q1, sc, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := want2.MultiExp(p2[:len(q1)], sc, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	return want1, want2, len(q1)
}

// TestMSMMatchesMultiExp checks the 0/1-skipping MSM of both groups against
// gnark-crypto's plain MultiExp, with and without density filtering, for
// Boolean-heavy, uniform and degenerate scalar mixes and several worker
// counts (chunk boundaries move with them).
func TestMSMMatchesMultiExp(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 1200
	}
	mixes := []struct {
		name           string
		share0, share1 float64
	}{
		{"boolean", 0.5, 0.45}, {"uniform", 0, 0}, {"zeros", 1, 0}, {"ones", 0, 1},
	}
	for mi, m := range mixes {
		scalars, p1, p2, sel := msmInputs(n, m.share0, m.share1, uint64(mi))
		for _, filtered := range []bool{false, true} {
			s := sel
			if !filtered {
				s = nil
			}
			want1, want2, k := wantMSM(t, scalars, p1, p2, s)
			for _, workers := range []int{1, 3, 8} {
				name := fmt.Sprintf("%s/filtered=%v/workers=%d", m.name, filtered, workers)
				got1, err := msmG1(p1[:k], scalars, s, workers, nil)
				if err != nil || !got1.Equal(&want1) {
					t.Errorf("%s: G1 differs (%v)", name, err)
				}
				got2, err := msmG2(p2[:k], scalars, s, workers, nil)
				if err != nil || !got2.Equal(&want2) {
					t.Errorf("%s: G2 differs (%v)", name, err)
				}
			}
		}
	}
	var zero1 bls.G1Jac
	if got, err := msmG1(nil, nil, nil, 4, nil); err != nil || !got.Equal(&zero1) {
		t.Fatalf("empty MSM: %v", err)
	}
}

// TestMSMYield: with a yield function the MSMs give the same sums, call it
// at every chunk of the scan and before every piece of the general part,
// and stop with its error.
func TestMSMYield(t *testing.T) {
	const n = 1000
	scalars, p1, p2, sel := msmInputs(n, 0.3, 0.3, 11)
	var calls atomic.Int32
	y := func() error { calls.Add(1); return nil }
	for _, s := range []*r1cs.Bitset{nil, sel} {
		want1, want2, k := wantMSM(t, scalars, p1, p2, s)
		calls.Store(0)
		got1, err := msmG1(p1[:k], scalars, s, 2, y)
		if err != nil || !got1.Equal(&want1) {
			t.Fatalf("filtered=%v: G1 with yield differs (%v)", s != nil, err)
		}
		if chunks := len(splitChunks(n, s, 2)); int(calls.Load()) < chunks {
			t.Fatalf("filtered=%v: %d yields for %d chunks", s != nil, calls.Load(), chunks)
		}
		got2, err := msmG2(p2[:k], scalars, s, 2, y)
		if err != nil || !got2.Equal(&want2) {
			t.Fatalf("filtered=%v: G2 with yield differs (%v)", s != nil, err)
		}
	}
	// The general part in pieces: same sum, one yield per piece.
	var want, got bls.G1Jac
	if _, err := want.MultiExp(p1, scalars, ecc.MultiExpConfig{}); err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	if err := multiExp[bls.G1Affine, bls.G1Jac](&got, p1, scalars, 2, y, 64); err != nil || !got.Equal(&want) {
		t.Fatalf("pieces of 64: %v, equal %v", err, got.Equal(&want))
	}
	if want := int32((n + 63) / 64); calls.Load() != want {
		t.Fatalf("%d yields for %d pieces", calls.Load(), want)
	}
	stop := errors.New("stop")
	n0 := 0
	if err := multiExp[bls.G1Affine, bls.G1Jac](&got, p1, scalars, 2, func() error {
		if n0++; n0 == 3 {
			return stop
		}
		return nil
	}, 64); !errors.Is(err, stop) || n0 != 3 {
		t.Fatalf("yield error: %v after %d calls", err, n0)
	}
	if _, err := msmG1(p1, scalars, nil, 2, func() error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("msm with a failing yield: %v", err)
	}
}

// BenchmarkMSM runs the density-filtered, Boolean-heavy case that dominates
// PoRep proving (about half zeros, 45% ones).
func BenchmarkMSM(b *testing.B) {
	const n = 1 << 16
	scalars, p1, p2, sel := msmInputs(n, 0.5, 0.45, 7)
	b.Run("G1", func(b *testing.B) {
		for b.Loop() {
			if _, err := msmG1(p1, scalars, sel, 2, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("G2", func(b *testing.B) {
		for b.Loop() {
			if _, err := msmG2(p2, scalars, sel, 2, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestMultiExpPieces: the MSM run in pieces (as msmPiece splits the large
// ones) sums to the same point, for piece sizes that divide the input and
// sizes that do not.
func TestMultiExpPieces(t *testing.T) {
	const n = 1000
	scalars, p1, p2, _ := msmInputs(n, 0, 0, 13)
	want1, want2, _ := wantMSM(t, scalars, p1, p2, nil)
	for _, piece := range []int{1, 7, 100, 333, 999, 1000, 5000} {
		var got1 bls.G1Jac
		var got2 bls.G2Jac
		if err := multiExp[bls.G1Affine, bls.G1Jac](&got1, p1, scalars, 2, nil, piece); err != nil || !got1.Equal(&want1) {
			t.Fatalf("G1 in pieces of %d: differs (%v)", piece, err)
		}
		if err := multiExp[bls.G2Affine, bls.G2Jac](&got2, p2, scalars, 2, nil, piece); err != nil || !got2.Equal(&want2) {
			t.Fatalf("G2 in pieces of %d: differs (%v)", piece, err)
		}
	}
}

// TestMSMScanYields: the scalar scan yields inside its chunks (every
// scanYield scalars), the result does not depend on it, and the yield's
// error stops the MSM.
func TestMSMScanYields(t *testing.T) {
	n := 4*scanYield + 17
	scalars, small, _, sel := msmInputs(1024, 0.5, 0.45, 21)
	// Scalars and points repeat (G2 points for 2^16 would take seconds to
	// make and are not needed here).
	p1 := make([]bls.G1Affine, n)
	sc := make([]fr.Element, n)
	var big r1cs.Bitset
	for i := range n {
		p1[i], sc[i] = small[i%len(small)], scalars[i%len(scalars)]
		big.Append()
		if sel.Get(i % len(scalars)) {
			big.Set(i)
		}
	}
	scalars, sel = sc, &big
	want, err := msmG1(p1, scalars, sel, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	yields := 0
	got, err := msmG1(p1, scalars, sel, 1, func() error { yields++; return nil })
	if err != nil || !got.Equal(&want) {
		t.Fatalf("with yields: differs (%v)", err)
	}
	if yields < n/scanYield {
		t.Fatalf("%d yields over %d scalars, want one per %d at least", yields, n, scanYield)
	}
	stop := errors.New("stop")
	calls := 0
	if _, err := msmG1(p1, scalars, sel, 1, func() error {
		if calls++; calls > 2 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) {
		t.Fatalf("stopping yield: %v", err)
	}
}
