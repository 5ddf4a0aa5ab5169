package groth16

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"runtime"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr/fft"
	"github.com/consensys/gnark-crypto/parallel"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// ToxicWaste is the secret randomness of a Groth16 setup. Whoever knows it
// can forge proofs: parameters made from it are for tests only.
type ToxicWaste struct {
	Tau, Alpha, Beta, Gamma, Delta fr.Element
}

// RandomToxicWaste draws fresh toxic waste from crypto/rand.
func RandomToxicWaste() (ToxicWaste, error) {
	var tw ToxicWaste
	for _, e := range []*fr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		if _, err := e.SetRandom(); err != nil {
			return tw, fmt.Errorf("groth16: drawing toxic waste: %w", err)
		}
	}
	return tw, nil
}

// SetupOptions tune Setup.
type SetupOptions struct {
	Workers int // 0 means GOMAXPROCS
	// Progress, when set, is called with a phase name and the fraction done.
	Progress func(phase string, done float64)
}

// ErrUnconstrained is returned when some auxiliary variable appears in no
// row, so its L point would be the identity (bellperson
// UnconstrainedVariable).
var ErrUnconstrained = errors.New("groth16: circuit has an unconstrained auxiliary variable")

// MaxDomainLog is the largest supported evaluation-domain exponent: the
// 2-adicity of the BLS12-381 scalar field.
const MaxDomainLog = 32

// DomainSize returns the evaluation-domain size bellperson uses for a
// circuit with the given number of rows (input rows included): the next
// power of two.
func DomainSize(rows int) (int, error) {
	if rows <= 0 {
		return 0, errors.New("groth16: circuit has no rows")
	}
	lg := bits.Len(uint(rows - 1))
	if lg >= MaxDomainLog {
		return 0, fmt.Errorf("groth16: %d rows need a domain of 2^%d, beyond 2^%d", rows, lg, MaxDomainLog-1)
	}
	return 1 << lg, nil
}

// Setup generates INSECURE test parameters for circuit c from tw, in exactly
// the layout bellperson's generate_parameters produces (generator.rs): the
// same queries, the same filtering of A/B points (structural density), the
// same domain. The G1/G2 bases are the standard generators.
//
// It synthesises c twice: once to count rows, once to fold every row into
// the QAP polynomials at τ.
func Setup(c r1cs.Circuit, tw ToxicWaste, opt SetupOptions) (*Params, error) {
	return SetupContext(context.Background(), c, tw, opt)
}

// SetupContext is Setup under ctx: it checks ctx between its phases and
// before every batch of the fixed-base multiplications that take most of
// its time (about a millisecond each), and returns ctx's error (wrapped)
// soon after ctx ends. A synthesis pass in progress runs to its end (a
// couple of seconds for the 2 KiB PoRep circuit).
func SetupContext(ctx context.Context, c r1cs.Circuit, tw ToxicWaste, opt SetupOptions) (*Params, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	progress := opt.Progress
	if progress == nil {
		progress = func(string, float64) {}
	}

	// Pass 1: size the circuit.
	counter, err := r1cs.Synthesize(c, r1cs.Counter{})
	if err != nil {
		return nil, fmt.Errorf("groth16: setup: counting: %w", err)
	}
	counter.AppendInputRows()
	shape := counter.Size()
	m, err := DomainSize(shape.Constraints)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	progress("lagrange", 0)

	// L_j(τ) = (τ^m − 1)/m · ω^j/(τ − ω^j) for the rows that exist.
	domain := fft.NewDomain(uint64(m), fft.WithoutPrecompute())
	var tauM, zt fr.Element
	tauM.Exp(tw.Tau, big.NewInt(int64(m)))
	one := fr.One()
	zt.Sub(&tauM, &one) // t(τ) = τ^m − 1
	if zt.IsZero() {
		return nil, errors.New("groth16: setup: τ lies in the evaluation domain; draw new toxic waste")
	}
	lagrange := make([]fr.Element, shape.Constraints)
	parallel.Execute(len(lagrange), func(lo, hi int) {
		var w fr.Element
		w.Exp(domain.Generator, big.NewInt(int64(lo)))
		for j := lo; j < hi; j++ {
			lagrange[j].Sub(&tw.Tau, &w) // τ − ω^j, inverted below
			w.Mul(&w, &domain.Generator)
		}
		inv := fr.BatchInvert(lagrange[lo:hi])
		var scale fr.Element
		scale.Mul(&zt, &domain.CardinalityInv)
		w.Exp(domain.Generator, big.NewInt(int64(lo)))
		for j := lo; j < hi; j++ {
			lagrange[j].Mul(&inv[j-lo], &w).Mul(&lagrange[j], &scale)
			w.Mul(&w, &domain.Generator)
		}
	}, workers)

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	// Pass 2: fold rows into u, v, w at τ.
	q := r1cs.NewQAPAssembly(lagrange, shape)
	qcs, err := r1cs.Synthesize(c, q)
	if err != nil {
		return nil, fmt.Errorf("groth16: setup: synthesis: %w", err)
	}
	qcs.AppendInputRows()
	if err := q.Err(); err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}
	if qcs.Size() != shape {
		return nil, fmt.Errorf("groth16: setup: circuit is not deterministic: %+v then %+v", shape, qcs.Size())
	}
	lagrange = nil
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("groth16: setup: %w", err)
	}

	var gammaInv, deltaInv fr.Element
	if tw.Gamma.IsZero() || tw.Delta.IsZero() {
		return nil, errors.New("groth16: setup: γ and δ must be non-zero")
	}
	gammaInv.Inverse(&tw.Gamma)
	deltaInv.Inverse(&tw.Delta)

	// Scalars of every query.
	hScalars := make([]fr.Element, m-1)
	var coeff fr.Element
	coeff.Mul(&zt, &deltaInv)
	parallel.Execute(len(hScalars), func(lo, hi int) {
		var p fr.Element
		p.Exp(tw.Tau, big.NewInt(int64(lo)))
		p.Mul(&p, &coeff)
		for i := lo; i < hi; i++ {
			hScalars[i] = p
			p.Mul(&p, &tw.Tau)
		}
	}, workers)
	ext := func(u, v, w []fr.Element, inv *fr.Element) []fr.Element {
		out := make([]fr.Element, len(u))
		parallel.Execute(len(u), func(lo, hi int) {
			var t fr.Element
			for i := lo; i < hi; i++ {
				out[i].Mul(&u[i], &tw.Beta)
				t.Mul(&v[i], &tw.Alpha)
				out[i].Add(&out[i], &t).Add(&out[i], &w[i]).Mul(&out[i], inv)
			}
		}, workers)
		return out
	}
	icScalars := ext(q.UIn, q.VIn, q.WIn, &gammaInv)
	lScalars := ext(q.UAux, q.VAux, q.WAux, &deltaInv)
	for i := range lScalars {
		if lScalars[i].IsZero() {
			return nil, fmt.Errorf("%w: aux %d", ErrUnconstrained, i)
		}
	}
	aScalars := append([]fr.Element(nil), q.UIn...)
	for i := range q.UAux {
		if q.AAuxDensity.Get(i) {
			aScalars = append(aScalars, q.UAux[i])
		}
	}
	var bScalars []fr.Element
	for i := range q.VIn {
		if q.BInputDensity.Get(i) {
			bScalars = append(bScalars, q.VIn[i])
		}
	}
	for i := range q.VAux {
		if q.BAuxDensity.Get(i) {
			bScalars = append(bScalars, q.VAux[i])
		}
	}
	for _, v := range [][]fr.Element{aScalars, bScalars} {
		for i := range v {
			if v[i].IsZero() {
				// A structurally present variable whose polynomial vanishes at τ:
				// probability ~2^-255, but the file must never hold an identity.
				return nil, errors.New("groth16: setup: a query polynomial vanishes at τ; draw new toxic waste")
			}
		}
	}

	_, _, g1, g2 := bls.Generators()
	nG1 := len(hScalars) + len(icScalars) + len(lScalars) + len(aScalars) + len(bScalars)
	progress("tables", 0)
	t1 := newG1Table(&g1, windowFor(nG1), workers)
	t2 := newG2Table(&g2, windowFor(len(bScalars)), workers)

	p := &Params{VK: &VerifyingKey{}}
	var mulErr error
	mul1 := func(name string, s []fr.Element) []bls.G1Affine {
		if mulErr == nil {
			mulErr = ctx.Err()
		}
		if mulErr != nil {
			return nil
		}
		progress(name, 0)
		out := make([]bls.G1Affine, len(s))
		if mulErr = t1.mulIntoCtx(ctx, out, s, workers); mulErr != nil {
			return nil
		}
		progress(name, 1)
		return out
	}
	p.H = mul1("h", hScalars)
	hScalars = nil
	p.L = mul1("l", lScalars)
	p.A = mul1("a", aScalars)
	p.BG1 = mul1("b_g1", bScalars)
	if mulErr == nil {
		mulErr = ctx.Err()
	}
	if mulErr == nil {
		progress("b_g2", 0)
		p.BG2 = make([]bls.G2Affine, len(bScalars))
		if mulErr = t2.mulIntoCtx(ctx, p.BG2, bScalars, workers); mulErr == nil {
			progress("b_g2", 1)
		}
	}
	p.VK.IC = mul1("ic", icScalars)
	if mulErr != nil {
		return nil, fmt.Errorf("groth16: setup: %w", mulErr)
	}

	one1 := func(s *fr.Element) bls.G1Affine {
		var out [1]bls.G1Affine
		t1.mulInto(out[:], []fr.Element{*s}, 1)
		return out[0]
	}
	one2 := func(s *fr.Element) bls.G2Affine {
		var out [1]bls.G2Affine
		t2.mulInto(out[:], []fr.Element{*s}, 1)
		return out[0]
	}
	p.VK.AlphaG1 = one1(&tw.Alpha)
	p.VK.BetaG1 = one1(&tw.Beta)
	p.VK.BetaG2 = one2(&tw.Beta)
	p.VK.GammaG2 = one2(&tw.Gamma)
	p.VK.DeltaG1 = one1(&tw.Delta)
	p.VK.DeltaG2 = one2(&tw.Delta)
	return p, nil
}
