package circuit

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/gadgets"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/r1cs"
)

func elemLE(t testing.TB, b [32]byte) fr.Element {
	t.Helper()
	e, err := fr.LittleEndian.Element(&b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func frHex(e fr.Element) string {
	var b [32]byte
	fr.LittleEndian.PutElement(&b, e)
	return hex.EncodeToString(b[:])
}

// sectorsFromVanilla turns decoded FallbackPoStSectorProofs into circuit
// sectors as FallbackPoStCompound::circuit does for partition 0: window
// PoSt takes the sectors in order, padded by repeating the last; winning
// PoSt unrolls the one sector's inclusion proofs into one-challenge sectors.
func sectorsFromVanilla(t testing.TB, shape Dims, proofs []*binFallbackSectorProof) []Sector {
	t.Helper()
	conv := func(commR [32]byte, sp *binSectorProof, incl []binMerkleProof) Sector {
		s := Sector{CommR: elemLE(t, commR), CommC: elemLE(t, sp.commC), CommRLast: elemLE(t, sp.commRLast)}
		for _, m := range incl {
			c := Challenge{Leaf: elemLE(t, m.leaf)}
			for _, e := range m.path {
				pe := gadgets.PathElement{Index: int(e.index)}
				for _, h := range e.hashes {
					pe.Siblings = append(pe.Siblings, elemLE(t, h))
				}
				c.Path = append(c.Path, pe)
			}
			s.Challenges = append(s.Challenges, c)
		}
		return s
	}
	var out []Sector
	for _, p := range proofs {
		for i := range p.sectors {
			sp := &p.sectors[i]
			if shape.Challenges == 1 {
				for j := range sp.inclusion {
					out = append(out, conv(p.commR, sp, sp.inclusion[j:j+1]))
				}
			} else {
				out = append(out, conv(p.commR, sp, sp.inclusion))
			}
		}
	}
	for len(out) < shape.Sectors && len(out) > 0 {
		out = append(out, out[len(out)-1])
	}
	return out
}

// postVanillaFile is testdata/rustref/post/2KiB/<kind>.json as tools/rustref
// writes it.
type postVanillaFile struct {
	RegisteredProof int64    `json:"registered_proof"`
	SectorSize      uint64   `json:"sector_size"`
	Randomness      string   `json:"randomness"`
	VanillaProofs   []string `json:"vanilla_proofs"`
}

func loadPostVanilla(t *testing.T, kind string) (filecoin.RegisteredPoStProof, []*binFallbackSectorProof, bool) {
	rp, proofs, _, ok := loadPostVanillaFile(t, kind)
	return rp, proofs, ok
}

func loadPostVanillaFile(t *testing.T, kind string) (filecoin.RegisteredPoStProof, []*binFallbackSectorProof, *postVanillaFile, bool) {
	t.Helper()
	path := filepath.Join(golden.Dir(), "post", "2KiB", kind+".json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var v postVanillaFile
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var proofs []*binFallbackSectorProof
	for i, s := range v.VanillaProofs {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := decodeFallbackSectorProof(b)
		if err != nil {
			t.Fatalf("vanilla proof %d: %v", i, err)
		}
		proofs = append(proofs, p)
	}
	return filecoin.RegisteredPoStProof(v.RegisteredProof), proofs, &v, true
}

// The vanilla proofs rust-fil-proofs made for 2 KiB sectors it sealed
// satisfy the circuit, and the challenged leaves the circuit exposes are
// those the challenge rule derives from the randomness and sector ids
// (window V1_2: index n; winning: one sector, index n of 66), so a
// verifier's public inputs match.
func TestRustVanilla2KiB(t *testing.T) {
	for _, kind := range []string{"window", "winning"} {
		t.Run(kind, func(t *testing.T) {
			rp, proofs, v, ok := loadPostVanillaFile(t, kind)
			if !ok {
				t.Fatalf("testdata/rustref/post/2KiB/%s.json missing (tools/rustref post-vanilla)", kind)
			}
			shape, err := DimsOf(rp)
			if err != nil {
				t.Fatal(err)
			}
			f, err := New(shape, sectorsFromVanilla(t, shape, proofs))
			if err != nil {
				t.Fatal(err)
			}
			_, ts := synthTest(t, f)
			if !ts.IsSatisfied() {
				t.Fatalf("rust-made vanilla proofs do not satisfy the circuit: %s", ts.WhichIsUnsatisfied())
			}
			rnd, err := hex.DecodeString(v.Randomness)
			if err != nil || len(rnd) != 32 {
				t.Fatalf("randomness %q", v.Randomness)
			}
			leaves := v.SectorSize / 32
			inputs := f.PublicInputs()
			per := 1 + shape.Challenges
			for i := range f.Sectors {
				id, n0 := proofs[0].sectorID, i // winning: sector 0, challenge i
				if rp.Type() == filecoin.WindowPoSt {
					id, n0 = proofs[min(i, len(proofs)-1)].sectorID, 0
				}
				for n := 0; n < shape.Challenges; n++ {
					h := sha256.New()
					h.Write(rnd)
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
			rp, proofs, ok := loadPostVanilla(t, kind)
			if !ok {
				t.Fatalf("testdata/rustref/post/2KiB/%s.json missing next to its golden", kind)
			}
			shape, err := DimsOf(rp)
			if err != nil {
				t.Fatal(err)
			}
			f, err := New(shape, sectorsFromVanilla(t, shape, proofs))
			if err != nil {
				t.Fatal(err)
			}
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
				if frHex(want[i]) != g.PublicInputs[i] {
					t.Errorf("public input %d: %s, rust %s", i, frHex(want[i]), g.PublicInputs[i])
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
	p, err := decodeFallbackSectorProof(raw)
	if err != nil {
		t.Fatal(err)
	}
	full, err := DimsOf(filecoin.StackedDrgWindow32GiBV1)
	if err != nil {
		t.Fatal(err)
	}
	one := full
	one.Sectors = 1
	sectors := sectorsFromVanilla(t, one, []*binFallbackSectorProof{p})
	f, err := New(one, sectors)
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
		h.Write(binary.LittleEndian.AppendUint64(nil, p.sectorID))
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
