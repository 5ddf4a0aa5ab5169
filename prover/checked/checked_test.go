package checked

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/testparams"
)

// flaky proves like the CPU backend but on copies of the assignments (as
// the GPU backend, it leaves them intact), then spoils the proofs of the
// circuits in bad, or fails outright.
type flaky struct {
	bad     map[int]bool
	failErr error
	calls   int
}

func (f *flaky) Name() string { return "flaky" }

func (f *flaky) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	f.calls++
	if f.failErr != nil {
		return nil, f.failErr
	}
	cp := make([]*r1cs.ProvingAssignment, len(parts))
	for i, pa := range parts {
		c := *pa
		c.A, c.B, c.C = slices.Clone(pa.A), slices.Clone(pa.B), slices.Clone(pa.C)
		cp[i] = &c
	}
	proofs, err := groth16.Prove(ctx, p, cp, rnd, groth16.ProveOptions{})
	if err != nil {
		return nil, err
	}
	for i := range proofs {
		if f.bad[i] {
			proofs[i].A.Neg(&proofs[i].A)
		}
	}
	return done(proofs), nil
}

type done []groth16.Proof

func (d done) Finish(context.Context) ([]groth16.Proof, error) { return d, nil }
func (d done) Times() groth16.StageTimes                       { return groth16.StageTimes{} }

// countingCPU is the CPU backend, counting the circuits it proves.
type countingCPU struct {
	cpu.Backend
	circuits int
}

func (c *countingCPU) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	c.circuits += len(parts)
	return c.Backend.Start(ctx, p, parts, rnd)
}

func batch(t *testing.T, c r1cs.Circuit, n int) []*r1cs.ProvingAssignment {
	t.Helper()
	var out []*r1cs.ProvingAssignment
	for range n {
		pa := r1cs.NewProvingAssignment(r1cs.Size{})
		cs, err := r1cs.Synthesize(c, pa)
		if err != nil {
			t.Fatal(err)
		}
		cs.AppendInputRows()
		out = append(out, pa)
	}
	return out
}

func randomness(n int) []groth16.Randomness {
	out := make([]groth16.Randomness, n)
	for i := range out {
		out[i].R.SetUint64(uint64(11 + i))
		out[i].S.SetUint64(uint64(23 + i))
	}
	return out
}

func TestRetryOnCPU(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 300, Inputs: 2, Seed: 5}
	p, err := groth16.Setup(c, testparams.ToxicWaste("checked"), groth16.SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := groth16.Prepare(p.VK)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	want, err := groth16.Prove(context.Background(), p, batch(t, c, n), randomness(n), groth16.ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		primary   *flaky
		retries   int
		reason    Reason
		fallbacks int
	}{
		{"all good", &flaky{}, 0, "", 0},
		{"two bad proofs", &flaky{bad: map[int]bool{1: true, 3: true}}, 2, ReasonBadProof, 2},
		{"device error", &flaky{failErr: errors.New("out of memory")}, n, ReasonDeviceError, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fb := &countingCPU{}
			var reasons []Reason
			b := &Backend{Primary: tc.primary, Fallback: fb, OnRetry: func(r Reason, _ int, _ error) { reasons = append(reasons, r) }}
			ctx := context.Background()
			pend, err := b.Start(ctx, p, batch(t, c, n), randomness(n))
			if err != nil {
				t.Fatal(err)
			}
			got, err := pend.Finish(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(reasons) != tc.retries || fb.circuits != tc.fallbacks {
				t.Fatalf("%d retries (%v), %d circuits on the fallback; want %d, %d", len(reasons), reasons, fb.circuits, tc.retries, tc.fallbacks)
			}
			for _, r := range reasons {
				if r != tc.reason {
					t.Fatalf("reason %q, want %q", r, tc.reason)
				}
			}
			// The circuits redone on the CPU list its steps as the
			// fallback's; the primary here times none.
			steps := pend.Times().Steps
			redone := 0
			for i := range steps {
				if len(steps[i]) > 0 {
					redone++
					if s := steps[i][0]; s.Name != "fallback "+groth16.StepMSML || s.Wall <= 0 {
						t.Errorf("circuit %d: first step %+v", i, s)
					}
				}
			}
			if redone != tc.fallbacks {
				t.Errorf("steps of %d circuits, %d redone", redone, tc.fallbacks)
			}
			inputs := batch(t, c, 1)[0].Input[1:]
			for i := range got {
				if got[i].Bytes() != want[i].Bytes() {
					t.Fatalf("proof %d differs from the CPU backend's", i)
				}
				if ok, err := groth16.Verify(pvk, &got[i], inputs); !ok || err != nil {
					t.Fatalf("proof %d does not verify: %v", i, err)
				}
			}
		})
	}

	// A fallback that is as wrong as the primary: ErrSelfCheck, no proofs.
	b := &Backend{Primary: &flaky{bad: map[int]bool{0: true}}, Fallback: &flaky{bad: map[int]bool{0: true}}}
	pend, err := b.Start(context.Background(), p, batch(t, c, 1), randomness(1))
	if err != nil {
		t.Fatal(err)
	}
	if proofs, err := pend.Finish(context.Background()); !errors.Is(err, prover.ErrSelfCheck) || proofs != nil {
		t.Fatalf("both wrong: %v, %d proofs; want ErrSelfCheck", err, len(proofs))
	}

	// A wrong statement is caught too: the check uses the assignment's own
	// public inputs, so a proof of other inputs never passes.
	var x fr.Element
	x.SetUint64(99)
	if ok, _ := groth16.Verify(pvk, &want[0], []fr.Element{x, x}); ok {
		t.Fatal("proof verified against other inputs")
	}
}
