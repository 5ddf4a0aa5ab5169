package snapgen

import (
	"context"
	"fmt"
	"runtime/debug"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/circuit"
)

// The circuit of a partition of the generated 32 and 64 GiB updates, made
// as the daemon makes it (snapkind: the circuit from the decoded vanilla
// proof and the public values), is satisfied at every row and has
// upstream's counts: 32 GiB's stated by storage-proofs-update
// (tests/circuit.rs), 64 GiB's those of upstream's blank circuit
// (tools/rustref update-counts), both as snap/circuit's TestCounts has
// them. 64 GiB is the 8-8-2 shape no update made from a sector here has.
func TestFullSizeGeneratedSatisfied(t *testing.T) {
	// Each synthesises one update partition of 81 or 85 M rows into a
	// system that checks every row (85 s and 5.0 GiB peak for both on 2
	// cores).
	testenv.FullSize(t, "81-85 M rows per partition")
	for _, c := range []struct {
		proof     filecoin.RegisteredUpdateProof
		partition int
		rows      int
	}{
		{filecoin.StackedDrg8MiBUpdateV1, 3, 10007503}, // a check of the test itself, in seconds
		{filecoin.StackedDrg32GiBUpdateV1, 0, 81049499},
		{filecoin.StackedDrg64GiBUpdateV1, 15, 85006101},
	} {
		t.Run(fmt.Sprintf("%v/partition-%d", c.proof.SectorSize(), c.partition), func(t *testing.T) {
			r, err := Generate(context.Background(), DefaultParams(c.proof), 2)
			if err != nil {
				t.Fatal(err)
			}
			pps, err := snap.DecodePartitionProofs(r.VanillaProofs, c.proof)
			if err != nil {
				t.Fatal(err)
			}
			params, err := circuit.ParamsFor(uint64(c.proof.SectorSize()))
			if err != nil {
				t.Fatal(err)
			}
			d, err := fr.LittleEndian.Element(&r.Public.CommDNew)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := circuit.NewPublicInputs(params, c.partition, params.HDefault(), r.Public.CommROld, d, r.Public.CommRNew)
			if err != nil {
				t.Fatal(err)
			}
			priv, err := circuit.PrivateFromVanilla(pps[c.partition])
			if err != nil {
				t.Fatal(err)
			}
			u, err := circuit.New(params, pub, priv)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			// The witness is most of the memory (32 bytes an aux, about one
			// per row, 2.7 GiB at 64 GiB): sized once and the garbage
			// collected soon, the test peaks at 5 GiB instead of 12.
			defer debug.SetGCPercent(debug.SetGCPercent(25))
			ts := r1cs.NewTestSystem()
			ts.Aux = make([]fr.Element, 0, c.rows)
			cs, err := r1cs.Synthesize(u, ts)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v partition %d: %d rows, %d inputs, %d aux, synthesised and checked in %v",
				c.proof, c.partition, cs.NumConstraints(), cs.NumInputs(), cs.NumAux(), time.Since(start).Round(time.Second))
			if !ts.IsSatisfied() {
				t.Fatalf("%d rows unsatisfied, first %s", ts.NumUnsatisfied(), ts.WhichIsUnsatisfied())
			}
			if cs.NumConstraints() != c.rows || cs.NumInputs() != 5 {
				t.Fatalf("%d rows, %d inputs; upstream has %d, 5", cs.NumConstraints(), cs.NumInputs(), c.rows)
			}
			want, err := r.Public.PartitionInputs(c.partition)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range want {
				if ts.Input[i+1] != w {
					t.Fatalf("public input %d differs from the verifier's", i)
				}
			}
		})
	}
}
