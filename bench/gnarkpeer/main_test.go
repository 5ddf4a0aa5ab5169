package main

import (
	"context"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	gnarkgroth16 "github.com/consensys/gnark/backend/groth16"
	g16bls "github.com/consensys/gnark/backend/groth16/bls12-381"
	gcs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	cr1cs "github.com/cuzk-dev/cuzk/r1cs"
)

func smallMixed() testcircuits.Mixed {
	return testcircuits.Mixed{Constraints: 1<<9 - 9, Inputs: 8, Seed: 9}
}

func equalVec(a, b []fr.Element) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The replayed plan is Mixed: same rows, same values, same densities.
func TestReplayMatchesMixed(t *testing.T) {
	m := smallMixed()
	want := testcircuits.Assignment(t, m)
	got := testcircuits.Assignment(t, replay{ops: m.Plan()})
	for name, v := range map[string][2][]fr.Element{
		"a": {want.A, got.A}, "b": {want.B, got.B}, "c": {want.C, got.C},
		"input": {want.Input, got.Input}, "aux": {want.Aux, got.Aux},
	} {
		if !equalVec(v[0], v[1]) {
			t.Errorf("%s differs from Mixed's", name)
		}
	}
	if !want.Density.AAux.Equal(&got.Density.AAux) || !want.Density.BAux.Equal(&got.Density.BAux) ||
		!want.Density.BInput.Equal(&got.Density.BInput) {
		t.Error("densities differ from Mixed's")
	}
}

// gnark's system has cuzk's rows: the same A·B − C evaluations row by row
// (gnark's solver keeps them), the same witness multiset, and a real key
// whose infinity markers match the R1CS and cuzk's densities.
func TestGnarkSystemMatchesCuzk(t *testing.T) {
	m := smallMixed()
	ops := m.Plan()
	pa := testcircuits.Assignment(t, replay{ops: ops})
	sys, wit, toCuzk, err := gnarkSystem(ops)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sys.GetNbConstraints(), len(pa.A)-len(pa.Input); got != want {
		t.Fatalf("gnark has %d constraints, cuzk %d rows before input rows", got, want)
	}
	sol, err := sys.Solve(wit)
	if err != nil {
		t.Fatal(err)
	}
	s := sol.(*gcs.R1CSSolution)
	n := sys.GetNbConstraints()
	if !equalVec(s.A[:n], pa.A[:n]) || !equalVec(s.B[:n], pa.B[:n]) || !equalVec(s.C[:n], pa.C[:n]) {
		t.Error("gnark's row evaluations differ from cuzk's")
	}
	vals := append(append([]fr.Element{}, pa.Input...), pa.Aux...)
	if err := sameWitness(vals, s.W, toCuzk); err != nil {
		t.Error(err)
	}
	// A value changed on one side only must be caught.
	bad := append([]fr.Element{}, s.W...)
	bad[len(bad)-1].SetUint64(12345)
	if sameWitness(vals, bad, toCuzk) == nil {
		t.Error("sameWitness missed a changed value")
	}

	pk, _, err := gnarkgroth16.Setup(sys)
	if err != nil {
		t.Fatal(err)
	}
	k := pk.(*g16bls.ProvingKey)
	absA, absB := absentWires(sys)
	for i := range absA {
		if absA[i] != k.InfinityA[i] || absB[i] != k.InfinityB[i] {
			t.Fatalf("wire %d: absent from A %v, B %v; key says %v, %v", i, absA[i], absB[i], k.InfinityA[i], k.InfinityB[i])
		}
	}
	// Same B-side work; A differs only by bellperson's input rows, which
	// make every cuzk input A-dense (gnark has ONE and the copies there).
	m2, _ := groth16.DomainSize(len(pa.A))
	cz := cuzkShape(pa, m2)
	gn := gnarkShape(s.W, k.InfinityA, k.InfinityB, sys.GetNbPublicVariables(), int(k.Domain.Cardinality))
	if cz.B != gn.B || cz.L != gn.L || cz.H != gn.H {
		t.Errorf("MSM shapes differ: cuzk %+v, gnark %+v", cz, gn)
	}
	if d := cz.A.Other - gn.A.Other; d != len(pa.Input)-1 {
		t.Errorf("A: cuzk has %d full-size scalars, gnark %d; want the %d public inputs as the only difference",
			cz.A.Other, gn.A.Other, len(pa.Input)-1)
	}
	// DummySetup's markers are not the R1CS's: the old unfair key.
	dk, err := gnarkgroth16.DummySetup(sys)
	if err != nil {
		t.Fatal(err)
	}
	mis := 0
	for i := range absA {
		if absA[i] != dk.(*g16bls.ProvingKey).InfinityA[i] {
			mis++
		}
	}
	if mis == 0 {
		t.Error("DummySetup's markers match the R1CS; the fairness check cannot tell keys apart")
	}
}

// Both provers' proofs verify, with the public inputs taken from the plan.
func TestBothProofsVerify(t *testing.T) {
	m := smallMixed()
	ops := m.Plan()
	circ := replay{ops: ops}
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		t.Fatal(err)
	}
	params, err := groth16.Setup(circ, tw, groth16.SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := groth16.Prepare(params.VK)
	if err != nil {
		t.Fatal(err)
	}
	rnd, _ := groth16.RandomRandomness(1)
	proofs, err := groth16.Prove(context.Background(), params, []*cr1cs.ProvingAssignment{testcircuits.Assignment(t, circ)}, rnd, groth16.ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := publicInputs(ops)
	if ok, err := groth16.Verify(pvk, &proofs[0], in); err != nil || !ok {
		t.Fatalf("cuzk proof: %v %v", ok, err)
	}
	in[0].SetUint64(1)
	if ok, _ := groth16.Verify(pvk, &proofs[0], in); ok {
		t.Fatal("cuzk proof verifies with a wrong input")
	}

	sys, wit, toCuzk, err := gnarkSystem(ops)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := wit.Public()
	gpk, gvk, err := gnarkgroth16.Setup(sys)
	if err != nil {
		t.Fatal(err)
	}
	spk, svk, err := gnarkKeyFromSRS(params, tw, sys, toCuzk, testcircuits.Assignment(t, circ))
	if err != nil {
		t.Fatal(err)
	}
	// The key built from cuzk's points has gnark's Setup layout.
	g, k := gpk.(*g16bls.ProvingKey), spk
	if len(g.G1.A) != len(k.G1.A) || len(g.G1.B) != len(k.G1.B) || len(g.G2.B) != len(k.G2.B) ||
		len(g.G1.K) != len(k.G1.K) || len(g.G1.Z) != len(k.G1.Z) ||
		g.NbInfinityA != k.NbInfinityA || g.NbInfinityB != k.NbInfinityB || len(gvk.(*g16bls.VerifyingKey).G1.K) != len(svk.G1.K) {
		t.Fatal("SRS key layout differs from gnark Setup's")
	}
	for name, key := range map[string][2]any{"gnark Setup": {gpk, gvk}, "from cuzk's SRS": {spk, svk}} {
		pk, vk := key[0].(gnarkgroth16.ProvingKey), key[1].(gnarkgroth16.VerifyingKey)
		proof, err := gnarkgroth16.Prove(sys, pk, wit)
		if err != nil {
			t.Fatal(err)
		}
		if err := gnarkgroth16.Verify(proof, vk, pub); err != nil {
			t.Fatalf("gnark proof, key %s: %v", name, err)
		}
	}
	// A key off by one point must not verify: the check has teeth.
	k.G1.K[len(k.G1.K)/2] = k.G1.K[0]
	proof, err := gnarkgroth16.Prove(sys, spk, wit)
	if err != nil {
		t.Fatal(err)
	}
	if gnarkgroth16.Verify(proof, svk, pub) == nil {
		t.Fatal("a corrupted key still verifies")
	}
}

func TestStats(t *testing.T) {
	if got := median([]time.Duration{5, 1, 3}); got != 3 {
		t.Errorf("median odd = %v", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median even = %v", got)
	}
	r := ratios([]time.Duration{2, 3}, []time.Duration{4, 3})
	if r[0] != 0.5 || r[1] != 1 {
		t.Errorf("ratios = %v", r)
	}
	var s scalarStats
	var e fr.Element
	s.add(&e)
	e.SetOne()
	s.add(&e)
	e.SetUint64(2)
	s.add(&e)
	if s != (scalarStats{1, 1, 1}) {
		t.Errorf("scalarStats = %+v", s)
	}
}
