package groth16

import (
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fp"
)

// nonSubgroupG1 finds a point on E(Fp) that is not in the r-torsion.
func nonSubgroupG1(t *testing.T) bls.G1Affine {
	t.Helper()
	for i := uint64(1); i < 1000; i++ {
		var f fp.Element
		f.SetUint64(i)
		j := bls.GeneratePointNotInG1(f)
		var p bls.G1Affine
		p.FromJacobian(&j)
		if p.IsOnCurve() && !p.IsInSubGroup() {
			return p
		}
	}
	t.Fatal("no point outside the subgroup found")
	return bls.G1Affine{}
}

// firstNotInSubgroup finds the earliest bad point wherever it is, also with
// a second one after it.
func TestFirstNotInSubgroup(t *testing.T) {
	_, _, g1, _ := bls.Generators()
	pts := make([]bls.G1Affine, 700)
	for i := range pts {
		pts[i] = g1
	}
	bad := nonSubgroupG1(t)
	for _, at := range [][]int{{0}, {63}, {64}, {300}, {699}, {200, 650}, {5, 6}} {
		ps := append([]bls.G1Affine(nil), pts...)
		for _, i := range at {
			ps[i] = bad
		}
		if got := firstNotInSubgroup(ps, bls.IsInSubGroupBatchG1, (*bls.G1Affine).IsInSubGroup); got != at[0] {
			t.Errorf("bad at %v: got %d", at, got)
		}
	}
}
