package engine_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// square proves knowledge of x with x·x = y, y public.
type square struct{ x uint64 }

func (c square) Synthesize(cs *r1cs.CS) error {
	var xv, yv fr.Element
	xv.SetUint64(c.x)
	yv.Square(&xv)
	y := cs.AllocInput(yv)
	x := cs.Alloc(xv)
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(x); b.Add(x); cc.Add(y) })
	return nil
}

// The engine knows no circuit: it serves kinds, each a descriptor (name,
// priority, batching) and a planner that turns a request into circuits
// with their public inputs. Here a kind of one's own is served on the CPU
// within a 1 GiB memory budget, its parameters found by a locator.
func Example() {
	dir, err := os.MkdirTemp("", "engine-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		log.Fatal(err)
	}
	params, err := groth16.Setup(square{}, tw, groth16.SetupOptions{})
	if err != nil {
		log.Fatal(err)
	}
	files := srs.Files{Params: filepath.Join(dir, "square.params")}
	if err := groth16.WriteParamsFile(files.Params, params); err != nil {
		log.Fatal(err)
	}

	kind := proofkind.Descriptor{Kind: 2001, Name: "square", DefaultPriority: proofkind.PriorityNormal}
	planner := engine.PlannerFunc(func(_ context.Context, req *engine.Request) (*engine.Plan, error) {
		if len(req.VanillaProof) != 8 {
			return nil, fmt.Errorf("%w: vanilla_proof is %d bytes, want x in 8", engine.ErrInvalidRequest, len(req.VanillaProof))
		}
		c := square{x: binary.LittleEndian.Uint64(req.VanillaProof)}
		y := fr.NewElement(c.x)
		y.Square(&y)
		return &engine.Plan{CircuitID: "square", Partitions: []engine.Partition{{Circuit: c, PublicInputs: []fr.Element{y}}}}, nil
	})
	b := budget.New(1 << 30)
	m := srs.NewManager(srs.Options{Budget: b, Locator: srs.LocatorFunc(func(id string) (srs.Files, error) {
		if id != "square" {
			return srs.Files{}, fmt.Errorf("%w: %q", srs.ErrUnknownCircuit, id)
		}
		return files, nil
	})})
	eng, err := engine.New(engine.Options{Kinds: []engine.Kind{{Descriptor: kind, Planner: planner}},
		Backend: &cpu.Backend{}, Params: m, Budget: b})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.ReleaseParams()
	defer eng.Shutdown(context.Background())

	ctx := context.Background()
	x := binary.LittleEndian.AppendUint64(nil, 12)
	res, err := eng.Prove(ctx, &engine.Request{RequestID: "square-12", Kind: kind.Kind, VanillaProof: x})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.JobID, res.State, len(res.Proof), "bytes")
	// The proof was verified before it was returned (the engine's
	// self-check against the plan's public inputs); a bad request never
	// becomes a job.
	_, err = eng.Prove(ctx, &engine.Request{Kind: kind.Kind, VanillaProof: x[:7]})
	fmt.Println(errors.Is(err, engine.ErrInvalidRequest), err)
	fmt.Println(eng.Status().Kinds)
	// Output:
	// square-12 completed 192 bytes
	// true invalid request: vanilla_proof is 7 bytes, want x in 8
	// [square]
}
