package groth16

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func fixedToxicWaste() ToxicWaste {
	var tw ToxicWaste
	for i, e := range []*fr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		e.SetUint64(uint64(1000003*(i+1) + 17))
		e.Exp(*e, bigInt(12345+int64(i)))
	}
	return tw
}

func fixedRandomness(n int) []Randomness {
	out := make([]Randomness, n)
	for i := range out {
		out[i].R.SetUint64(uint64(777 + i))
		out[i].S.SetUint64(uint64(999 + 3*i))
	}
	return out
}

func publicInputs(pa *r1cs.ProvingAssignment) []fr.Element {
	return append([]fr.Element(nil), pa.Input[1:]...)
}

func proveVerify(t *testing.T, c r1cs.Circuit, tw ToxicWaste) (*Params, []Proof, []fr.Element) {
	t.Helper()
	params, err := Setup(c, tw, SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pa := testcircuits.Assignment(t, c)
	inputs := publicInputs(pa)
	proofs, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pvk, err := Prepare(params.VK)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := Verify(pvk, &proofs[0], inputs)
	if err != nil || !ok {
		t.Fatalf("proof rejected: ok=%v err=%v", ok, err)
	}
	return params, proofs, inputs
}

func TestCubicProveVerify(t *testing.T) {
	c := testcircuits.Cubic{X: 3}
	params, proofs, inputs := proveVerify(t, c, fixedToxicWaste())
	pvk, _ := Prepare(params.VK)
	// Another statement must be rejected.
	other := testcircuits.Cubic{X: 4}.Out()
	if ok, _ := Verify(pvk, &proofs[0], []fr.Element{other}); ok {
		t.Error("proof verified for another output")
	}
	// A proof of a false statement (witness not satisfying) must not verify.
	// x³ + x + 5 = 35 with x = 4 (the true value is 73).
	claim := fr.NewElement(35)
	bad := testcircuits.Cubic{X: 4, Claim: &claim}
	pa := testcircuits.Assignment(t, bad)
	ps, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := Verify(pvk, &ps[0], publicInputs(pa)); ok {
		t.Error("proof of an unsatisfied witness verified")
	}
	// Round trips.
	var buf bytes.Buffer
	if _, err := params.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != params.EncodedSize() {
		t.Errorf("encoded %d bytes, EncodedSize says %d", buf.Len(), params.EncodedSize())
	}
	back, err := DecodeParams(buf.Bytes(), LoadOptions{SubgroupChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf2 bytes.Buffer
	back.WriteTo(&buf2)
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Error("params do not round-trip")
	}
	_ = inputs
}

func TestMixedProveVerifyAndTamper(t *testing.T) {
	n := 1 << 16
	if testing.Short() {
		n = 1 << 12
	}
	c := testcircuits.Mixed{Constraints: n - 9, Inputs: 8, Seed: 1}
	params, proofs, inputs := proveVerify(t, c, fixedToxicWaste())
	pvk, _ := Prepare(params.VK)
	enc := proofs[0].Bytes()
	for _, off := range []int{10, 70, 170} {
		b := enc
		b[off] ^= 0x10
		var p Proof
		if err := p.UnmarshalBinary(b[:]); err != nil {
			continue // rejected at decoding: fine
		}
		if ok, _ := Verify(pvk, &p, inputs); ok {
			t.Errorf("bit flip at %d still verifies", off)
		}
	}
	// A batch of two proofs of the same circuit, with their own randomness.
	pa1 := testcircuits.Assignment(t, c)
	pa2 := testcircuits.Assignment(t, c)
	ps, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{pa1, pa2}, fixedRandomness(2), ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ps[0].A.Equal(&ps[1].A) {
		t.Error("two proofs with different r share A")
	}
	ok, err := VerifyBatch(pvk, ps, [][]fr.Element{inputs, inputs}, nil)
	if !ok || err != nil {
		t.Fatalf("batch rejected: %v %v", ok, err)
	}
}

func TestProveRejectsWrongShape(t *testing.T) {
	params, err := Setup(testcircuits.Cubic{X: 3}, fixedToxicWaste(), SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pa := testcircuits.Assignment(t, testcircuits.Mixed{Constraints: 100, Inputs: 1, Seed: 2})
	_, err = Prove(context.Background(), params, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{})
	if !errors.Is(err, ErrShape) {
		t.Fatalf("err = %v, want ErrShape", err)
	}
}

func TestProveCancelled(t *testing.T) {
	c := testcircuits.Cubic{X: 3}
	params, err := Setup(c, fixedToxicWaste(), SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Prove(ctx, params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1), ProveOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestProveYieldError: an error from the yield function (the context ended
// while the prover was paused) ends Start and Finish with that error.
func TestProveYieldError(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 500, Inputs: 2, Seed: 9}
	params, err := Setup(c, fixedToxicWaste(), SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{1, 5, 12} {
		stop := fmt.Errorf("stopped at yield %d", at)
		n := 0
		_, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1),
			ProveOptions{Yield: func(context.Context) error {
				if n++; n == at {
					return stop
				}
				return nil
			}})
		if !errors.Is(err, stop) {
			t.Fatalf("yield %d: err = %v, want %v", at, err, stop)
		}
	}
}

// TestProveStopsAtEveryYieldPoint: a context cancelled at any yield point
// of Start or Finish, without a Yield function, ends the proof there with
// the context's error: every yield point is a cancellation point.
func TestProveStopsAtEveryYieldPoint(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 500, Inputs: 2, Seed: 9}
	params, err := Setup(c, fixedToxicWaste(), SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	if _, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1),
		ProveOptions{Yield: func(context.Context) error { points++; return nil }}); err != nil {
		t.Fatal(err)
	}
	for at := 1; at <= points; at++ {
		ctx, cancel := context.WithCancel(context.Background())
		n, after := 0, 0
		// The Yield only counts and cancels; the context check before it
		// is what must stop the proof at the next point.
		_, err := Prove(ctx, params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1),
			ProveOptions{Yield: func(context.Context) error {
				if n++; n == at {
					cancel()
				} else if n > at {
					after++
				}
				return nil
			}})
		cancel()
		if at < points && (!errors.Is(err, context.Canceled) || after != 0) {
			t.Fatalf("cancelled at yield point %d of %d: err = %v, %d points passed after it", at, points, err, after)
		}
	}
}

// The proof bytes for fixed toxic waste, circuit and (r, s) are pinned: any
// change in setup, synthesis, H or the MSMs shows up here. If this fails
// after an intended change, the new value must be justified (and the Rust
// harness comparison re-run), never just pasted in.
func TestDeterministicProofGolden(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 1000, Inputs: 3, Seed: 42}
	params, err := Setup(c, fixedToxicWaste(), SetupOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	params.WriteTo(&buf)
	sum := sha256.Sum256(buf.Bytes())
	pa := testcircuits.Assignment(t, c)
	proofs, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{pa}, fixedRandomness(1), ProveOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	enc := proofs[0].Bytes()
	again, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1), ProveOptions{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Bytes() != enc {
		t.Error("proof depends on the worker count")
	}
	// Yield points change nothing in the proof.
	yields := 0
	yielded, err := Prove(context.Background(), params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1),
		ProveOptions{Workers: 2, Yield: func(context.Context) error { yields++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if yielded[0].Bytes() != enc {
		t.Error("proof depends on the yield points")
	}
	if yields < 8+6+2 { // the FFTs, six G1 MSMs, two G2 MSMs
		t.Errorf("%d yield points passed, want at least 16", yields)
	}
	// Nor does a context that can end (every yield point checks it, and
	// the MSMs run in pieces of YieldPoints).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancellable, err := Prove(ctx, params, []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c)}, fixedRandomness(1), ProveOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if cancellable[0].Bytes() != enc {
		t.Error("proof depends on the context")
	}
	const wantParams = "fa33332baef1f23cebf489996586fc9935392685b34c30dad0f60ee5ed417b47"
	const wantProof = "878f854db54ed65bba13f1c33ab399e574dbb6ddbaf096d3b99a91b50998e01ae8bbb0433d96d8c3ba1097920889fc0c93ecff14740070a4fbba2f0b163eabc34ad79d2e974f1d0d9f53835d433264bdf46ed8263039d970df5c560b4073b848091ee2a4d0ab4a7aa011544017cd19faf544227ade7bad682021a854cbe01f1f93b0302d4642fa738b44f6b548f4fd29a6e9c981119017e933faa9a4228e758cdaa39b8662961b4e024ac0a17815cb02619c83d6acef2d825e30016f62f39e63"
	if got := hex.EncodeToString(sum[:]); got != wantParams {
		t.Errorf("params sha256 = %s", got)
	}
	if got := hex.EncodeToString(enc[:]); got != wantProof {
		t.Errorf("proof = %s", got)
	}
}

func bigInt(v int64) *big.Int { return big.NewInt(v) }

// Both FFT orderings (with and without gnark-crypto's tables) give the
// same H.
func TestComputeHOrderings(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 3000, Inputs: 2, Seed: 5}
	h1, _ := computeHWith(testcircuits.Assignment(t, c), 2, true, nil)
	h2, _ := computeHWith(testcircuits.Assignment(t, c), 2, false, nil)
	if len(h1) != len(h2) {
		t.Fatal("lengths differ")
	}
	for i := range h1 {
		if !h1[i].Equal(&h2[i]) {
			t.Fatalf("coefficient %d differs", i)
		}
	}
}

// TestStartFinishSteps: Pending.Times.Steps lists each circuit's steps in
// the order ProveOptions.Stage announces them, each with a wall time that
// fits, all together, inside Start's and Finish's own.
func TestStartFinishSteps(t *testing.T) {
	c := testcircuits.Mixed{Constraints: 1<<10 - 9, Inputs: 8, Seed: 3}
	params, err := Setup(c, fixedToxicWaste(), SetupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	parts := []*r1cs.ProvingAssignment{testcircuits.Assignment(t, c), testcircuits.Assignment(t, c)}
	var announced [2][]string
	opt := ProveOptions{Stage: func(part int, stage string) { announced[part] = append(announced[part], stage) }}
	t0 := time.Now()
	pend, err := Start(context.Background(), params, parts, fixedRandomness(2), opt)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Since(t0)
	t1 := time.Now()
	if _, err := pend.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
	finish := time.Since(t1)
	want := []string{StepMSML, StepMSMA, StepMSMBG1, StepMSMBG2, StepH, StepMSMH, StepAssemble}
	if len(pend.Times.Steps) != 2 {
		t.Fatalf("steps of %d circuits, want 2", len(pend.Times.Steps))
	}
	var inStart, inFinish time.Duration
	for i, steps := range pend.Times.Steps {
		var names []string
		for _, s := range steps {
			names = append(names, s.Name)
			if s.Wall <= 0 {
				t.Errorf("circuit %d: step %q took %v", i, s.Name, s.Wall)
			}
			if s.Name == StepAssemble {
				inFinish += s.Wall
			} else {
				inStart += s.Wall
			}
		}
		if fmt.Sprint(names) != fmt.Sprint(want) || fmt.Sprint(announced[i]) != fmt.Sprint(want) {
			t.Errorf("circuit %d: steps %q, announced %q, want %q", i, names, announced[i], want)
		}
	}
	if inStart > start || inFinish > finish {
		t.Errorf("steps of %v in a Start of %v, %v in a Finish of %v", inStart, start, inFinish, finish)
	}
}
