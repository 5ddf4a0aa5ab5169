// Command gnarkpeer proves the same R1CS shape with gnark's Groth16 prover
// and with cuzk's, in one process, alternating runs, and prints medians and
// the ratio. It lives in its own module so that gnark is never a dependency
// of cuzk itself.
//
//	go run . -log 18 -runs 3
//
// The circuit is internal/testcircuits.Mixed: public inputs tied to aux
// copies, then mostly bits (boolean checks and xors, like SHA-256 gadgets)
// and some multiplications of random field elements. Both frameworks get the
// same plan and the same witness values; gnark's frontend emits one
// constraint per step as cuzk does (AssertIsEqual, AssertIsBoolean, Xor, Mul),
// and the printed constraint and variable counts show how close the shapes are.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	crfr "github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	gnarkgroth16 "github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/witness"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/logger"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	cr1cs "github.com/cuzk-dev/cuzk/r1cs"
)

type peerCircuit struct {
	Public []frontend.Variable `gnark:",public"`
	Copies []frontend.Variable
	Bits   []frontend.Variable
	MulX   []frontend.Variable
	MulY   []frontend.Variable

	plan []testcircuits.Op
}

func (c *peerCircuit) Define(api frontend.API) error {
	var ip, ib, im int
	var prev frontend.Variable
	for _, op := range c.plan {
		switch op.Kind {
		case testcircuits.OpInput:
			api.AssertIsEqual(c.Copies[ip], c.Public[ip])
			ip++
		case testcircuits.OpBit:
			api.AssertIsBoolean(c.Bits[ib])
			prev = c.Bits[ib]
			ib++
		case testcircuits.OpXor:
			api.AssertIsBoolean(c.Bits[ib])
			prev = api.Xor(prev, c.Bits[ib])
			ib++
		case testcircuits.OpMul:
			api.Mul(c.MulX[im], c.MulY[im])
			im++
		}
	}
	return nil
}

func newPeer(plan []testcircuits.Op, withValues bool) *peerCircuit {
	c := &peerCircuit{plan: plan}
	toBig := func(e crfr.Element) *big.Int { return e.BigInt(new(big.Int)) }
	for _, op := range plan {
		switch op.Kind {
		case testcircuits.OpInput:
			c.Public = append(c.Public, nil)
			c.Copies = append(c.Copies, nil)
			if withValues {
				c.Public[len(c.Public)-1] = toBig(op.X)
				c.Copies[len(c.Copies)-1] = toBig(op.X)
			}
		case testcircuits.OpBit, testcircuits.OpXor:
			var v frontend.Variable
			if withValues {
				v = 0
				if op.Bit {
					v = 1
				}
			}
			c.Bits = append(c.Bits, v)
		case testcircuits.OpMul:
			var x, y frontend.Variable
			if withValues {
				x, y = toBig(op.X), toBig(op.Y)
			}
			c.MulX = append(c.MulX, x)
			c.MulY = append(c.MulY, y)
		}
	}
	return c
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func main() {
	logN := flag.Int("log", 18, "circuit size: 2^log rows including input rows")
	runs := flag.Int("runs", 3, "proofs per prover (alternating)")
	inputs := flag.Int("inputs", 8, "public inputs")
	only := flag.String("only", "", "run only this prover (cuzk or gnark), e.g. to read its peak RSS")
	paramsFile := flag.String("params", "", "cuzk parameters `file`: loaded if present, else generated, written there, and the run stops (so a second run measures proving memory without setup's)")
	flag.Parse()
	logger.Disable()

	mixed := testcircuits.Mixed{Constraints: 1<<*logN - *inputs - 1, Inputs: *inputs, Seed: uint64(*logN)}
	plan := mixed.Plan()

	// gnark: compile, dummy setup (same prover work as a real key), witness.
	var (
		ccs constraint.ConstraintSystem
		pk  gnarkgroth16.ProvingKey
		wit witness.Witness
		err error
	)
	if *only != "cuzk" {
		if ccs, err = frontend.Compile(ecc.BLS12_381.ScalarField(), r1cs.NewBuilder, newPeer(plan, false)); err != nil {
			fail(err)
		}
		if pk, err = gnarkgroth16.DummySetup(ccs); err != nil {
			fail(err)
		}
		if wit, err = frontend.NewWitness(newPeer(plan, true), ecc.BLS12_381.ScalarField()); err != nil {
			fail(err)
		}
	}

	// cuzk: test parameters and a synthesis per proof.
	t0 := time.Now()
	var params *groth16.Params
	if *paramsFile != "" {
		if _, err := os.Stat(*paramsFile); err == nil {
			params, err = groth16.LoadParamsFile(*paramsFile, groth16.LoadOptions{})
			if err != nil {
				fail(err)
			}
		}
	}
	if params == nil {
		if params, err = groth16.Setup(mixed, toxic(), groth16.SetupOptions{}); err != nil {
			fail(err)
		}
		if *paramsFile != "" {
			if err := groth16.WriteParamsFile(*paramsFile, params); err != nil {
				fail(err)
			}
			fmt.Printf("wrote %s; run again to prove\n", *paramsFile)
			return
		}
	}
	setupTime := time.Since(t0)
	probe := cr1cs.NewProvingAssignment(cr1cs.Size{})
	pcs, _ := cr1cs.Synthesize(mixed, probe)
	pcs.AppendInputRows()

	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if ccs != nil {
		fmt.Printf("gnark: %d constraints, %d public + %d secret + %d internal variables\n",
			ccs.GetNbConstraints(), ccs.GetNbPublicVariables(), ccs.GetNbSecretVariables(), ccs.GetNbInternalVariables())
	}
	fmt.Printf("cuzk:  %d rows (with input rows), %d inputs, %d aux; setup or load %v\n",
		len(probe.A), len(probe.Input), len(probe.Aux), setupTime.Round(time.Millisecond))

	var gnarkT, cuzkProve, cuzkTotal []time.Duration
	ctx := context.Background()
	rnd := []groth16.Randomness{{}}
	rssBefore := peakRSS()
	for i := 0; i < *runs; i++ {
		runtime.GC()
		t := time.Now()
		if *only != "cuzk" {
			if _, err := gnarkgroth16.Prove(ccs, pk, wit); err != nil {
				fail(err)
			}
		}
		gnarkT = append(gnarkT, time.Since(t))
		if *only == "gnark" {
			cuzkProve = append(cuzkProve, 0)
			cuzkTotal = append(cuzkTotal, 0)
			continue
		}

		runtime.GC()
		heapBase := heapInUse()
		stopSampler := sampleHeap()
		t = time.Now()
		pa := cr1cs.NewProvingAssignment(cr1cs.Size{Constraints: 1 << *logN, Inputs: len(probe.Input), Aux: len(probe.Aux)})
		cs, _ := cr1cs.Synthesize(mixed, pa)
		cs.AppendInputRows()
		tp := time.Now()
		rnd[0].R.SetUint64(uint64(i + 1))
		rnd[0].S.SetUint64(uint64(i + 2))
		if _, err := groth16.Prove(ctx, params, []*cr1cs.ProvingAssignment{pa}, rnd, groth16.ProveOptions{}); err != nil {
			fail(err)
		}
		cuzkProve = append(cuzkProve, time.Since(tp))
		cuzkTotal = append(cuzkTotal, time.Since(t))
		peak := stopSampler()
		fmt.Printf("cuzk heap: %d MiB before synthesis (parameters), peak %d MiB while synthesising and proving: +%d MiB = %.0f bytes per row\n",
			heapBase>>20, peak>>20, (peak-heapBase)>>20, float64(peak-heapBase)/float64(int(1)<<*logN))
		fmt.Printf("run %d: gnark %v, cuzk prove %v (with synthesis %v)\n", i, gnarkT[i].Round(time.Millisecond),
			cuzkProve[i].Round(time.Millisecond), cuzkTotal[i].Round(time.Millisecond))
	}
	if *only != "" {
		fmt.Printf("peak RSS before proving %d MiB, after %d MiB (%s only)\n", rssBefore>>20, peakRSS()>>20, *only)
	}
	g, p, tot := median(gnarkT), median(cuzkProve), median(cuzkTotal)
	fmt.Printf("\n2^%d median: gnark Prove %v | cuzk prove %v (ratio %.2f) | cuzk synthesis+prove %v (ratio %.2f)\n",
		*logN, g.Round(time.Millisecond), p.Round(time.Millisecond), float64(p)/float64(g),
		tot.Round(time.Millisecond), float64(tot)/float64(g))
}

func heapInUse() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records the largest live heap seen every 5 ms until the
// returned function is called, which returns it.
func sampleHeap() func() uint64 {
	done := make(chan struct{})
	res := make(chan uint64)
	go func() {
		peak := heapInUse()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				res <- max(peak, heapInUse())
				return
			case <-tick.C:
				peak = max(peak, heapInUse())
			}
		}
	}()
	return func() uint64 { close(done); return <-res }
}

// peakRSS reads VmHWM, the process's peak resident set, in bytes.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb uint64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return kb << 10
		}
	}
	return 0
}

func toxic() groth16.ToxicWaste {
	var tw groth16.ToxicWaste
	for i, e := range []*crfr.Element{&tw.Tau, &tw.Alpha, &tw.Beta, &tw.Gamma, &tw.Delta} {
		e.SetUint64(uint64(7919*(i+3) + 1))
		e.Exp(*e, big.NewInt(int64(65537+i)))
	}
	return tw
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gnarkpeer:", err)
	os.Exit(1)
}
