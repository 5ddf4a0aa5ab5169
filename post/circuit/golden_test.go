package circuit

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// sectorsFromVanilla turns decoded FallbackPoStSectorProofs into circuit
// sectors through the post package's partition (window: in order, padded
// by repeating the last; winning: unrolled), checking on the way that the
// post package's public inputs are the circuit's.
func sectorsFromVanilla(t testing.TB, shape Dims, rp filecoin.RegisteredPoStProof, rnd [32]byte, proofs []*post.VanillaProof) []Sector {
	t.Helper()
	part, err := post.NewPartition(rp, rnd, proofs, 0)
	if err != nil {
		t.Fatal(err)
	}
	sectors, err := FromPartition(shape, part)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(shape, sectors)
	if err != nil {
		t.Fatal(err)
	}
	got := f.PublicInputs()
	want, err := part.PublicInputs()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("circuit has %d public inputs, post.Partition %d", len(got), len(want))
	}
	for i := range got {
		if !got[i].Equal(&want[i]) {
			t.Fatalf("public input %d: circuit %s, post.Partition %s", i, got[i].String(), want[i].String())
		}
	}
	return sectors
}

// rustVanilla is the 2 KiB partition circuit of kind ("window",
// "winning") built from the vanilla proofs rust-fil-proofs made
// (testdata/rustref/post/2KiB/<kind>.json, tools/rustref post-vanilla),
// with what it was built from.
type rustVanilla struct {
	file   *golden.PoStVanilla
	rp     filecoin.RegisteredPoStProof
	rnd    [32]byte
	proofs []*post.VanillaProof
	shape  Dims
	f      *FallbackPoSt
}

func loadRustVanilla(t *testing.T, kind string) *rustVanilla {
	t.Helper()
	v, rnd, entries := golden.ReadPoStVanilla(t, filepath.Join(golden.Dir(), "post", "2KiB", kind+".json"))
	rp := filecoin.RegisteredPoStProof(v.RegisteredProof)
	proofs, err := post.DecodeVanillaProofs(entries, rp)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := DimsOf(rp)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(shape, sectorsFromVanilla(t, shape, rp, rnd, proofs))
	if err != nil {
		t.Fatal(err)
	}
	return &rustVanilla{file: v, rp: rp, rnd: rnd, proofs: proofs, shape: shape, f: f}
}

// circuitFromVanilla is loadRustVanilla's circuit.
func circuitFromVanilla(t *testing.T, kind string) *FallbackPoSt {
	t.Helper()
	return loadRustVanilla(t, kind).f
}

// The vanilla proofs rust-fil-proofs made for 2 KiB sectors it sealed
// satisfy the circuit, and the challenged leaves the circuit exposes are
// those the challenge rule derives from the randomness and sector ids
// (window V1_2: index n; winning: one sector, index n of 66), so a
// verifier's public inputs match.
func TestRustVanilla2KiB(t *testing.T) {
	for _, kind := range []string{"window", "winning"} {
		t.Run(kind, func(t *testing.T) {
			rv := loadRustVanilla(t, kind)
			rp, rnd, proofs, v, shape, f := rv.rp, rv.rnd, rv.proofs, rv.file, rv.shape, rv.f
			_, ts := synthTest(t, f)
			if !ts.IsSatisfied() {
				t.Fatalf("rust-made vanilla proofs do not satisfy the circuit: %s", ts.WhichIsUnsatisfied())
			}
			leaves := v.SectorSize / 32
			inputs := f.PublicInputs()
			per := 1 + shape.Challenges
			for i := range f.Sectors {
				id, n0 := proofs[0].SectorID, i // winning: sector 0, challenge i
				if rp.Type() == filecoin.WindowPoSt {
					id, n0 = proofs[min(i, len(proofs)-1)].SectorID, 0
				}
				for n := 0; n < shape.Challenges; n++ {
					h := sha256.New()
					h.Write(rnd[:])
					h.Write(binary.LittleEndian.AppendUint64(nil, id))
					h.Write(binary.LittleEndian.AppendUint64(nil, uint64(n0+n)))
					var want fr.Element
					want.SetUint64(binary.LittleEndian.Uint64(h.Sum(nil)[:8]) % leaves)
					got := ts.Input[1+i*per+1+n]
					if !got.Equal(&want) || !inputs[i*per+1+n].Equal(&want) {
						t.Errorf("sector %d challenge %d: circuit leaf %s, derived %s", i, n, got.String(), want.String())
					}
				}
			}
		})
	}
}

// The 2 KiB WindowPoSt and WinningPoSt circuits built from the vanilla
// proofs rust-fil-proofs made (tools/rustref post-vanilla) must be the real
// FallbackPoStCircuit's rows, inputs and witness.
func TestGoldenPoSt2KiB(t *testing.T) {
	for _, kind := range []string{"window", "winning"} {
		t.Run(kind, func(t *testing.T) {
			g := golden.Require(t, kind+"_post_2KiB")
			f := circuitFromVanilla(t, kind)
			rec := r1cs.NewRecorder()
			if _, err := r1cs.Synthesize(f, rec); err != nil {
				t.Fatal(err)
			}
			golden.Compare(t, g, rec.Digest())
			_, ts := synthTest(t, f)
			if !ts.IsSatisfied() {
				t.Errorf("rust-made vanilla proofs do not satisfy the circuit: %s", ts.WhichIsUnsatisfied())
			}
			want := f.PublicInputs()
			if len(g.PublicInputs) != len(want) {
				t.Fatalf("golden has %d public inputs, circuit %d", len(g.PublicInputs), len(want))
			}
			for i := range want {
				if golden.FrHex(want[i]) != g.PublicInputs[i] {
					t.Errorf("public input %d: %s, rust %s", i, golden.FrHex(want[i]), g.PublicInputs[i])
				}
			}
		})
	}
}

// The real 32 GiB WindowPoSt vanilla proof Curio's tests carry (one sector,
// 10 challenges, tree 8-8-0) satisfies one sector of the 32 GiB circuit,
// and its challenged leaves are the ones the V1 challenge rule derives
// from its public data (randomness zero, sector 1): the circuit's
// public inputs are what a verifier computes.
func TestCurio32GiBSector(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(golden.RepoTestdata(), "curio-32gib-window-post", "post.vproof"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := post.DecodeVanillaProof(raw, filecoin.StackedDrgWindow32GiBV1)
	if err != nil {
		t.Fatal(err)
	}
	full, err := DimsOf(filecoin.StackedDrgWindow32GiBV1)
	if err != nil {
		t.Fatal(err)
	}
	one := full
	one.Sectors = 1
	// One sector of the partition, as the circuit takes it.
	sp := &p.Sectors[0]
	sector := Sector{CommR: p.CommR, CommC: sp.CommC, CommRLast: sp.CommRLast}
	for _, ip := range sp.InclusionProofs {
		sector.Challenges = append(sector.Challenges, challengeOf(ip))
	}
	f, err := New(one, []Sector{sector})
	if err != nil {
		t.Fatal(err)
	}
	cs, ts := synthTest(t, f)
	if !ts.IsSatisfied() {
		t.Fatalf("Curio's vanilla proof does not satisfy the circuit: %s", ts.WhichIsUnsatisfied())
	}
	if cs.NumConstraints() != 53333 || cs.NumInputs() != 12 {
		t.Errorf("one 32 GiB sector: %d rows / %d inputs, want 53,333 / 12", cs.NumConstraints(), cs.NumInputs())
	}
	inputs := f.PublicInputs()
	var rnd [32]byte // Lotus JSON randomness: all zero
	for n := 0; n < full.Challenges; n++ {
		h := sha256.New()
		h.Write(rnd[:])
		h.Write(binary.LittleEndian.AppendUint64(nil, p.SectorID))
		h.Write(binary.LittleEndian.AppendUint64(nil, uint64(n))) // V1: sector_index 0 · 10 + n
		leaf := binary.LittleEndian.Uint64(h.Sum(nil)[:8]) % (1 << 30)
		var want fr.Element
		want.SetUint64(leaf)
		if got := ts.Input[2+n]; !got.Equal(&want) || !inputs[1+n].Equal(&want) {
			t.Errorf("challenge %d: circuit leaf %s, derived %d", n, got.String(), leaf)
		}
	}
	// A changed comm_r_last no longer matches comm_r.
	f.Sectors[0].CommRLast.Add(&f.Sectors[0].CommRLast, &inputs[0])
	if _, ts := synthTest(t, f); ts.IsSatisfied() {
		t.Error("changed comm_r_last satisfies the circuit")
	}
}
