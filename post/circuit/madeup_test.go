package circuit

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/post"
)

// FullSizeEnv enables the full-size circuit tests (porep/c1gen's switch):
// a 64 GiB WindowPoSt partition is 130 M rows, minutes and several GiB.
const FullSizeEnv = "CUZK_FULLSIZE"

// madeUpCircuit is the circuit of partition 0 of a made-up input (`cuzk
// post gen`), built as the daemon builds it: decoded, laid out as the
// partition, checked natively, then the circuit's sectors.
// keep > 0 keeps only the first keep sectors of the circuit (a full-size
// WindowPoSt shape at a fraction of its rows).
func madeUpCircuit(t *testing.T, p filecoin.RegisteredPoStProof, sectors, keep int) (*FallbackPoSt, *post.Partition) {
	t.Helper()
	m, err := post.GenerateMadeUp(context.Background(), post.MadeUpParams{Proof: p, MinerID: 1000, Randomness: post.DefaultRandomness(), Sectors: sectors, FirstSector: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := post.DecodeVanillaProofs(m.Partitions[0].Entries, p)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := post.NewPartition(p, m.Params.Randomness, vs, 0)
	if err != nil {
		t.Fatal(err)
	}
	dims, err := DimsOf(p)
	if err != nil {
		t.Fatal(err)
	}
	if keep > 0 {
		cut := *pt
		cut.Sectors, cut.Proofs = pt.Sectors[:keep], pt.Proofs[:keep]
		pt, dims.Sectors = &cut, keep
	}
	ss, err := FromPartition(dims, pt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(dims, ss)
	if err != nil {
		t.Fatal(err)
	}
	return f, pt
}

// checkSatisfied synthesises f, checks every row against the witness and
// that the circuit's public inputs are the ones a verifier derives.
func checkSatisfied(t *testing.T, f *FallbackPoSt, pt *post.Partition, rows, inputs int) {
	t.Helper()
	start := time.Now()
	cs, ts := synthTest(t, f)
	if !ts.IsSatisfied() {
		t.Fatalf("not satisfied: %s", ts.WhichIsUnsatisfied())
	}
	if cs.NumConstraints() != rows || cs.NumInputs() != inputs {
		t.Errorf("%d rows / %d inputs, want %d / %d", cs.NumConstraints(), cs.NumInputs(), rows, inputs)
	}
	want, err := pt.PublicInputs()
	if err != nil {
		t.Fatal(err)
	}
	// A circuit cut to its first sectors has the first of the full
	// circuit's inputs.
	if got := ts.Input[1:]; len(got) != inputs-1 || len(got) > len(want) {
		t.Fatalf("%d public inputs, the verifier derives %d", len(got), len(want))
	} else {
		want = want[:len(got)]
		for i := range want {
			if !got[i].Equal(&want[i]) {
				t.Fatalf("public input %d differs from the verifier's", i)
			}
		}
	}
	t.Logf("%v: %d rows, %d inputs, satisfied, in %v", pt.Proof, cs.NumConstraints(), cs.NumInputs(), time.Since(start).Round(time.Millisecond))
}

// Made-up inputs satisfy the circuit: 2 KiB window and winning, the
// full-size WinningPoSt (32 and 64 GiB; 370,590 and 391,314 rows) and the
// first sectors of a 64 GiB WindowPoSt partition (tree 8-8-2).
func TestMadeUpSatisfies(t *testing.T) {
	for _, c := range []struct {
		proof         filecoin.RegisteredPoStProof
		sectors, keep int
		rows, inputs  int
	}{
		{filecoin.StackedDrgWindow2KiBV1_2, 2, 0, 21866, 23},
		{filecoin.StackedDrgWinning2KiBV1, 5, 0, 90750, 133},
		{filecoin.StackedDrgWinning32GiBV1, 16, 0, 370590, 133},
		{filecoin.StackedDrgWinning64GiBV1, 16, 0, 391314, 133},
		// 3 of a 64 GiB partition's 2,300 sectors: 129,887,900 / 2,300 rows each.
		{filecoin.StackedDrgWindow64GiBV1_2, 3, 3, 3 * 56473, 1 + 3*11},
	} {
		t.Run(c.proof.String(), func(t *testing.T) {
			if testing.Short() && c.rows > 100000 {
				t.Skip("full-size shapes")
			}
			f, pt := madeUpCircuit(t, c.proof, c.sectors, c.keep)
			checkSatisfied(t, f, pt, c.rows, c.inputs)
		})
	}
}

// A full WindowPoSt partition of made-up sectors satisfies the circuit:
// 2,300 sectors at 64 GiB (tree 8-8-2, 129,887,900 rows, upstream's stated
// count) and 2,349 at 32 GiB (125,279,217). Each keeps the witness (about
// 4 GiB) and takes minutes: run it under the heavy-work lock.
func TestFullSizeMadeUpWindowPoSt(t *testing.T) {
	if os.Getenv(FullSizeEnv) != "1" {
		t.Skipf("full size (130 M rows per partition): set %s=1 to run it", FullSizeEnv)
	}
	for _, c := range []struct {
		proof        filecoin.RegisteredPoStProof
		sectors      int
		rows, inputs int
	}{
		{filecoin.StackedDrgWindow64GiBV1_2, 2300, 129887900, 25301},
		{filecoin.StackedDrgWindow32GiBV1_2, 2349, 125279217, 25840},
	} {
		t.Run(c.proof.String(), func(t *testing.T) {
			f, pt := madeUpCircuit(t, c.proof, c.sectors, 0)
			checkSatisfied(t, f, pt, c.rows, c.inputs)
		})
	}
}
