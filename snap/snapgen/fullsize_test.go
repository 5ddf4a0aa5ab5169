package snapgen

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/snap"
	"github.com/cuzk-dev/cuzk/snap/circuit"
)

// The circuit of a partition of the generated 32 and 64 GiB updates, made
// as the daemon makes it (snapkind: the circuit from the decoded vanilla
// proof and the public values), is upstream's own circuit of the same
// files, digest for digest (rows, coefficients, witness, public inputs:
// testdata/rustref/r1cs/update_{8MiB_gen_p3,32GiB_gen_p0,64GiB_gen_p15}.json,
// made by tools/rustref update-r1cs, which checked every row satisfied and
// the inputs against generate_public_inputs), 64 GiB being the 8-8-2 shape
// no update made from a sector here has. The counts are upstream's:
// 81,049,499 rows at 32 GiB (storage-proofs-update tests/circuit.rs),
// 85,006,101 at 64 GiB (its blank circuit).
func TestFullSizeGeneratedMatchesRust(t *testing.T) {
	// Each synthesises one update partition of 81 or 85 M rows into a
	// system that checks every row (85 s and 5.0 GiB peak for both on 2
	// cores).
	testenv.FullSize(t, "81-85 M rows per partition")
	for _, c := range []struct {
		proof     filecoin.RegisteredUpdateProof
		partition int
		rows      int
		golden    string // rustref update-r1cs of the same partition
	}{
		{filecoin.StackedDrg8MiBUpdateV1, 3, 10007503, "update_8MiB_gen_p3"}, // a check of the test itself, in seconds
		{filecoin.StackedDrg32GiBUpdateV1, 0, 81049499, "update_32GiB_gen_p0"},
		{filecoin.StackedDrg64GiBUpdateV1, 15, 85006101, "update_64GiB_gen_p15"},
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
			want, err := r.Public.PartitionInputs(c.partition)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			// Upstream's circuit of the same partition, built from the
			// same files by tools/rustref update-r1cs and checked
			// satisfied there: the same rows, coefficients, witness and
			// public inputs. The recorder streams, so this takes little
			// memory.
			g := golden.Require(t, c.golden)
			rec := r1cs.NewRecorder()
			if _, err := r1cs.Synthesize(u, rec); err != nil {
				t.Fatal(err)
			}
			got := rec.Digest()
			t.Logf("%v partition %d: %d rows, %d inputs, %d aux, recorded in %v", c.proof, c.partition, got.Constraints, got.Inputs, got.Aux, time.Since(start).Round(time.Second))
			golden.Compare(t, g, got)
			var extra struct {
				Satisfied   bool `json:"satisfied"`
				InputsMatch bool `json:"generated_public_inputs_match"`
				Partition   int  `json:"partition"`
			}
			if err := json.Unmarshal(g.Extra, &extra); err != nil || !extra.Satisfied || !extra.InputsMatch || extra.Partition != c.partition {
				t.Fatalf("golden: %+v %v", extra, err)
			}
			if got.Constraints != c.rows || len(g.PublicInputs) != len(want) {
				t.Fatalf("%d rows, %d public inputs; want %d, %d", got.Constraints, len(g.PublicInputs), c.rows, len(want))
			}
			for i, h := range g.PublicInputs {
				if b := fr32.FromElement(&want[i]); hex.EncodeToString(b[:]) != h {
					t.Fatalf("public input %d: %x, rust %s", i, b, h)
				}
			}
		})
	}
}
