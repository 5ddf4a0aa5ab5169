package groth16

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"

	"github.com/consensys/gnark-crypto/ecc"
	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// ErrInputCount is returned when the number of public inputs does not match
// the verifying key (bellperson's MalformedVerifyingKey).
var ErrInputCount = errors.New("groth16: public input count does not match the verifying key")

// PreparedVerifyingKey holds what verification reuses: e(α₁, β₂) and the
// Miller-loop lines of −γ₂ and −δ₂ (bellperson prepare_verifying_key).
type PreparedVerifyingKey struct {
	VK        *VerifyingKey
	alphaBeta bls.GT
	negGamma  [2][len(bls.LoopCounter) - 1]bls.LineEvaluationAff
	negDelta  [2][len(bls.LoopCounter) - 1]bls.LineEvaluationAff
}

// Prepare precomputes a verifying key.
func Prepare(vk *VerifyingKey) (*PreparedVerifyingKey, error) {
	if len(vk.IC) == 0 {
		return nil, errors.New("groth16: verifying key has no IC points")
	}
	ab, err := bls.Pair([]bls.G1Affine{vk.AlphaG1}, []bls.G2Affine{vk.BetaG2})
	if err != nil {
		return nil, fmt.Errorf("groth16: preparing verifying key: %w", err)
	}
	var ng, nd bls.G2Affine
	ng.Neg(&vk.GammaG2)
	nd.Neg(&vk.DeltaG2)
	return &PreparedVerifyingKey{
		VK:        vk,
		alphaBeta: ab,
		negGamma:  bls.PrecomputeLines(ng),
		negDelta:  bls.PrecomputeLines(nd),
	}, nil
}

// NumInputs is the number of public inputs a proof takes (ONE excluded).
func (pvk *PreparedVerifyingKey) NumInputs() int { return len(pvk.VK.IC) - 1 }

// inputAcc returns IC[0] + Σ inputs[i]·IC[i+1].
func (pvk *PreparedVerifyingKey) inputAcc(inputs []fr.Element) (bls.G1Affine, error) {
	if len(inputs)+1 != len(pvk.VK.IC) {
		return bls.G1Affine{}, fmt.Errorf("%w: got %d inputs, key takes %d", ErrInputCount, len(inputs), len(pvk.VK.IC)-1)
	}
	var acc bls.G1Jac
	acc.FromAffine(&pvk.VK.IC[0])
	if len(inputs) > 0 {
		var sum bls.G1Jac
		if _, err := sum.MultiExp(pvk.VK.IC[1:], inputs, ecc.MultiExpConfig{NbTasks: 1}); err != nil {
			return bls.G1Affine{}, err
		}
		acc.AddAssign(&sum)
	}
	var out bls.G1Affine
	out.FromJacobian(&acc)
	return out, nil
}

// Verify checks one proof: e(A,B)·e(C,−δ₂)·e(acc,−γ₂) = e(α₁,β₂). A wrong
// input count is an error; an invalid proof is (false, nil).
func Verify(pvk *PreparedVerifyingKey, proof *Proof, inputs []fr.Element) (bool, error) {
	acc, err := pvk.inputAcc(inputs)
	if err != nil {
		return false, err
	}
	// e(A,B) has a variable G2 point; the two fixed ones use precomputed lines.
	ml1, err := bls.MillerLoop([]bls.G1Affine{proof.A}, []bls.G2Affine{proof.B})
	if err != nil {
		return false, err
	}
	ml2, err := bls.MillerLoopFixedQ([]bls.G1Affine{proof.C, acc},
		[][2][len(bls.LoopCounter) - 1]bls.LineEvaluationAff{pvk.negDelta, pvk.negGamma})
	if err != nil {
		return false, err
	}
	ml1.Mul(&ml1, &ml2)
	got := bls.FinalExponentiation(&ml1)
	return got.Equal(&pvk.alphaBeta), nil
}

// VerifyBatch checks many proofs against one key at the cost of roughly one
// Miller loop per proof plus two, by a random linear combination with 128-bit
// coefficients (bellperson verify_proofs_batch):
// Π e(zᵢAᵢ, Bᵢ) · e(Σ zᵢCᵢ, −δ₂) · e(Σ zᵢaccᵢ, −γ₂) = e(α₁,β₂)^(Σ zᵢ).
// rnd supplies the coefficients (crypto/rand when nil).
func VerifyBatch(pvk *PreparedVerifyingKey, proofs []Proof, inputs [][]fr.Element, rnd io.Reader) (bool, error) {
	if len(proofs) != len(inputs) {
		return false, fmt.Errorf("groth16: %d proofs but %d input vectors", len(proofs), len(inputs))
	}
	if len(proofs) == 0 {
		return false, errors.New("groth16: no proofs to verify")
	}
	if len(proofs) == 1 {
		return Verify(pvk, &proofs[0], inputs[0])
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	n := len(proofs)
	z := make([]fr.Element, n)
	var zsum fr.Element
	var buf [16]byte
	for i := range z {
		if _, err := io.ReadFull(rnd, buf[:]); err != nil {
			return false, fmt.Errorf("groth16: batch randomness: %w", err)
		}
		var b big.Int
		b.SetBytes(buf[:])
		z[i].SetBigInt(&b)
		zsum.Add(&zsum, &z[i])
	}
	g1 := make([]bls.G1Affine, 0, n+2)
	g2 := make([]bls.G2Affine, 0, n)
	var cSum, accSum bls.G1Jac
	for i := range proofs {
		acc, err := pvk.inputAcc(inputs[i])
		if err != nil {
			return false, fmt.Errorf("proof %d: %w", i, err)
		}
		zi := z[i].BigInt(new(big.Int))
		var za bls.G1Affine
		za.ScalarMultiplication(&proofs[i].A, zi)
		g1 = append(g1, za)
		g2 = append(g2, proofs[i].B)
		var t bls.G1Jac
		t.FromAffine(&proofs[i].C)
		t.ScalarMultiplication(&t, zi)
		cSum.AddAssign(&t)
		t.FromAffine(&acc)
		t.ScalarMultiplication(&t, zi)
		accSum.AddAssign(&t)
	}
	ml1, err := bls.MillerLoop(g1, g2)
	if err != nil {
		return false, err
	}
	var cAff, accAff bls.G1Affine
	cAff.FromJacobian(&cSum)
	accAff.FromJacobian(&accSum)
	ml2, err := bls.MillerLoopFixedQ([]bls.G1Affine{cAff, accAff},
		[][2][len(bls.LoopCounter) - 1]bls.LineEvaluationAff{pvk.negDelta, pvk.negGamma})
	if err != nil {
		return false, err
	}
	ml1.Mul(&ml1, &ml2)
	got := bls.FinalExponentiation(&ml1)
	var want bls.GT
	want.Exp(pvk.alphaBeta, zsum.BigInt(new(big.Int)))
	return got.Equal(&want), nil
}
