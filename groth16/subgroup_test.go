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
