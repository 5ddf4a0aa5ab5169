package main

import (
	"fmt"
	"math/big"
	"math/bits"

	curve "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	g16bls "github.com/consensys/gnark/backend/groth16/bls12-381"
	gcs "github.com/consensys/gnark/constraint/bls12-381"

	"github.com/cuzk-dev/cuzk/groth16"
	cr1cs "github.com/cuzk-dev/cuzk/r1cs"
)

// gnarkKeyFromSRS builds the real gnark Groth16 key of sys from the
// parameters cuzk's Setup made for the same rows with toxic waste tw.
//
// Why: gnark's own groth16.Setup computes every point by a windowed
// double-and-add (BatchScalarMultiplicationG1/G2): 13.6 s of CPU at 2^14
// here, so ≈ 15 min of CPU at 2^20, about an hour of wall time on this
// shared 2-core machine, against about 5 min for cuzk's fixed-base tables. Both keys are the
// same polynomials at the same τ, α, β, γ, δ over the same generators and
// the same evaluation domain (gnark's setupABC and cuzk's Setup use the
// same Lagrange basis), so each gnark point is a cuzk point:
//
//	gnark A[w], B[w] (G1, G2) = cuzk A, BG1, BG2 of the same variable
//	gnark K[w] (private)      = cuzk L of the same aux variable
//	gnark Z                   = cuzk H, in gnark's bit-reversed order
//
// except where bellperson's appended input rows (input_k·0 = 0 at row
// n + k, n = gnark's constraint count) add L_{n+k}(τ) to u_k for each
// input k (ONE included): gnark's A of ONE and its verifying key's K_k are
// corrected by that term (nine scalar multiplications). The infinity
// markers are the wires absent from A and from B in sys, and they must agree
// with cuzk's densities; gnark's verifier then accepts the proofs, which is
// the check that the key is right. toCuzk maps each gnark wire to cuzk's
// variable (index into inputs then aux); pa is a synthesis of the circuit
// (for its densities).
func gnarkKeyFromSRS(p *groth16.Params, tw groth16.ToxicWaste, sys *gcs.R1CS, toCuzk []int, pa *cr1cs.ProvingAssignment) (*g16bls.ProvingKey, *g16bls.VerifyingKey, error) {
	nIn := len(pa.Input)
	nPub := sys.GetNbPublicVariables()
	nWires := len(toCuzk)
	if nPub != nIn {
		return nil, nil, fmt.Errorf("gnark has %d public wires, cuzk %d inputs", nPub, nIn)
	}
	n := sys.GetNbConstraints()
	domain := fft.NewDomain(uint64(n))
	m := int(domain.Cardinality)
	if len(p.H) != m-1 || n+nIn > m {
		return nil, nil, fmt.Errorf("domains differ: gnark %d, cuzk h has %d points", m, len(p.H))
	}

	// Index cuzk's A and B queries by variable.
	aAt := make([]int, nIn+len(pa.Aux)) // position in p.A, or −1
	bAt := make([]int, nIn+len(pa.Aux)) // position in p.BG1/BG2, or −1
	ia, ib := 0, 0
	for i := 0; i < nIn; i++ {
		aAt[i], ia = ia, ia+1
		bAt[i] = -1
		if pa.Density.BInput.Get(i) {
			bAt[i], ib = ib, ib+1
		}
	}
	for j := range pa.Aux {
		aAt[nIn+j], bAt[nIn+j] = -1, -1
		if pa.Density.AAux.Get(j) {
			aAt[nIn+j], ia = ia, ia+1
		}
		if pa.Density.BAux.Get(j) {
			bAt[nIn+j], ib = ib, ib+1
		}
	}
	if ia != len(p.A) || ib != len(p.BG1) {
		return nil, nil, fmt.Errorf("cuzk queries: %d/%d A points, %d/%d B points", ia, len(p.A), ib, len(p.BG1))
	}

	// L_{n+k}(τ) = (τ^m − 1)/m · ω^(n+k)/(τ − ω^(n+k)), the input rows' share.
	var tm, one fr.Element
	one.SetOne()
	tm.Exp(tw.Tau, big.NewInt(int64(m))).Sub(&tm, &one).Mul(&tm, &domain.CardinalityInv)
	lagIn := make([]fr.Element, nIn)
	var w fr.Element
	w.Exp(domain.Generator, big.NewInt(int64(n)))
	for k := range lagIn {
		var d fr.Element
		d.Sub(&tw.Tau, &w).Inverse(&d)
		lagIn[k].Mul(&tm, &w).Mul(&lagIn[k], &d)
		w.Mul(&w, &domain.Generator)
	}
	mulG1 := func(s *fr.Element) curve.G1Affine {
		var out curve.G1Affine
		return *out.ScalarMultiplicationBase(s.BigInt(new(big.Int)))
	}
	sub := func(a curve.G1Affine, s *fr.Element) curve.G1Affine {
		c := mulG1(s)
		c.Neg(&c)
		var j curve.G1Jac
		j.FromAffine(&a)
		j.AddMixed(&c)
		var out curve.G1Affine
		return *out.FromJacobian(&j)
	}

	absA, absB := absentWires(sys)
	pk := &g16bls.ProvingKey{Domain: *domain}
	pk.InfinityA, pk.InfinityB = absA, absB
	pk.G1.Alpha, pk.G1.Beta, pk.G1.Delta = p.VK.AlphaG1, p.VK.BetaG1, p.VK.DeltaG1
	pk.G2.Beta, pk.G2.Delta = p.VK.BetaG2, p.VK.DeltaG2
	for wi := 0; wi < nWires; wi++ {
		v := toCuzk[wi]
		if !absA[wi] {
			if wi < nPub {
				// cuzk's u includes its input row; gnark's has none.
				pk.G1.A = append(pk.G1.A, sub(p.A[aAt[v]], &lagIn[v]))
			} else {
				if aAt[v] < 0 {
					return nil, nil, fmt.Errorf("wire %d is in gnark's A but aux %d is not A-dense in cuzk", wi, v-nIn)
				}
				pk.G1.A = append(pk.G1.A, p.A[aAt[v]])
			}
		} else {
			pk.NbInfinityA++
			if wi >= nPub && aAt[v] >= 0 {
				return nil, nil, fmt.Errorf("wire %d is absent from gnark's A but aux %d is A-dense in cuzk", wi, v-nIn)
			}
		}
		if !absB[wi] {
			if bAt[v] < 0 {
				return nil, nil, fmt.Errorf("wire %d is in gnark's B but variable %d is not B-dense in cuzk", wi, v)
			}
			pk.G1.B = append(pk.G1.B, p.BG1[bAt[v]])
			pk.G2.B = append(pk.G2.B, p.BG2[bAt[v]])
		} else {
			pk.NbInfinityB++
			if bAt[v] >= 0 {
				return nil, nil, fmt.Errorf("wire %d is absent from gnark's B but variable %d is B-dense in cuzk", wi, v)
			}
		}
		if wi >= nPub {
			pk.G1.K = append(pk.G1.K, p.L[v-nIn])
		}
	}
	// gnark's Z: τ^i·t(τ)/δ for i < m, bit-reversed, the first m−1 kept;
	// index m−1 (not in cuzk's h) reverses onto itself and is dropped.
	z := make([]curve.G1Affine, m)
	copy(z, p.H)
	shift := uint(bits.UintSize - bits.TrailingZeros(uint(m)))
	for i := uint(0); i < uint(m); i++ {
		if r := bits.Reverse(i) >> shift; r > i {
			z[i], z[r] = z[r], z[i]
		}
	}
	pk.G1.Z = z[:m-1]

	vk := &g16bls.VerifyingKey{}
	vk.G1.Alpha, vk.G1.Beta, vk.G1.Delta = p.VK.AlphaG1, p.VK.BetaG1, p.VK.DeltaG1
	vk.G2.Beta, vk.G2.Delta, vk.G2.Gamma = p.VK.BetaG2, p.VK.DeltaG2, p.VK.GammaG2
	// K_k = IC_k − β·L_{n+k}(τ)/γ (cuzk's IC counts u_k with its input row).
	var bg fr.Element
	bg.Inverse(&tw.Gamma).Mul(&bg, &tw.Beta)
	for k := 0; k < nPub; k++ {
		var s fr.Element
		s.Mul(&lagIn[toCuzk[k]], &bg)
		vk.G1.K = append(vk.G1.K, sub(p.VK.IC[toCuzk[k]], &s))
	}
	if err := vk.Precompute(); err != nil {
		return nil, nil, err
	}
	return pk, vk, nil
}
