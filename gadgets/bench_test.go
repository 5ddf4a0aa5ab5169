package gadgets

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// synthBench runs one gadget invocation per iteration into a constraint
// system that is replaced (with the timer stopped) every `batch`
// iterations, so that memory stays bounded whatever b.N is. Each fresh
// system first gets one untimed invocation, which grows its scratch space,
// so the timed iterations measure the steady state. It reports
// ns/constraint and allocs/constraint over the timed windows only; fresh
// systems must have room for batch+1 invocations.
type synthBench struct {
	b       *testing.B
	rows    int // rows per iteration
	batch   int
	fresh   func() // builds a new constraint system and its inputs
	mallocs uint64
	ms      runtime.MemStats
}

func (sb *synthBench) start() {
	runtime.ReadMemStats(&sb.ms)
	sb.mallocs -= sb.ms.Mallocs
	sb.b.StartTimer()
}

func (sb *synthBench) stop() {
	sb.b.StopTimer()
	runtime.ReadMemStats(&sb.ms)
	sb.mallocs += sb.ms.Mallocs
}

func (sb *synthBench) run(iter func()) {
	b := sb.b
	b.StopTimer()
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	left := 0
	sb.start()
	for i := 0; i < b.N; i++ {
		if left == 0 {
			sb.stop()
			sb.fresh()
			iter()
			left = sb.batch
			sb.start()
		}
		iter()
		left--
	}
	sb.stop()
	total := float64(b.N) * float64(sb.rows)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/constraint")
	b.ReportMetric(float64(sb.mallocs)/total, "allocs/constraint")
}

func proving(rows, aux int) r1cs.Sink {
	return r1cs.NewProvingAssignment(r1cs.Size{Constraints: rows, Inputs: 256, Aux: aux})
}

// templated: rows evaluated as they are built, densities from a template
// (its contents do not matter to synthesis speed).
func templated(rows, aux int) r1cs.Sink {
	return r1cs.NewTemplatedAssignment(r1cs.Size{Constraints: rows, Inputs: 256, Aux: aux}, &r1cs.Densities{})
}

func witness(rows, aux int) r1cs.Sink {
	return r1cs.NewWitnessAssignment(r1cs.Size{Inputs: 256, Aux: aux})
}

func BenchmarkSha256Compression(b *testing.B) {
	const rows, batch = 25840, 8
	for _, bk := range []struct {
		name string
		new  func(rows, aux int) r1cs.Sink
	}{{"proving", proving}, {"templated", templated}, {"witness", witness}, {"counter", func(int, int) r1cs.Sink { return r1cs.Counter{} }}} {
		b.Run(bk.name, func(b *testing.B) {
			vals := randBits(rand.New(rand.NewPCG(1, 1)), 512)
			var cs *r1cs.CS
			var in []Boolean
			var s Sha256
			sb := &synthBench{b: b, rows: rows, batch: batch, fresh: func() {
				cs = r1cs.New(bk.new((batch+1)*rows+1024, (batch+1)*rows+1024))
				in = allocBools(cs, vals)
			}}
			sb.run(func() {
				st := Sha256IV()
				s.Compress(cs, in, &st)
			})
		})
	}
}

func BenchmarkPoseidon11(b *testing.B) {
	const rows, batch = 598, 256
	rng := rand.New(rand.NewPCG(2, 2))
	vals := make([]fr.Element, 11)
	for i := range vals {
		vals[i] = randFr(rng)
	}
	var cs *r1cs.CS
	var pre []AllocatedNum
	sb := &synthBench{b: b, rows: rows, batch: batch, fresh: func() {
		cs = r1cs.New(proving((batch+1)*rows, (batch+1)*rows+16))
		pre = allocNums(cs, vals)
	}}
	sb.run(func() {
		if _, err := PoseidonHash(cs, pre); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkPoRArity8 is one tree_c/tree_r-style inclusion proof: a Poseidon
// 8-8-0 tree of 512 leaves (two base levels and a sub level), private root.
func BenchmarkPoRArity8(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	leaves := make([]fr.Element, 512)
	for i := range leaves {
		leaves[i] = randFr(rng)
	}
	tree, err := merkle.BuildPoseidon(merkle.Shape{Base: 8, Sub: 8}, leaves, 1)
	if err != nil {
		b.Fatal(err)
	}
	proof, _ := tree.Prove(300)
	path := pathFromPoseidon(proof)
	const rows, batch = 3*530 + 2, 64
	var cs *r1cs.CS
	var leaf, root AllocatedNum
	p := PoR{Shape: merkle.Shape{Base: 8, Sub: 8}, Hasher: PoseidonHasher{}}
	sb := &synthBench{b: b, rows: rows, batch: batch, fresh: func() {
		// Siblings are allocated without rows: 537 aux per level.
		cs = r1cs.New(proving((batch+1)*rows, (batch+1)*3*537+16))
		leaf, root = AllocNum(cs, proof.Leaf), AllocNum(cs, tree.Root())
	}}
	sb.run(func() {
		if err := p.Synthesize(cs, RootVar(leaf), path, RootVar(root), true); err != nil {
			b.Fatal(err)
		}
	})
}
