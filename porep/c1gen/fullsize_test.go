package c1gen

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/circuit"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// The circuit of partition 0 of the generated 32 and 64 GiB C1 is
// rust-fil-proofs' circuit for it: tools/rustref synthesised the upstream
// StackedCompound circuit from the same generated C1 (the golden files
// porep_<size>_gen_p0.json: rows, coefficients, variables, witness digests,
// and upstream's own satisfaction check and public inputs), and Go's
// synthesis gives the same digests. 64 GiB is the 8-8-2 shape, whose top
// arity-2 level no sealed sector here exercises.
func TestFullSizeGeneratedMatchesRust(t *testing.T) {
	// Each synthesises one partition of 130 M rows (about 3 minutes and
	// 6 GiB on 2 cores).
	testenv.FullSize(t, "130 M rows per partition")
	for _, c := range []struct {
		proof  filecoin.RegisteredSealProof
		golden string
	}{
		{filecoin.StackedDrg32GiBV1_1, "porep_32GiB_gen_p0"},
		{filecoin.StackedDrg64GiBV1_1, "porep_64GiB_gen_p0"},
	} {
		t.Run(c.proof.SectorSize().String(), func(t *testing.T) {
			g := golden.Require(t, c.golden)
			var extra struct {
				Satisfied    bool   `json:"satisfied"`
				InputsMatch  bool   `json:"generated_public_inputs_match"`
				CommR        string `json:"comm_r"`
				Partition    int    `json:"partition"`
				UnsatisfiedN int    `json:"unsatisfied"`
			}
			if err := json.Unmarshal(g.Extra, &extra); err != nil {
				t.Fatal(err)
			}
			if !extra.Satisfied || !extra.InputsMatch || extra.Partition != 0 {
				t.Fatalf("golden: upstream says satisfied=%v, public inputs match=%v, partition %d", extra.Satisfied, extra.InputsMatch, extra.Partition)
			}
			r, err := Generate(context.Background(), DefaultParams(c.proof), 2)
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(r.Output.CommR[:]); got != extra.CommR {
				t.Fatalf("comm_r %s, the golden's C1 had %s: the generator's output changed", got, extra.CommR)
			}
			in, err := porep.CircuitInputs(r.Output, 0)
			if err != nil {
				t.Fatal(err)
			}
			dims, err := circuit.DimsOf(c.proof)
			if err != nil {
				t.Fatal(err)
			}
			s, err := circuit.New(dims, in)
			if err != nil {
				t.Fatal(err)
			}
			rec := r1cs.NewRecorder()
			if _, err := r1cs.Synthesize(s, rec); err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, g, rec.Digest())
			want := s.In.PublicInputs()
			if len(g.PublicInputs) != len(want) {
				t.Fatalf("golden has %d public inputs, circuit %d", len(g.PublicInputs), len(want))
			}
			for i, h := range g.PublicInputs {
				if b := fr32.FromElement(&want[i]); hex.EncodeToString(b[:]) != h {
					t.Fatalf("public input %d: %x, rust %s", i, b, h)
				}
			}
		})
	}
}
