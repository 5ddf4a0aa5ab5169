package groth16

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// referenceSetup is an independent oracle for SetupTo on small circuits:
// bellperson's generate_parameters written out directly — every row
// recorded, U, V, W of every variable summed from the rows, every point one
// plain scalar multiplication of the generator, the image appended in
// file order.
func referenceSetup(t testing.TB, c r1cs.Circuit, tw ToxicWaste) []byte {
	t.Helper()
	ts := r1cs.NewTestSystem()
	ts.KeepRows = true
	cs, err := r1cs.Synthesize(c, ts)
	if err != nil {
		t.Fatal(err)
	}
	cs.AppendInputRows()
	nIn, nAux, rows := cs.NumInputs(), cs.NumAux(), len(ts.Rows)
	m, err := DomainSize(rows)
	if err != nil {
		t.Fatal(err)
	}
	d := fft.NewDomain(uint64(m))
	var tm, zt, one fr.Element
	one.SetOne()
	tm.Exp(tw.Tau, big.NewInt(int64(m)))
	zt.Sub(&tm, &one)
	// u, v, w per variable: index i for inputs, nIn+i for aux.
	poly := [3][]fr.Element{make([]fr.Element, nIn+nAux), make([]fr.Element, nIn+nAux), make([]fr.Element, nIn+nAux)}
	dense := [3][]bool{make([]bool, nIn+nAux), make([]bool, nIn+nAux), nil}
	for j, row := range ts.Rows {
		var w, lj fr.Element
		w.Exp(d.Generator, big.NewInt(int64(j)))
		lj.Sub(&tw.Tau, &w).Inverse(&lj)
		lj.Mul(&lj, &w).Mul(&lj, &zt).Mul(&lj, &d.CardinalityInv)
		for k, terms := range [][]r1cs.Term{row.A, row.B, row.C} {
			for _, term := range terms {
				v := term.Var.Index()
				if term.Var.IsAux() {
					v += nIn
				}
				var tmp fr.Element
				tmp.Mul(&term.Coeff, &lj)
				poly[k][v].Add(&poly[k][v], &tmp)
				if k < 2 && !term.Coeff.IsZero() {
					dense[k][v] = true
				}
			}
		}
	}
	_, _, g1, g2 := bls.Generators()
	var img []byte
	g1At := func(s fr.Element) {
		var p bls.G1Affine
		p.ScalarMultiplication(&g1, s.BigInt(new(big.Int)))
		b := p.RawBytes()
		img = append(img, b[:]...)
	}
	g2At := func(s fr.Element) {
		var p bls.G2Affine
		p.ScalarMultiplication(&g2, s.BigInt(new(big.Int)))
		b := p.RawBytes()
		img = append(img, b[:]...)
	}
	var gInv, dInv fr.Element
	gInv.Inverse(&tw.Gamma)
	dInv.Inverse(&tw.Delta)
	ext := func(v int, inv *fr.Element) fr.Element {
		var e, t fr.Element
		e.Mul(&poly[0][v], &tw.Beta)
		t.Mul(&poly[1][v], &tw.Alpha)
		e.Add(&e, &t).Add(&e, &poly[2][v]).Mul(&e, inv)
		return e
	}
	length := func(n int) { img = binary.BigEndian.AppendUint32(img, uint32(n)) }
	g1At(tw.Alpha)
	g1At(tw.Beta)
	g2At(tw.Beta)
	g2At(tw.Gamma)
	g1At(tw.Delta)
	g2At(tw.Delta)
	length(nIn)
	for i := 0; i < nIn; i++ {
		g1At(ext(i, &gInv))
	}
	length(m - 1)
	var p, coeff fr.Element
	coeff.Mul(&zt, &dInv)
	p.Set(&coeff)
	for i := 0; i < m-1; i++ {
		g1At(p)
		p.Mul(&p, &tw.Tau)
	}
	length(nAux)
	for i := 0; i < nAux; i++ {
		g1At(ext(nIn+i, &dInv))
	}
	var a, b []fr.Element
	for v := 0; v < nIn+nAux; v++ {
		if v < nIn || dense[0][v] {
			a = append(a, poly[0][v])
		}
		if dense[1][v] {
			b = append(b, poly[1][v])
		}
	}
	length(len(a))
	for _, s := range a {
		g1At(s)
	}
	length(len(b))
	for _, s := range b {
		g1At(s)
	}
	length(len(b))
	for _, s := range b {
		g2At(s)
	}
	return img
}

// TestSetupMatchesReference: the streamed setup writes, byte for byte, the
// image the direct computation gives, for circuits with and without inputs,
// Boolean-heavy and dense, several worker counts and domains that are and
// are not full.
func TestSetupMatchesReference(t *testing.T) {
	tw := fixedToxicWaste()
	cases := []struct {
		name string
		c    r1cs.Circuit
	}{
		{"cubic", testcircuits.Cubic{X: 3}},
		{"mixed-300", testcircuits.Mixed{Constraints: 300, Inputs: 3, Seed: 1}},
		{"mixed-full-domain", testcircuits.Mixed{Constraints: 1<<9 - 6, Inputs: 5, Seed: 2}},
		{"mixed-dense", testcircuits.Mixed{Constraints: 700, Inputs: 2, BitShare: 0.1, Seed: 3}},
	}
	for _, tc := range cases {
		want := referenceSetup(t, tc.c, tw)
		for _, workers := range []int{1, 3} {
			var img memTarget
			vk, err := SetupTo(context.Background(), tc.c, tw, &img, SetupOptions{Workers: workers})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if !bytes.Equal(img.b, want) {
				t.Fatalf("%s, %d workers: image differs from the reference (%d vs %d bytes, first difference at %d)", tc.name, workers, len(img.b), len(want), firstDiff(img.b, want))
			}
			if !bytes.Equal(vk.Bytes(), want[:vk.EncodedSize()]) {
				t.Fatalf("%s: returned verifying key is not the image's", tc.name)
			}
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestSetupLagrangeChunks: a circuit of several Lagrange chunks (rows past
// lagrangeRows) folds exactly as the in-order table of the same values.
func TestSetupLagrangeChunks(t *testing.T) {
	const rows = 3*lagrangeRows + 17
	d := fft.NewDomain(1 << 18)
	tw := fixedToxicWaste()
	var tm, zt, one fr.Element
	one.SetOne()
	tm.Exp(tw.Tau, big.NewInt(1<<18))
	zt.Sub(&tm, &one)
	ls := newLagrangeStream(context.Background(), d, &tw.Tau, &zt, rows, 2)
	defer ls.close()
	for _, j := range []int{0, 1, lagrangeRows - 1, lagrangeRows, 2*lagrangeRows + 5, rows - 1} {
		got, err := ls.At(j)
		if err != nil {
			t.Fatal(err)
		}
		var w, want fr.Element
		w.Exp(d.Generator, big.NewInt(int64(j)))
		want.Sub(&tw.Tau, &w).Inverse(&want)
		want.Mul(&want, &w).Mul(&want, &zt).Mul(&want, &d.CardinalityInv)
		if !got.Equal(&want) {
			t.Fatalf("L_%d(τ) wrong", j)
		}
	}
	if _, err := ls.At(5); err == nil {
		t.Error("a row asked for out of order was not refused")
	}
	if _, err := ls.At(rows); err == nil {
		t.Error("a row past the count was not refused")
	}
}

// TestSetupFileTarget: SetupTo into a file (the target cuzk params gen
// uses) gives the same bytes as into memory, and a Check error stops it
// before anything is written.
func TestSetupFileTarget(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 400, Inputs: 2, Seed: 9}
	tw := fixedToxicWaste()
	var img memTarget
	if _, err := SetupTo(context.Background(), c, tw, &img, SetupOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.params")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var plans []SetupPlan
	if _, err := SetupTo(context.Background(), c, tw, FileTarget{f}, SetupOptions{Check: func(p SetupPlan) error { plans = append(plans, p); return nil }}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, img.b) {
		t.Fatal("file image differs from the memory image")
	}
	if len(plans) != 2 || plans[0].A != -1 || plans[1].FileSize != int64(len(got)) || plans[0].FileSize > plans[1].FileSize {
		t.Fatalf("plans %+v for a %d-byte image", plans, len(got))
	}
	stop := errors.New("no room")
	var img2 memTarget
	_, err = SetupTo(context.Background(), c, tw, &img2, SetupOptions{Check: func(p SetupPlan) error {
		if p.A >= 0 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) || img2.b != nil {
		t.Fatalf("check error: %v, image allocated %v", err, img2.b != nil)
	}
}

// TestSetupContextStops: a setup cancelled in any phase stops there (no
// later phase starts) and returns the context's error; a setup whose
// context has already ended does nothing.
func TestSetupContextStops(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 1<<12 - 5, Inputs: 4, Seed: 3}
	for _, at := range []string{"count", "fold u v", "vk", "a", "b_g1", "b_g2", "fold l", "l", "h"} {
		ctx, cancel := context.WithCancel(context.Background())
		var phases []string
		_, err := SetupContext(ctx, c, fixedToxicWaste(), SetupOptions{Workers: 2, Progress: func(p SetupProgress) {
			if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
				phases = append(phases, p.Phase)
			}
			if p.Phase == at {
				cancel()
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at %s: err %v", at, err)
		}
		if i := slices.Index(phases, at); i != len(phases)-1 {
			t.Errorf("cancelled at %s, phases started: %v", at, phases)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	if _, err := SetupContext(ctx, c, fixedToxicWaste(), SetupOptions{Progress: func(SetupProgress) { called = true }}); !errors.Is(err, context.Canceled) || called {
		t.Fatalf("setup under an ended context: err %v, progress called %v", err, called)
	}
}
