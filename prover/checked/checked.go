// Package checked wraps a proving backend whose proofs cannot be trusted
// blindly (GPU kernels are known to flake on some cards): every proof is
// verified on the CPU against the public inputs of its own assignment
// before it is returned, and a batch whose device work failed, or a proof
// that does not verify, is proved once more on a fallback backend (the CPU).
//
// The primary backend must leave the assignments' a, b and c intact (the
// CUDA backend only reads them), so that the fallback can prove the same
// circuits again without a second synthesis.
package checked

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Reason says why a proof was redone on the fallback.
type Reason string

// Reasons passed to Backend.OnRetry.
const (
	ReasonDeviceError Reason = "device_error" // the primary's Start or Finish failed
	ReasonBadProof    Reason = "bad_proof"    // the primary's proof did not verify
)

// Backend proves on Primary, verifies, and redoes failures on Fallback.
type Backend struct {
	Primary, Fallback prover.Backend
	// OnRetry, when set, is called once for every proof redone on the
	// fallback (the daemon counts them in a metric).
	OnRetry func(reason Reason, circuit int, err error)

	mu   sync.Mutex
	pvks map[*groth16.Params]*groth16.PreparedVerifyingKey
}

// Name implements prover.Backend.
func (b *Backend) Name() string { return b.Primary.Name() + "+checked" }

func (b *Backend) pvk(p *groth16.Params) (*groth16.PreparedVerifyingKey, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if pvk, ok := b.pvks[p]; ok {
		return pvk, nil
	}
	pvk, err := groth16.Prepare(p.VK)
	if err != nil {
		return nil, fmt.Errorf("checked: %w", err)
	}
	if b.pvks == nil {
		b.pvks = make(map[*groth16.Params]*groth16.PreparedVerifyingKey)
	}
	b.pvks[p] = pvk
	return pvk, nil
}

// Forget drops the prepared verifying key of p (when p is evicted).
func (b *Backend) Forget(p *groth16.Params) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.pvks, p)
}

func (b *Backend) retry(reason Reason, circuit int, err error) {
	if b.OnRetry != nil {
		b.OnRetry(reason, circuit, err)
	}
}

// Start implements prover.Backend. A primary that fails to start leaves
// the whole batch to the fallback.
func (b *Backend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	pvk, err := b.pvk(p)
	if err != nil {
		return nil, err
	}
	pend := &pending{b: b, p: p, pvk: pvk, parts: parts, rnd: rnd}
	pend.primary, pend.startErr = b.Primary.Start(ctx, p, parts, rnd)
	if pend.startErr != nil && ctx.Err() != nil {
		return nil, pend.startErr
	}
	return pend, nil
}

type pending struct {
	b        *Backend
	p        *groth16.Params
	pvk      *groth16.PreparedVerifyingKey
	parts    []*r1cs.ProvingAssignment
	rnd      []groth16.Randomness
	primary  prover.Pending
	startErr error
	times    groth16.StageTimes
	finished bool // Finish ran: times is complete
}

// Times implements prover.Pending: the primary's times (before Finish,
// those of its Start), plus the fallback's for the circuits it redid,
// whose steps are named "fallback <step>".
func (pd *pending) Times() groth16.StageTimes {
	if !pd.finished && pd.primary != nil {
		return pd.primary.Times()
	}
	return pd.times
}

// verify checks proof i against its assignment's public inputs (ONE
// excluded), with the engine's self-check.
func (pd *pending) verify(i int, proof *groth16.Proof) error {
	return prover.Verify(pd.pvk, []groth16.Proof{*proof}, [][]fr.Element{pd.parts[i].Input[1:]})
}

// Finish implements prover.Pending.
func (pd *pending) Finish(ctx context.Context) ([]groth16.Proof, error) {
	var proofs []groth16.Proof
	err := pd.startErr
	if err == nil {
		proofs, err = pd.primary.Finish(ctx)
		pd.times = pd.primary.Times()
	}
	pd.finished = true
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	var redo []int
	if err != nil || len(proofs) != len(pd.parts) {
		if err == nil {
			err = fmt.Errorf("%d proofs for %d circuits", len(proofs), len(pd.parts))
		}
		proofs = make([]groth16.Proof, len(pd.parts))
		for i := range pd.parts {
			redo = append(redo, i)
			pd.b.retry(ReasonDeviceError, i, err)
		}
	} else {
		for i := range proofs {
			if verr := pd.verify(i, &proofs[i]); verr != nil {
				redo = append(redo, i)
				pd.b.retry(ReasonBadProof, i, verr)
			}
		}
	}
	if len(redo) == 0 {
		return proofs, nil
	}
	parts := make([]*r1cs.ProvingAssignment, len(redo))
	rnd := make([]groth16.Randomness, len(redo))
	for k, i := range redo {
		parts[k], rnd[k] = pd.parts[i], pd.rnd[i]
	}
	fp, ferr := pd.b.Fallback.Start(ctx, pd.p, parts, rnd)
	if ferr != nil {
		return nil, fmt.Errorf("checked: fallback %s after %s: %w", pd.b.Fallback.Name(), pd.b.Primary.Name(), ferr)
	}
	again, ferr := fp.Finish(ctx)
	if ferr != nil {
		return nil, fmt.Errorf("checked: fallback %s after %s: %w", pd.b.Fallback.Name(), pd.b.Primary.Name(), ferr)
	}
	ft := fp.Times()
	pd.times.FFT += ft.FFT
	pd.times.MSMG1 += ft.MSMG1
	pd.times.MSMG2 += ft.MSMG2
	pd.times.Finish += ft.Finish
	if len(ft.Steps) == len(redo) {
		if len(pd.times.Steps) != len(pd.parts) {
			pd.times.Steps = make([][]groth16.Step, len(pd.parts))
		}
		for k, i := range redo {
			for _, s := range ft.Steps[k] {
				pd.times.Steps[i] = append(pd.times.Steps[i], groth16.Step{Name: "fallback " + s.Name, Wall: s.Wall})
			}
		}
	}
	for k, i := range redo {
		if verr := pd.verify(i, &again[k]); verr != nil {
			return nil, fmt.Errorf("checked: circuit %d failed on %s and on %s: %w", i, pd.b.Primary.Name(), pd.b.Fallback.Name(), verr)
		}
		proofs[i] = again[k]
	}
	return proofs, nil
}

var _ prover.Backend = (*Backend)(nil)

// The device interfaces are the primary's: the fallback (the CPU) needs
// none of them. Each is answered as a backend without it would be when
// the primary lacks it.
var (
	_ prover.ParamsHolder        = (*Backend)(nil)
	_ prover.ResidencyPreference = (*Backend)(nil)
	_ prover.DeviceLister        = (*Backend)(nil)
	_ io.Closer                  = (*Backend)(nil)
)

// ParamsLoaded implements prover.ParamsHolder for the primary.
func (b *Backend) ParamsLoaded(p *groth16.Params, path string) error {
	if h, ok := b.Primary.(prover.ParamsHolder); ok {
		return h.ParamsLoaded(p, path)
	}
	return nil
}

// ParamsEvicted implements prover.ParamsHolder: the primary frees its copy
// and the prepared verifying key of p is dropped.
func (b *Backend) ParamsEvicted(p *groth16.Params, path string) {
	if h, ok := b.Primary.(prover.ParamsHolder); ok {
		h.ParamsEvicted(p, path)
	}
	b.Forget(p)
}

// PreferredResidency implements prover.ResidencyPreference for the
// primary.
func (b *Backend) PreferredResidency() prover.Residency {
	if r, ok := b.Primary.(prover.ResidencyPreference); ok {
		return r.PreferredResidency()
	}
	return prover.Residency{}
}

// ListDevices implements prover.DeviceLister for the primary.
func (b *Backend) ListDevices(withFree bool) ([]prover.Device, error) {
	if l, ok := b.Primary.(prover.DeviceLister); ok {
		return l.ListDevices(withFree)
	}
	return nil, nil
}

// Close closes the primary.
func (b *Backend) Close() error {
	if c, ok := b.Primary.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
