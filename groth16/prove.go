package groth16

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"runtime/debug"
	"time"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"
	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/r1cs"
)

// Randomness is the blinding (r, s) of one proof. Production proofs draw it
// fresh for every proof (RandomRandomness); fixed values exist only so that
// tests can compare proofs byte for byte with bellperson's create_proof_batch.
type Randomness struct{ R, S fr.Element }

// RandomRandomness draws n independent (r, s) pairs from crypto/rand.
func RandomRandomness(n int) ([]Randomness, error) {
	out := make([]Randomness, n)
	for i := range out {
		if _, err := out[i].R.SetRandom(); err != nil {
			return nil, fmt.Errorf("groth16: drawing r: %w", err)
		}
		if _, err := out[i].S.SetRandom(); err != nil {
			return nil, fmt.Errorf("groth16: drawing s: %w", err)
		}
	}
	return out, nil
}

// ErrShape is returned when a synthesised circuit does not fit the parameters.
var ErrShape = errors.New("groth16: circuit does not match the parameters")

// ProveOptions tune proving.
type ProveOptions struct {
	Workers int // 0 means GOMAXPROCS
	// Yield, when set, is called at the prover's yield points: between
	// and inside the transforms, between multi-exponentiations, every
	// scanYield scalars of the scalar scan and between pieces of
	// YieldPoints points of the general multi-exponentiation. A scheduler
	// passes a function that blocks while more urgent work runs; an error
	// from it (the context ended while paused) ends Start or Finish with
	// that error. The proof does not depend on it.
	//
	// The same yield points check the context of Start and Finish
	// whether or not Yield is set, so a cancelled proof stops within one
	// step between two of them (a fraction of a second on two cores; see
	// YieldPoints); the general MSMs then run in pieces of YieldPoints
	// whenever the context can end.
	Yield func(ctx context.Context) error
	// Stage, when set, is told when each step of each circuit starts
	// (part is the circuit's index in the batch): "msm l", "msm a",
	// "msm b_g1", "msm b_g2", "h" (the FFTs), "msm h", and in Finish
	// "assemble" (the Step constants). A benchmark measures time and
	// memory per step with it; their wall times alone are in
	// Pending.Times.Steps whether or not it is set.
	Stage func(part int, stage string)
}

func (o ProveOptions) stage(part int, name string) {
	if o.Stage != nil {
		o.Stage(part, name)
	}
}

// YieldPoints is the largest piece of a multi-exponentiation run between
// two yield points when ProveOptions.Yield is set or the context can end.
// A piece of 2^16 points takes 0.25 s of CPU in G1 and 0.65 s in G2
// (0.13 and 0.32 s on two cores; less with more): splitting into such
// pieces costs nothing measurable (BenchmarkYieldOverhead; a G1 MSM of
// 2^19 points and a G2 one of 2^18 take the same CPU whole and in pieces
// of 2^16), while pieces of 2^15 cost 6–28 % more CPU and 2^14 up to
// 30 % (docs/performance.md).
const YieldPoints = 1 << 16

// yielder binds opt.Yield to ctx and checks ctx first, so that every
// yield point is also a cancellation point; nil when there is neither a
// Yield nor a context that can end.
func (o ProveOptions) yielder(ctx context.Context) func() error {
	if o.Yield == nil && ctx.Done() == nil {
		return nil
	}
	return func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if o.Yield == nil {
			return nil
		}
		return o.Yield(ctx)
	}
}

func (o ProveOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// StageTimes says where a proof's time went.
type StageTimes struct {
	FFT    time.Duration // H computation
	MSMG1  time.Duration // h, l, a, b_g1
	MSMG2  time.Duration // b_g2
	Finish time.Duration // assembly
	// Steps are each circuit's steps (index: the circuit's in the batch)
	// with their wall time, in the order they ran: Start's "msm l",
	// "msm a", "msm b_g1", "msm b_g2", "h", "msm h", then Finish's
	// "assemble". The time between steps (returning a spent witness to
	// the OS) is in none of them. A backend that cannot time its steps
	// (one device call) leaves Steps nil.
	Steps [][]Step
}

// Step is the wall time of one step of one circuit's proving, named as
// ProveOptions.Stage names it.
type Step struct {
	Name string
	Wall time.Duration
}

// Step names, as Step.Name and ProveOptions.Stage carry them.
const (
	StepMSML     = "msm l"
	StepMSMA     = "msm a"
	StepMSMBG1   = "msm b_g1"
	StepMSMBG2   = "msm b_g2"
	StepH        = "h" // the six transforms of H
	StepMSMH     = "msm h"
	StepAssemble = "assemble"
)

// Pending is a batch whose heavy G1 work is done; Finish completes it.
type Pending struct {
	params *Params
	parts  []*pendingProof
	opt    ProveOptions
	Times  StageTimes
}

type pendingProof struct {
	rnd                          Randomness
	h, l, aIn, aAux, b1In, b1Aux bls.G1Jac
	b2In, b2Aux                  bls.G2Jac
}

// Start runs the heavy half of proving a batch of same-shape circuits: every
// multi-exponentiation (G1 and G2) and H through FFTs; Finish assembles the
// proofs. parts must have had their input rows appended
// (r1cs.CS.AppendInputRows). Each assignment is consumed: its aux
// witness, a, b and c are released (a's storage holds H) as soon as they
// are used.
//
// The order keeps a partition's peak memory at about three domain-sized
// vectors: the multi-exponentiations over the witness (l, a, b_g1, b_g2)
// run first, while a and b wait, so that the witness (32 bytes per aux
// variable) is gone before H needs a third domain vector for c (which,
// for an assignment that omits c, is recomputed as a∘b). With H first, the
// witness and three domain vectors would be live together: 16 GiB instead
// of 12 for a 2^27-row partition.
func Start(ctx context.Context, p *Params, parts []*r1cs.ProvingAssignment, rnd []Randomness, opt ProveOptions) (*Pending, error) {
	if err := CheckBatch(p, parts, rnd); err != nil {
		return nil, err
	}
	workers := opt.workers()
	y := opt.yielder(ctx)
	pend := &Pending{params: p, opt: opt}
	hq, lq, aq, b1q, b2q := p.hQuery(), p.lQuery(), p.aQuery(), p.b1Query(), p.b2Query()
	for i, pa := range parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pp := &pendingProof{rnd: rnd[i]}
		nIn := len(pa.Input)
		bIn := pa.Density.BInput.Count()
		steps := make([]Step, 0, 7)
		// step names f's work: the first function of a step tells
		// opt.Stage that it begins, and each adds its wall time to it.
		step := func(name string, f func() error) func() error {
			return func() error {
				if len(steps) == 0 || steps[len(steps)-1].Name != name {
					opt.stage(i, name)
					steps = append(steps, Step{Name: name})
				}
				t := time.Now()
				defer func() { steps[len(steps)-1].Wall += time.Since(t) }()
				err := f()
				if p.Mapped() && len(pa.Aux) >= 1<<20 {
					// A multi-exponentiation over a mapped query leaves its
					// window, compaction and digit buffers (0.6 GB at
					// 32 GiB) as garbage. Collected now, the next query
					// reuses that memory; left to the heap's soft limit, the
					// four over the witness stacked theirs up and the
					// process rose to 1.13x the engine's reservation.
					runtime.GC()
				}
				return err
			}
		}
		run := func(stage *time.Duration, fs ...func() error) error {
			t := time.Now()
			defer func() { *stage += time.Since(t) }()
			for _, f := range fs {
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := f(); err != nil {
					if ctx.Err() != nil {
						return ctx.Err() // cancelled while paused at a yield point
					}
					return fmt.Errorf("groth16: circuit %d: %w", i, err)
				}
			}
			return nil
		}
		err := run(&pend.Times.MSMG1,
			step(StepMSML, func() (e error) { pp.l, e = msmQueryG1(lq, pa.Aux, nil, workers, y); return }),
			step(StepMSMA, func() (e error) {
				pp.aIn, e = msmQueryG1(aq.slice(0, nIn), pa.Input, nil, workers, y)
				return
			}),
			step(StepMSMA, func() (e error) {
				pp.aAux, e = msmQueryG1(aq.slice(nIn, aq.n), pa.Aux, &pa.Density.AAux, workers, y)
				return
			}),
			step(StepMSMBG1, func() (e error) {
				pp.b1In, e = msmQueryG1(b1q.slice(0, bIn), pa.Input, &pa.Density.BInput, workers, y)
				return
			}),
			step(StepMSMBG1, func() (e error) {
				pp.b1Aux, e = msmQueryG1(b1q.slice(bIn, b1q.n), pa.Aux, &pa.Density.BAux, workers, y)
				return
			}))
		if err == nil {
			err = run(&pend.Times.MSMG2,
				step(StepMSMBG2, func() (e error) {
					pp.b2In, e = msmQueryG2(b2q.slice(0, bIn), pa.Input, &pa.Density.BInput, workers, y)
					return
				}),
				step(StepMSMBG2, func() (e error) {
					pp.b2Aux, e = msmQueryG2(b2q.slice(bIn, b2q.n), pa.Aux, &pa.Density.BAux, workers, y)
					return
				}))
		}
		if err != nil {
			return nil, err
		}
		spent := int64(len(pa.Aux)) * fr.Bytes
		pa.Aux = nil // the witness is spent: H may have its memory
		if spent >= 1<<28 {
			// Now, not at the collector's next cycle: H allocates its
			// third domain vector next.
			debug.FreeOSMemory()
		}
		var h []fr.Element
		t0 := time.Now()
		if err := step(StepH, func() (e error) { h, e = computeH(pa, workers, y); return })(); err != nil {
			return nil, err
		}
		pend.Times.FFT += time.Since(t0)
		if spent := 2 * int64(len(h)) * fr.Bytes; spent >= 1<<28 {
			// b and c are spent too. Returned now, the h MSM's peak is
			// what it holds; left to the collector, the 32 GiB WindowPoSt
			// partition's anonymous RSS rose 1.45 GB above the engine's
			// reservation during msm h, all of it this garbage under the
			// heap's soft limit (docs/performance.md, "Full size").
			debug.FreeOSMemory()
		}
		if err := run(&pend.Times.MSMG1, step(StepMSMH, func() (e error) { pp.h, e = msmQueryG1(hq, h, nil, workers, y); return })); err != nil {
			return nil, err
		}
		pend.Times.Steps = append(pend.Times.Steps, steps)
		pend.parts = append(pend.parts, pp)
	}
	return pend, nil
}

// ComputeH is the prover's H stage alone: the m−1 coefficients of
// H = (A·B − C)/Z for pa (its input rows appended), c recomputed as a∘b
// when pa omits it. It consumes pa's a, b and c, as Start does. For
// benchmarks of the stage's time and memory (cuzk bench synth --through-h).
func ComputeH(pa *r1cs.ProvingAssignment, workers int) ([]fr.Element, error) {
	if _, err := DomainSize(len(pa.A)); err != nil {
		return nil, err
	}
	if len(pa.B) != len(pa.A) || (pa.HasC() && len(pa.C) != len(pa.A)) {
		return nil, fmt.Errorf("%w: a, b, c have %d, %d, %d rows", ErrShape, len(pa.A), len(pa.B), len(pa.C))
	}
	return computeH(pa, max(workers, 1), nil)
}

// computeH returns the m−1 coefficients of H = (A·B − C)/Z exactly as
// bellperson's execute_fft: interpolate a, b, c over the domain, evaluate on
// the coset g·ω^i (g = 7), combine pointwise, divide by Z(g·ω^i) = g^m − 1,
// interpolate back from the coset. The a vector's storage is reused for the
// result; a, b and c are released. It runs quotient (six transforms);
// computeHWith (quotient_ref_test.go) is that computation through
// gnark-crypto's FFTs, the reference quotient is tested against.
// y, when not nil, is called between the transforms (see
// ProveOptions.Yield); its error stops the computation.
func computeH(pa *r1cs.ProvingAssignment, workers int, y func() error) ([]fr.Element, error) {
	return quotient(pa, workers, y)
}

// Finish assembles the proofs (every multi-exponentiation ran in Start).
func (pend *Pending) Finish(ctx context.Context) ([]Proof, error) {
	t0 := time.Now()
	proofs := make([]Proof, len(pend.parts))
	for i, pp := range pend.parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pend.opt.stage(i, StepAssemble)
		t := time.Now()
		proofs[i] = assemble(pend.params.VK, pp, &pp.b2In, &pp.b2Aux)
		pend.Times.Steps[i] = append(pend.Times.Steps[i], Step{Name: StepAssemble, Wall: time.Since(t)})
	}
	pend.Times.Finish += time.Since(t0)
	return proofs, nil
}

// assemble follows bellperson native.rs:
//
//	A = α₁ + a_in + a_aux + r·δ₁
//	B = β₂ + b2_in + b2_aux + s·δ₂
//	C = s·(a_in + a_aux) + r·(b1_in + b1_aux) + r·s·δ₁ + s·α₁ + r·β₁ + H + L
func assemble(vk *VerifyingKey, pp *pendingProof, b2In, b2Aux *bls.G2Jac) Proof {
	r := pp.rnd.R.BigInt(new(big.Int))
	s := pp.rnd.S.BigInt(new(big.Int))
	var rs fr.Element
	rs.Mul(&pp.rnd.R, &pp.rnd.S)

	mulG1 := func(p *bls.G1Affine, k *big.Int) bls.G1Jac {
		var j bls.G1Jac
		j.FromAffine(p)
		j.ScalarMultiplication(&j, k)
		return j
	}

	aAnswer := pp.aIn
	aAnswer.AddAssign(&pp.aAux)

	gA := mulG1(&vk.DeltaG1, r)
	gA.AddMixed(&vk.AlphaG1)
	gA.AddAssign(&aAnswer)

	var gB bls.G2Jac
	gB.FromAffine(&vk.DeltaG2)
	gB.ScalarMultiplication(&gB, s)
	gB.AddMixed(&vk.BetaG2)
	gB.AddAssign(b2In)
	gB.AddAssign(b2Aux)

	gC := aAnswer
	gC.ScalarMultiplication(&gC, s)
	b1 := pp.b1In
	b1.AddAssign(&pp.b1Aux)
	b1.ScalarMultiplication(&b1, r)
	gC.AddAssign(&b1)
	t := mulG1(&vk.DeltaG1, rs.BigInt(new(big.Int)))
	gC.AddAssign(&t)
	t = mulG1(&vk.AlphaG1, s)
	gC.AddAssign(&t)
	t = mulG1(&vk.BetaG1, r)
	gC.AddAssign(&t)
	gC.AddAssign(&pp.h)
	gC.AddAssign(&pp.l)

	var out Proof
	out.A.FromJacobian(&gA)
	out.B.FromJacobian(&gB)
	out.C.FromJacobian(&gC)
	return out
}

// Prove is Start followed by Finish.
func Prove(ctx context.Context, p *Params, parts []*r1cs.ProvingAssignment, rnd []Randomness, opt ProveOptions) ([]Proof, error) {
	pend, err := Start(ctx, p, parts, rnd, opt)
	if err != nil {
		return nil, err
	}
	return pend.Finish(ctx)
}
