// Command gnarkpeer proves one R1CS with cuzk's Groth16 prover and with
// gnark's, in one process, alternating runs (cuzk, gnark, cuzk, gnark …),
// verifies every proof, and prints medians with min–max of wall and CPU
// time and the cuzk/gnark ratios. It lives in its own module so that gnark
// is never a dependency of cuzk itself.
//
//	go run . -log 18,20 -runs 7
//
// Fairness, as a gnark user would run gnark:
//   - the same R1CS, row for row, and the same values on the same wires:
//     internal/testcircuits.Mixed (public inputs tied to aux copies, then
//     by default 80 % of rows over bits — boolean checks and xors, like
//     bellperson's SHA-256 gadgets — and 20 % multiplications of random
//     field elements; -bits changes the share), built once as a cuzk circuit
//     and once as a gnark constraint system (circuits.go says why not
//     through gnark's frontend); the run checks wire by wire that gnark's
//     solver computes cuzk's witness, and prints the scalars each MSM sees;
//   - a real gnark key with distinct points: by default (-key srs) built
//     from the points of cuzk's setup with the same toxic waste (key.go; the
//     same SRS for both provers; gnark's own Setup would take ≈ 15 min of
//     CPU at 2^20, about an hour of wall time on this loaded machine), its infinity markers exactly the wires absent from
//     A and B (checked against the R1CS and cuzk's densities), gnark's
//     verifier accepting its proofs; -key setup runs gnark's groth16.Setup
//     instead; -key dummy selects gnark's DummySetup, the old UNFAIR mode
//     (the first N wires marked unused, one point repeated; its proofs
//     cannot verify);
//   - keys in memory, built before the first timed run; one warm-up pair;
//   - the same thread count: GOMAXPROCS = runtime.NumCPU(), which is what
//     gnark and gnark-crypto size their tasks by, and cuzk's Workers the
//     same (run under taskset to use fewer cores: NumCPU follows affinity);
//   - both proofs verified after each run, outside the timings;
//   - per run, wall time and CPU time (getrusage, user + system, whole
//     process) of cuzk's synthesis + Prove and of gnark's Prove (which
//     solves the witness, cuzk's synthesis counterpart, then proves).
//
// The ratios are per pair (run i of cuzk over run i of gnark, so that a load
// change on a shared machine hits both sides of a ratio), summarised as
// median [min–max]. The last lines, one per size, are for scripts:
//
//	median ratio cuzk/gnark prove at 2^N: X.XX
//
// (fair key, wall time, cuzk synthesis+prove over gnark Prove).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
	gnarkgroth16 "github.com/consensys/gnark/backend/groth16"
	g16bls "github.com/consensys/gnark/backend/groth16/bls12-381"
	"github.com/consensys/gnark/backend/witness"
	gcs "github.com/consensys/gnark/constraint/bls12-381"
	"github.com/consensys/gnark/logger"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
	cr1cs "github.com/cuzk-dev/cuzk/r1cs"
)

func main() {
	sizes := flag.String("log", "18,20", "circuit sizes, comma-separated: 2^log rows including cuzk's input rows")
	runs := flag.Int("runs", 7, "measured proofs per prover and size, alternating")
	warmup := flag.Int("warmup", 1, "unmeasured proof pairs before the measured ones")
	inputs := flag.Int("inputs", 8, "public inputs")
	bitShare := flag.Float64("bits", 0.8, "share of rows over bits (testcircuits.Mixed.BitShare); the rest multiply random field elements")
	key := flag.String("key", "srs", "gnark proving key: srs (real key from the shared setup, fair), setup (gnark's groth16.Setup: fair, ≈ 15 min of CPU at 2^20) or dummy (DummySetup, UNFAIR: the old mode)")
	flag.Parse()
	logger.Disable()

	var logs []int
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 6 || n > 26 {
			fail(fmt.Errorf("bad -log %q", f))
		}
		logs = append(logs, n)
	}
	if *key != "srs" && *key != "setup" && *key != "dummy" {
		fail(fmt.Errorf("-key must be srs, setup or dummy, not %q", *key))
	}
	if *runs < 1 {
		fail(fmt.Errorf("-runs must be positive"))
	}

	threads := runtime.NumCPU()
	runtime.GOMAXPROCS(threads)
	fmt.Printf("machine: %d CPUs; GOMAXPROCS %d; cuzk Workers %d; gnark tasks sized by NumCPU %d\n",
		threads, runtime.GOMAXPROCS(0), threads, runtime.NumCPU())
	fmt.Printf("versions: %s\n", versions())
	fmt.Printf("load before: %s\n", loadAvg())

	var heads []string
	for _, n := range logs {
		res, err := runSize(n, *inputs, *bitShare, *runs, *warmup, *key, threads)
		if err != nil {
			fail(fmt.Errorf("2^%d: %w", n, err))
		}
		res.print()
		heads = append(heads, res.headline())
	}
	fmt.Printf("load after: %s\n", loadAvg())
	fmt.Printf("peak RSS: %d MiB\n", peakRSS()>>20)
	for _, h := range heads {
		fmt.Println(h)
	}
}

// sample is one measured call.
type sample struct{ wall, cpu time.Duration }

// measure runs f and returns its wall time and the CPU time the process
// spent meanwhile (user + system, all threads).
func measure(f func() error) (sample, error) {
	c0 := cpuTime()
	t0 := time.Now()
	err := f()
	return sample{time.Since(t0), cpuTime() - c0}, err
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(fmt.Errorf("getrusage: %w", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sizeResult holds one size's series.
type sizeResult struct {
	logN   int
	dummy  bool
	cuzkE2 []sample // synthesis + prove
	cuzkPr []sample // prove only
	gnark  []sample // Prove (solve + prove)
	solve  []sample // gnark Solve alone, run after each Prove
	loads  [2]string
}

func runSize(logN, inputs int, bitShare float64, runs, warmup int, key string, threads int) (*sizeResult, error) {
	dummy := key == "dummy"
	res := &sizeResult{logN: logN, dummy: dummy}
	mixed := testcircuits.Mixed{Constraints: 1<<logN - inputs - 1, Inputs: inputs, BitShare: bitShare, Seed: uint64(logN)}
	circ := replay{ops: mixed.Plan()}
	pubIn := publicInputs(circ.ops)
	fmt.Printf("\n== 2^%d (bit share %.2f) ==\n", logN, bitShare)

	// cuzk: bellperson-layout parameters in memory.
	t0 := time.Now()
	tw, err := groth16.RandomToxicWaste()
	if err != nil {
		return nil, err
	}
	params, err := groth16.Setup(circ, tw, groth16.SetupOptions{Workers: threads})
	if err != nil {
		return nil, fmt.Errorf("cuzk setup: %w", err)
	}
	pvk, err := groth16.Prepare(params.VK)
	if err != nil {
		return nil, err
	}
	fmt.Printf("cuzk setup %v\n", time.Since(t0).Round(time.Millisecond))

	probe := cr1cs.NewProvingAssignment(cr1cs.Size{})
	pcs, err := cr1cs.Synthesize(circ, probe)
	if err != nil {
		return nil, err
	}
	pcs.AppendInputRows()

	// gnark: the same rows, its own key.
	t0 = time.Now()
	sys, wit, toCuzk, err := gnarkSystem(circ.ops)
	if err != nil {
		return nil, err
	}
	pubWit, err := wit.Public()
	if err != nil {
		return nil, err
	}
	var (
		pk gnarkgroth16.ProvingKey
		vk gnarkgroth16.VerifyingKey
	)
	var how string
	switch key {
	case "srs":
		how = "real key from cuzk's setup points, same toxic waste"
		pk, vk, err = gnarkKeyFromSRS(params, tw, sys, toCuzk, probe)
	case "setup":
		how = "gnark groth16.Setup"
		pk, vk, err = gnarkgroth16.Setup(sys)
	default:
		how = "DummySetup: UNFAIR"
		pk, err = gnarkgroth16.DummySetup(sys)
	}
	if err != nil {
		return nil, fmt.Errorf("gnark key: %w", err)
	}
	fmt.Printf("gnark build + key (%s) %v\n", how, time.Since(t0).Round(time.Millisecond))

	if err := compareShapes(probe, sys, wit, toCuzk, pk.(*g16bls.ProvingKey), dummy); err != nil {
		return nil, err
	}

	ctx := context.Background()
	shape := cr1cs.Size{Constraints: 1 << logN, Inputs: len(params.VK.IC), Aux: len(params.L)}
	res.loads[0] = loadAvg()
	for i := -warmup; i < runs; i++ {
		// cuzk: synthesis of the given values, then Prove.
		runtime.GC()
		var proofs []groth16.Proof
		var pr sample
		e2, err := measure(func() error {
			pa := cr1cs.NewProvingAssignment(shape)
			cs, err := cr1cs.Synthesize(circ, pa)
			if err != nil {
				return err
			}
			cs.AppendInputRows()
			rnd, err := groth16.RandomRandomness(1)
			if err != nil {
				return err
			}
			pr, err = measure(func() (err error) {
				proofs, err = groth16.Prove(ctx, params, []*cr1cs.ProvingAssignment{pa}, rnd, groth16.ProveOptions{Workers: threads})
				return err
			})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("cuzk prove: %w", err)
		}
		if ok, err := groth16.Verify(pvk, &proofs[0], pubIn); err != nil || !ok {
			return nil, fmt.Errorf("cuzk proof %d does not verify (%v)", i, err)
		}

		// gnark: Prove (solves the witness, then proves).
		runtime.GC()
		var proof gnarkgroth16.Proof
		g, err := measure(func() (err error) {
			proof, err = gnarkgroth16.Prove(sys, pk, wit)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("gnark prove: %w", err)
		}
		if !dummy {
			if err := gnarkgroth16.Verify(proof, vk, pubWit); err != nil {
				return nil, fmt.Errorf("gnark proof %d does not verify: %w", i, err)
			}
		}
		runtime.GC()
		s, err := measure(func() error { _, err := sys.Solve(wit); return err })
		if err != nil {
			return nil, fmt.Errorf("gnark solve: %w", err)
		}

		tag := fmt.Sprintf("run %d", i)
		if i < 0 {
			tag = "warm-up"
		} else {
			res.cuzkE2 = append(res.cuzkE2, e2)
			res.cuzkPr = append(res.cuzkPr, pr)
			res.gnark = append(res.gnark, g)
			res.solve = append(res.solve, s)
		}
		verified := "both verified"
		if dummy {
			verified = "cuzk verified, gnark unverifiable (dummy key)"
		}
		fmt.Printf("%s: cuzk %v (prove %v) cpu %v | gnark %v cpu %v (solve alone %v) | wall ratio %.2f, cpu ratio %.2f; %s\n",
			tag, rd(e2.wall), rd(pr.wall), rd(e2.cpu), rd(g.wall), rd(g.cpu), rd(s.wall),
			ratio(e2.wall, g.wall), ratio(e2.cpu, g.cpu), verified)
	}
	res.loads[1] = loadAvg()
	return res, nil
}

// compareShapes checks that gnark got the witness cuzk proves and a key
// whose infinity markers are the R1CS's, and prints what each MSM sees.
func compareShapes(probe *cr1cs.ProvingAssignment, sys *gcs.R1CS, wit witness.Witness, toCuzk []int, pk *g16bls.ProvingKey, dummy bool) error {
	m, err := groth16.DomainSize(len(probe.A))
	if err != nil {
		return err
	}
	sol, err := sys.Solve(wit)
	if err != nil {
		return fmt.Errorf("gnark solve: %w", err)
	}
	wires := []fr.Element(sol.(*gcs.R1CSSolution).W)

	cuzkVals := append(slices.Clone(probe.Input), probe.Aux...)
	if err := sameWitness(cuzkVals, wires, toCuzk); err != nil {
		return fmt.Errorf("gnark's solved wires are not cuzk's witness: %w", err)
	}
	absA, absB := absentWires(sys)
	mismatch := 0
	for i := range absA {
		if absA[i] != pk.InfinityA[i] || absB[i] != pk.InfinityB[i] {
			mismatch++
		}
	}
	if mismatch != 0 && !dummy {
		return fmt.Errorf("gnark key: %d wires whose infinity marker is not their absence from A/B", mismatch)
	}

	cz := cuzkShape(probe, m)
	gn := gnarkShape(wires, pk.InfinityA, pk.InfinityB, sys.GetNbPublicVariables(), int(pk.Domain.Cardinality))
	fmt.Printf("R1CS: cuzk %d rows (%d with bellperson's input rows), %d inputs + %d aux; gnark %d constraints, %d public + %d secret + %d internal wires; domain 2^%d\n",
		len(probe.A)-len(probe.Input), len(probe.A), len(probe.Input), len(probe.Aux),
		sys.GetNbConstraints(), sys.GetNbPublicVariables(), sys.GetNbSecretVariables(), sys.GetNbInternalVariables(),
		bitsLen(m))
	fmt.Printf("same witness: each of gnark's %d solved wires holds the value of its cuzk variable (%d inputs+aux)\n", len(wires), len(cuzkVals))
	if dummy {
		fmt.Printf("gnark key UNFAIR (DummySetup): %d of %d wires carry an infinity marker their A/B occurrence contradicts\n", mismatch, len(absA))
	} else {
		fmt.Printf("gnark key: infinity markers = wires absent from A (%d) and from B (%d), checked against the R1CS\n", pk.NbInfinityA, pk.NbInfinityB)
	}
	fmt.Printf("MSM scalars  cuzk A: %v\n             gnark A: %v\n", cz.A, gn.A)
	fmt.Printf("             cuzk B (G1 and G2): %v\n             gnark B (G1 and G2): %v\n", cz.B, gn.B)
	fmt.Printf("             cuzk L: %v\n             gnark K: %v\n", cz.L, gn.L)
	fmt.Printf("             H: %d dense (both)\n", cz.H)
	return nil
}

func bitsLen(m int) int {
	n := 0
	for 1<<n < m {
		n++
	}
	return n
}

// sameWitness reports whether gnark wire w holds cuzk variable toCuzk[w]'s
// value for every w, each cuzk variable used once.
func sameWitness(cuzk, gnark []fr.Element, toCuzk []int) error {
	if len(cuzk) != len(gnark) || len(toCuzk) != len(gnark) {
		return fmt.Errorf("%d cuzk variables, %d gnark wires, %d mapped", len(cuzk), len(gnark), len(toCuzk))
	}
	seen := make([]bool, len(cuzk))
	for w, v := range toCuzk {
		if seen[v] {
			return fmt.Errorf("cuzk variable %d mapped twice", v)
		}
		seen[v] = true
		if gnark[w] != cuzk[v] {
			return fmt.Errorf("gnark wire %d differs from cuzk variable %d", w, v)
		}
	}
	return nil
}

func (r *sizeResult) print() {
	n := len(r.gnark)
	fmt.Printf("\n2^%d, %d runs each, alternating; median [min–max]; load %s -> %s\n", r.logN, n, r.loads[0], r.loads[1])
	if r.dummy {
		fmt.Println("UNFAIR: gnark proves with DummySetup's key (old mode)")
	}
	walls := func(s []sample) []time.Duration { return col(s, func(x sample) time.Duration { return x.wall }) }
	cpus := func(s []sample) []time.Duration { return col(s, func(x sample) time.Duration { return x.cpu }) }
	fmt.Printf("  %-34s wall %-28s cpu %s\n", "cuzk synthesis + Prove", durStat(walls(r.cuzkE2)), durStat(cpus(r.cuzkE2)))
	fmt.Printf("  %-34s wall %-28s cpu %s\n", "cuzk Prove alone", durStat(walls(r.cuzkPr)), durStat(cpus(r.cuzkPr)))
	fmt.Printf("  %-34s wall %-28s cpu %s\n", "gnark Prove (solve + prove)", durStat(walls(r.gnark)), durStat(cpus(r.gnark)))
	fmt.Printf("  %-34s wall %-28s cpu %s\n", "gnark Solve alone", durStat(walls(r.solve)), durStat(cpus(r.solve)))
	fmt.Printf("  ratio cuzk/gnark, synthesis+Prove / Prove: wall %s, cpu %s\n",
		ratioStat(walls(r.cuzkE2), walls(r.gnark)), ratioStat(cpus(r.cuzkE2), cpus(r.gnark)))
	// gnark's proving part alone, estimated from the Solve run next to it.
	var gw, gc []time.Duration
	for i := range r.gnark {
		gw = append(gw, r.gnark[i].wall-r.solve[i].wall)
		gc = append(gc, r.gnark[i].cpu-r.solve[i].cpu)
	}
	fmt.Printf("  ratio cuzk/gnark, Prove alone / (Prove − Solve): wall %s, cpu %s\n",
		ratioStat(walls(r.cuzkPr), gw), ratioStat(cpus(r.cuzkPr), gc))
	fmt.Printf("  cpu/wall (cores used): cuzk %.2f, gnark %.2f\n",
		float64(median(cpus(r.cuzkE2)))/float64(median(walls(r.cuzkE2))),
		float64(median(cpus(r.gnark)))/float64(median(walls(r.gnark))))
}

func (r *sizeResult) headline() string {
	walls := func(s []sample) []time.Duration { return col(s, func(x sample) time.Duration { return x.wall }) }
	m := median(ratios(walls(r.cuzkE2), walls(r.gnark)))
	if r.dummy {
		return fmt.Sprintf("UNFAIR (dummy key) ratio cuzk/gnark prove at 2^%d: %.2f", r.logN, m)
	}
	return fmt.Sprintf("median ratio cuzk/gnark prove at 2^%d: %.2f", r.logN, m)
}

func col(s []sample, f func(sample) time.Duration) []time.Duration {
	out := make([]time.Duration, len(s))
	for i := range s {
		out[i] = f(s[i])
	}
	return out
}

func median[T int64 | float64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func durStat(d []time.Duration) string {
	return fmt.Sprintf("%v [%v–%v]", rd(median(d)), rd(slices.Min(d)), rd(slices.Max(d)))
}

func ratios(a, b []time.Duration) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = ratio(a[i], b[i])
	}
	return out
}

func ratioStat(a, b []time.Duration) string {
	r := ratios(a, b)
	return fmt.Sprintf("%.2f [%.2f–%.2f] (ratio of medians %.2f)", median(r), slices.Min(r), slices.Max(r),
		ratio(median(a), median(b)))
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

func rd(d time.Duration) time.Duration {
	if d > 10*time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

// versions names the Go toolchain and the gnark modules linked in.
func versions() string {
	parts := []string{runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/consensys/gnark" || d.Path == "github.com/consensys/gnark-crypto" {
				parts = append(parts, d.Path[len("github.com/consensys/"):]+" "+d.Version)
			}
		}
	}
	return strings.Join(parts, ", ")
}

// loadAvg is the 1, 5 and 15 minute load average, as uptime prints it.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// peakRSS reads VmHWM, the process's peak resident set, in bytes.
func peakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gnarkpeer:", err)
	os.Exit(1)
}
