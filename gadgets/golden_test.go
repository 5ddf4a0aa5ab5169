package gadgets

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// The golden digests are written by tools/rustref from the pinned Rust
// crates; each case's description in testdata/rustref/r1cs/<case>.json
// states how its inputs are drawn from the shared stream. These tests rebuild
// the same inputs, synthesise the Go gadgets into a Recorder and compare
// rows, inputs and witness byte for byte.

func caseStream(name string) *golden.Stream { return golden.NewStream("cuzk-golden/" + name) }

func goldenExtra(t *testing.T, g *golden.R1CS) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(g.Extra, &m); err != nil {
		t.Fatalf("%s extra: %v", g.Case, err)
	}
	return m
}

func TestGoldenSha256(t *testing.T) {
	for _, name := range []string{"sha256_block", "sha256_full_512"} {
		t.Run(name, func(t *testing.T) {
			g := loadGolden(t, name)
			bits := caseStream(name).Bits(512)
			var out []Boolean
			d := digest(t, func(cs *r1cs.CS) {
				in := allocBools(cs, bits)
				if name == "sha256_block" {
					st := Sha256Compress(cs, in, Sha256IV())
					for i := range st {
						out = st[i].AppendBitsBE(out)
					}
				} else {
					out = Sha256Hash(cs, in)
				}
			})
			golden.Compare(t, g, d)
			if got, want := hex.EncodeToString(bitsToBytes(out)), goldenExtra(t, g)["output_hex"]; got != want {
				t.Errorf("digest %s, golden %v", got, want)
			}
		})
	}
}

func TestGoldenPoseidon(t *testing.T) {
	for _, arity := range []int{2, 4, 8, 11} {
		name := fmt.Sprintf("poseidon_%d", arity)
		t.Run(name, func(t *testing.T) {
			g := loadGolden(t, name)
			s := caseStream(name)
			vals := make([]fr.Element, arity)
			for i := range vals {
				vals[i] = s.Fr()
			}
			var out AllocatedNum
			d := digest(t, func(cs *r1cs.CS) {
				var err error
				if out, err = PoseidonHash(cs, allocNums(cs, vals)); err != nil {
					t.Fatal(err)
				}
			})
			golden.Compare(t, g, d)
			if got, want := golden.FrHex(out.Val), goldenExtra(t, g)["hash"]; got != want {
				t.Errorf("hash %s, golden %v", got, want)
			}
		})
	}
}

// createLabel mirrors storage-proofs-porep create_label_circuit (the PoRep
// package owns the real one): id padded to 256 bits, the layer and node
// big-endian, padding to 512, every parent padded to 256 bits, SHA-256,
// reverse_bit_numbering, the first 254 bits packed.
func createLabel(cs *r1cs.CS, id []Boolean, parents [][]Boolean, layer UInt32, node UInt64) AllocatedNum {
	msg := append([]Boolean(nil), id...)
	for len(msg) < 256 {
		msg = append(msg, Constant(false))
	}
	msg = layer.AppendBitsBE(msg)
	msg = node.AppendBitsBE(msg)
	for len(msg) < 512 {
		msg = append(msg, Constant(false))
	}
	for _, p := range parents {
		msg = append(msg, p...)
		for len(msg)%256 != 0 {
			msg = append(msg, Constant(false))
		}
	}
	digest := Sha256Hash(cs, msg)
	le := ReverseBitNumbering(nil, digest)
	return PackBits(cs, le[:Capacity])
}

func TestGoldenCreateLabel(t *testing.T) {
	testenv.Short(t, "532k rows")
	const layer, node = 3, 22
	g := loadGolden(t, "create_label")
	s := caseStream("create_label")
	frBytes := func() []byte {
		b := s.Bytes(32)
		b[31] &= 0x3f
		return b
	}
	id := frBytes()
	var p14 [][]byte
	for i := 0; i < 14; i++ {
		p14 = append(p14, frBytes())
	}
	slots := append(append(append([][]byte{}, p14...), p14...), p14[:9]...)
	var label AllocatedNum
	build := func(cs *r1cs.CS) {
		parents := make([][]Boolean, len(slots))
		for i, p := range slots {
			parents[i] = AllocBytesBE(cs, nil, p)
		}
		idBits := AllocBytesBE(cs, nil, id)
		label = createLabel(cs, idBits, parents, UInt32Constant(layer), UInt64Constant(node))
	}
	d := digest(t, build)
	golden.Compare(t, g, d)

	h := sha256.New()
	h.Write(id)
	h.Write(binary.BigEndian.AppendUint32(nil, layer))
	h.Write(binary.BigEndian.AppendUint64(nil, node))
	h.Write(make([]byte, 20))
	for _, p := range slots {
		h.Write(p)
	}
	native := h.Sum(nil)
	native[31] &= 0x3f
	if got := golden.FrHex(label.Val); got != hex.EncodeToString(native) || got != goldenExtra(t, g)["label"] {
		t.Errorf("label %s, native %x, golden %v", got, native, goldenExtra(t, g)["label"])
	}
	// rust-fil-proofs test_create_label: 532,025 rows with all parents and id
	// allocated and constant layer and node.
	if d.Constraints != 532025 {
		t.Errorf("create_label: %d rows, want 532025", d.Constraints)
	}
}

func TestGoldenPoR(t *testing.T) {
	cases := []struct {
		name  string
		shape merkle.Shape
	}{
		{"por_sha256_base_2", merkle.Shape{Base: 2}},
		{"por_poseidon_base_2", merkle.Shape{Base: 2}},
		{"por_poseidon_base_4", merkle.Shape{Base: 4}},
		{"por_poseidon_base_8", merkle.Shape{Base: 8}},
		{"por_poseidon_sub_8_2", merkle.Shape{Base: 8, Sub: 2}},
		{"por_poseidon_sub_8_8", merkle.Shape{Base: 8, Sub: 8}},
		{"por_poseidon_top_8_8_2", merkle.Shape{Base: 8, Sub: 8, Top: 2}},
		{"por_poseidon_top_8_4_2", merkle.Shape{Base: 8, Sub: 4, Top: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sha := tc.name == "por_sha256_base_2"
			if sha {
				testenv.Short(t, "272k rows")
			}
			g := loadGolden(t, tc.name)
			ms := tc.shape
			s := caseStream(tc.name)
			leaves := make([]fr.Element, 64*ms.BaseTreeCount())
			for i := range leaves {
				leaves[i] = s.Fr()
			}
			challenge := int(s.U64() % uint64(len(leaves)))

			var leaf, root fr.Element
			var path []PathElement
			var hasher NodeHasher = PoseidonHasher{}
			if sha {
				raw := make([][32]byte, len(leaves))
				for i := range leaves {
					fr.LittleEndian.PutElement(&raw[i], leaves[i])
				}
				tree, err := merkle.BuildSha254(raw, 1)
				if err != nil {
					t.Fatal(err)
				}
				proof, err := tree.Prove(challenge)
				if err != nil {
					t.Fatal(err)
				}
				leaf, root, path = leaves[challenge], frLE(t, tree.Root()), pathFromSha(t, proof)
				hasher = &Sha254Hasher{}
			} else {
				tree, err := merkle.BuildPoseidon(ms, leaves, 1)
				if err != nil {
					t.Fatal(err)
				}
				proof, err := tree.Prove(challenge)
				if err != nil {
					t.Fatal(err)
				}
				leaf, root, path = proof.Leaf, tree.Root(), pathFromPoseidon(proof)
			}
			extra := goldenExtra(t, g)
			if extra["challenge"] != float64(challenge) || extra["root"] != golden.FrHex(root) || extra["leaf"] != golden.FrHex(leaf) {
				t.Fatalf("inputs differ from the harness: challenge %d root %s leaf %s; golden %v %v %v",
					challenge, golden.FrHex(root), golden.FrHex(leaf), extra["challenge"], extra["root"], extra["leaf"])
			}
			var inputs []fr.Element
			d := digest(t, func(cs *r1cs.CS) {
				p := PoR{Shape: tc.shape, Hasher: hasher}
				if err := p.Synthesize(cs, RootVal(leaf), path, RootVal(root), false); err != nil {
					t.Fatal(err)
				}
			})
			golden.Compare(t, g, d)
			ts := r1cs.NewTestSystem()
			cs := r1cs.New(ts)
			p := PoR{Shape: tc.shape, Hasher: hasher}
			if err := p.Synthesize(cs, RootVal(leaf), path, RootVal(root), false); err != nil {
				t.Fatal(err)
			}
			inputs = ts.Input[1:]
			if len(inputs) != len(g.PublicInputs) {
				t.Fatalf("%d public inputs, golden %d", len(inputs), len(g.PublicInputs))
			}
			for i := range inputs {
				if got := golden.FrHex(inputs[i]); got != g.PublicInputs[i] {
					t.Errorf("public input %d = %s, golden %s", i, got, g.PublicInputs[i])
				}
			}
		})
	}
}
