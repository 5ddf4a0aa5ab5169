package groth16_test

import (
	"context"
	"fmt"
	"log"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// factors proves knowledge of p and q with p·q = n, n public: one row.
type factors struct{ p, q uint64 }

func (c factors) Synthesize(cs *r1cs.CS) error {
	var pv, qv, nv fr.Element
	pv.SetUint64(c.p)
	qv.SetUint64(c.q)
	nv.Mul(&pv, &qv)
	n := cs.AllocInput(nv)
	p := cs.Alloc(pv)
	q := cs.Alloc(qv)
	cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(p); b.Add(q); cc.Add(n) })
	return nil
}

// Set up parameters for a circuit, prove a witness and verify the proof
// against its public inputs. The toxic waste is random and thrown away
// here; Filecoin's circuits use the parameters of its trusted setup
// (LoadParamsFile, MapParamsFile).
func Example() {
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		log.Fatal(err)
	}
	params, err := groth16.Setup(factors{}, tw, groth16.SetupOptions{})
	if err != nil {
		log.Fatal(err)
	}

	// The witness: synthesised into a proving assignment, whose input
	// rows are appended before proving.
	pa := r1cs.NewProvingAssignment(r1cs.Size{})
	cs, err := r1cs.Synthesize(factors{p: 3, q: 11}, pa)
	if err != nil {
		log.Fatal(err)
	}
	cs.AppendInputRows()
	rnd, err := groth16.RandomRandomness(1)
	if err != nil {
		log.Fatal(err)
	}
	proofs, err := groth16.Prove(context.Background(), params, []*r1cs.ProvingAssignment{pa}, rnd, groth16.ProveOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(groth16.EncodeProofs(proofs)), "bytes, bellperson's encoding")

	pvk, err := groth16.Prepare(params.VK)
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range []uint64{33, 34} {
		ok, err := groth16.Verify(pvk, &proofs[0], []fr.Element{fr.NewElement(n)})
		fmt.Printf("n = %d: %v %v\n", n, ok, err)
	}
	// Output:
	// 192 bytes, bellperson's encoding
	// n = 33: true <nil>
	// n = 34: false <nil>
}
