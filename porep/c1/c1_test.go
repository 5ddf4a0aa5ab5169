package c1

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/merkle"
)

// rustC1 reads a C1 written by rust-fil-proofs (tools/rustref seal).
func rustC1(t testing.TB, size string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rustref", "seal", size, "c1.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRoundTripRustC1(t *testing.T) {
	for _, tc := range []struct {
		size   string
		proof  filecoin.RegisteredSealProof
		levels int // tree_c/tree_r path elements
		depth  int // tree_d
	}{
		{"2KiB", filecoin.StackedDrg2KiBV1_1, 2, 6},
		{"8MiB", filecoin.StackedDrg8MiBV1_1, 6, 18},
	} {
		t.Run(tc.size, func(t *testing.T) {
			raw := rustC1(t, tc.size)
			o, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if o.RegisteredProof != tc.proof {
				t.Errorf("registered proof %v, want %v", o.RegisteredProof, tc.proof)
			}
			if len(o.VanillaProofs) != 1 || len(o.VanillaProofs[0]) != 2 {
				t.Fatalf("got %d partitions", len(o.VanillaProofs))
			}
			p := &o.VanillaProofs[0][1]
			if got := p.CommRLastProof.Levels(); got != tc.levels {
				t.Errorf("tree_r path has %d levels, want %d", got, tc.levels)
			}
			if got := len(p.CommDProofs.Base); got != tc.depth {
				t.Errorf("tree_d path has %d levels, want %d", got, tc.depth)
			}
			// The challenge is the node every part of the proof opens.
			c := p.LabelingProofs[0].Node
			if p.CommDProofs.LeafIndex() != c || p.CommRLastProof.LeafIndex() != c || uint64(p.ReplicaColumnProofs.CX.Column.Index) != c {
				t.Errorf("challenge %d, comm_d leaf %d, comm_r_last leaf %d, c_x %d", c,
					p.CommDProofs.LeafIndex(), p.CommRLastProof.LeafIndex(), p.ReplicaColumnProofs.CX.Column.Index)
			}
			got := o.AppendJSON(nil)
			if !bytes.Equal(got, raw) {
				t.Fatalf("re-encoding differs from rust-fil-proofs' bytes at byte %d", firstDiff(got, raw))
			}
			if m, _ := o.MarshalJSON(); !bytes.Equal(m, raw) {
				t.Fatal("MarshalJSON differs from AppendJSON")
			}
			// Through encoding/json, both ways.
			var viaStd struct{ C1 *Output }
			if err := json.Unmarshal([]byte(`{"C1":`+string(raw)+`}`), &viaStd); err != nil {
				t.Fatal(err)
			}
			if m, err := json.Marshal(viaStd.C1); err != nil || !bytes.Equal(m, raw) {
				t.Fatalf("encoding/json round trip: %v", err)
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestStackedGoldens reads the rust-fil-proofs-level vanilla proofs of
// upstream's small stacked circuit shapes, which include Sub and Top Merkle
// proofs, and re-encodes them byte for byte.
func TestStackedGoldens(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shape   merkle.Shape
		variant ProofVariant
	}{
		{"stacked_2_0_0", merkle.Shape{Base: 2}, Single},
		{"stacked_8_0_0", merkle.Shape{Base: 8}, Single},
		{"stacked_8_4_0", merkle.Shape{Base: 8, Sub: 4}, Sub},
		{"stacked_8_4_2", merkle.Shape{Base: 8, Sub: 4, Top: 2}, Top},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rustref", "stacked", tc.name+".vanilla.json"))
			if err != nil {
				t.Fatal(err)
			}
			var g struct {
				Nodes      uint64          `json:"nodes"`
				Layers     int             `json:"layers"`
				Partitions int             `json:"partitions"`
				PerPart    int             `json:"challenges_per_partition"`
				Proofs     json.RawMessage `json:"vanilla_proofs"`
			}
			if err := json.Unmarshal(raw, &g); err != nil {
				t.Fatal(err)
			}
			proofs, err := UnmarshalVanillaProofs(g.Proofs)
			if err != nil {
				t.Fatal(err)
			}
			l := Layout{Nodes: g.Nodes, Layers: g.Layers, Tree: tc.shape, Partitions: g.Partitions, ChallengesPerPartition: g.PerPart}
			if err := l.Validate(proofs); err != nil {
				t.Fatal(err)
			}
			if v := proofs[0][0].CommRLastProof.Variant; v != tc.variant {
				t.Errorf("variant %v, want %v", v, tc.variant)
			}
			if got := MarshalVanillaProofs(proofs); !bytes.Equal(got, g.Proofs) {
				t.Fatalf("re-encoding differs at byte %d", firstDiff(got, g.Proofs))
			}
			// A layout with another tree shape must reject them.
			other := l
			other.Tree = merkle.Shape{Base: 8}
			if tc.shape == other.Tree {
				other.Tree = merkle.Shape{Base: 2}
			}
			if err := other.Validate(proofs); !errors.Is(err, ErrShape) {
				t.Errorf("shape %s accepted proofs of shape %s: %v", other.Tree, tc.shape, err)
			}
		})
	}
}

// TestFieldOrderAndWhitespace: serde accepts any key order and whitespace;
// Curio re-marshals C1s with Go's encoding/json (alphabetical order).
func TestFieldOrderAndWhitespace(t *testing.T) {
	raw := rustC1(t, "2KiB")
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	sorted, err := json.Marshal(v) // maps are written with sorted keys
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(sorted, raw) {
		t.Fatal("test is vacuous: sorting keys changed nothing")
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, raw, " ", "\t"); err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{"sorted": sorted, "indented": append(indented.Bytes(), "\r\n"...)} {
		o, err := Parse(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := o.AppendJSON(nil); !bytes.Equal(got, raw) {
			t.Errorf("%s: canonical re-encoding differs at byte %d", name, firstDiff(got, raw))
		}
	}
}

// TestDecodeErrors mutates the text of a real C1 and checks the sentinel
// and the JSON path of each failure.
func TestDecodeErrors(t *testing.T) {
	raw := string(rustC1(t, "2KiB"))
	const idx0 = `"index":1},` // first path element of comm_d_proofs
	const cdPath = "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Single.path.path[0]"
	cases := []struct {
		name     string
		old, new string // replace the first occurrence
		all      bool
		text     string // whole input instead of a replacement
		err      error
		path     string
	}{
		{name: "empty", text: "", err: ErrSyntax},
		{name: "truncated", text: raw[:len(raw)-1], err: ErrSyntax},
		{name: "trailing data", text: raw + "{}", err: ErrSyntax},
		{name: "not an object", text: "[]", err: ErrType},
		{name: "unknown field", old: `{"registered_proof"`, new: `{"extra":1,"registered_proof"`, err: ErrUnknownField, path: "extra"},
		{name: "case matters", old: `"ticket"`, new: `"Ticket"`, err: ErrUnknownField, path: "Ticket"},
		{name: "duplicate field", old: `,"ticket":`, new: `,"seed":[0],"ticket":`, err: ErrDuplicateField, path: "seed"},
		{name: "missing field", old: `,"ticket":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]`, new: ``, err: ErrMissingField, path: "ticket"},
		{name: "unknown proof", old: `"StackedDrg2KiBV1_1"`, new: `"StackedDrg2KiBV9"`, err: ErrUnknownProof, path: "registered_proof"},
		{name: "unknown vanilla key", old: `"StackedDrg2KiBV1":`, new: `"StackedDrg4KiBV1":`, err: ErrUnknownVariant, path: "vanilla_proofs.StackedDrg4KiBV1"},
		{name: "two vanilla keys", old: `]]},"comm_r"`, new: `]],"StackedDrg8MiBV1":[]},"comm_r"`, err: ErrType, path: "vanilla_proofs"},
		{name: "unknown merkle variant", old: `{"data":{"Single"`, new: `{"data":{"Double"`, err: ErrUnknownVariant,
			path: "vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Double"},
		{name: "float index", old: idx0, new: `"index":1.0},`, err: ErrType, path: cdPath + ".index"},
		{name: "exponent index", old: idx0, new: `"index":1e0},`, err: ErrType, path: cdPath + ".index"},
		{name: "negative index", old: idx0, new: `"index":-1},`, err: ErrType, path: cdPath + ".index"},
		{name: "string index", old: idx0, new: `"index":"1"},`, err: ErrType, path: cdPath + ".index"},
		{name: "leading zero", old: idx0, new: `"index":01},`, err: ErrSyntax, path: cdPath + ".index"},
		{name: "index overflow", old: idx0, new: `"index":18446744073709551616},`, err: ErrType, path: cdPath + ".index"},
		{name: "layer overflow", old: `"layer_index":1`, new: `"layer_index":4294967296`, err: ErrType,
			path: "vanilla_proofs.StackedDrg2KiBV1[0][0].labeling_proofs[0].layer_index"},
		{name: "byte overflow", old: `"ticket":[1,`, new: `"ticket":[256,`, err: ErrType, path: "ticket"},
		{name: "short domain", old: `"ticket":[1,`, new: `"ticket":[`, err: ErrType, path: "ticket"},
		{name: "long domain", old: `"ticket":[1,`, new: `"ticket":[1,1,`, err: ErrType, path: "ticket"},
		{name: "null domain", old: `"ticket":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]`, new: `"ticket":null`, err: ErrType, path: "ticket"},
		{name: "_h not null", old: `"_h":null`, new: `"_h":0`, err: ErrType,
			path: "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column._h"},
		{name: "_h missing", old: `,"_h":null`, new: ``, err: ErrMissingField,
			path: "vanilla_proofs.StackedDrg2KiBV1[0][0].replica_column_proofs.c_x.column._h"},
		{name: "bad escape", old: `"ticket"`, new: `"tick\x"`, err: ErrSyntax},
		{name: "escaped key", old: `"ticket"`, new: `"\u0074icket"`},
		{name: "control char", old: `"ticket"`, new: "\"tick\x01et\"", err: ErrSyntax},
		{name: "missing colon", old: `"ticket":`, new: `"ticket"`, err: ErrSyntax},
		{name: "missing comma", old: `,"ticket"`, new: ` "ticket"`, err: ErrSyntax},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.text
			if tc.old != "" {
				if !strings.Contains(raw, tc.old) {
					t.Fatalf("test input lacks %q", tc.old)
				}
				in = strings.Replace(raw, tc.old, tc.new, 1)
			}
			_, err := Parse([]byte(in))
			if tc.err == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			checkErr(t, err, tc.err, tc.path)
		})
	}
}

func checkErr(t *testing.T, err, sentinel error, path string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("error %v, want %v", err, sentinel)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T is not *Error", err)
	}
	if path != "" && e.Path != path {
		t.Errorf("path %q, want %q (%v)", e.Path, path, err)
	}
	for _, other := range allSentinels {
		if other != sentinel && errors.Is(err, other) {
			t.Errorf("error also matches %v", other)
		}
	}
}

var allSentinels = []error{ErrSyntax, ErrType, ErrMissingField, ErrUnknownField, ErrDuplicateField,
	ErrUnknownVariant, ErrUnknownProof, ErrProofMismatch, ErrShape, ErrNonCanonical,
	ErrZeroCommitment, ErrZeroSeed, ErrBase64}

// TestValidateErrors mutates a decoded C1 and checks Validate.
func TestValidateErrors(t *testing.T) {
	raw := rustC1(t, "2KiB")
	const p00 = "vanilla_proofs.StackedDrg2KiBV1[0][0]"
	rModulus := [32]byte{1, 0, 0, 0, 255, 255, 255, 255, 254, 91, 254, 255, 2, 164, 189, 83, 5, 216, 161, 9, 8, 216, 57, 51, 72, 125, 157, 41, 83, 167, 237, 115}
	cases := []struct {
		name   string
		mutate func(o *Output)
		err    error
		path   string
	}{
		{"proof mismatch", func(o *Output) { o.RegisteredProof = filecoin.StackedDrg8MiBV1_1 }, ErrProofMismatch, "vanilla_proofs.StackedDrg2KiBV1"},
		{"invalid proof", func(o *Output) { o.RegisteredProof = 99 }, ErrUnknownProof, "registered_proof"},
		{"V1 and V1_1 share the key", func(o *Output) { o.RegisteredProof = filecoin.StackedDrg2KiBV1 }, nil, ""},
		{"NI partition count", func(o *Output) { o.RegisteredProof = filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep }, ErrShape, "vanilla_proofs.StackedDrg2KiBV1"},
		{"no partitions", func(o *Output) { o.VanillaProofs = nil }, ErrShape, "vanilla_proofs.StackedDrg2KiBV1"},
		{"one challenge", func(o *Output) { o.VanillaProofs[0] = o.VanillaProofs[0][:1] }, ErrShape, "vanilla_proofs.StackedDrg2KiBV1[0]"},
		{"tree_d too short", func(o *Output) { p := &o.VanillaProofs[0][0].CommDProofs; p.Base = p.Base[:5] }, ErrShape, p00 + ".comm_d_proofs.data.Single.path.path"},
		{"tree_d index", func(o *Output) { o.VanillaProofs[0][0].CommDProofs.Base[2].Index = 2 }, ErrShape, p00 + ".comm_d_proofs.data.Single.path.path[2].index"},
		{"tree_d sibling count", func(o *Output) {
			e := &o.VanillaProofs[0][0].CommDProofs.Base[3]
			e.Hashes = append(e.Hashes, e.Hashes[0])
		}, ErrShape, p00 + ".comm_d_proofs.data.Single.path.path[3].hashes"},
		{"tree_d variant", func(o *Output) { o.VanillaProofs[0][0].CommDProofs.Variant = Sub }, ErrShape, p00 + ".comm_d_proofs.data.Sub"},
		{"tree_d sha domain", func(o *Output) { o.VanillaProofs[0][0].CommDProofs.Base[4].Hashes[0][31] |= 0x40 }, ErrNonCanonical, p00 + ".comm_d_proofs.data.Single.path.path[4].hashes[0]"},
		{"tree_d leaf", func(o *Output) { o.VanillaProofs[0][1].CommDProofs.Leaf[31] |= 0x80 }, ErrNonCanonical, "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.leaf"},
		{"tree_r variant", func(o *Output) { o.VanillaProofs[0][0].CommRLastProof.Variant = Top }, ErrShape, p00 + ".comm_r_last_proof.data.Top"},
		{"tree_r levels", func(o *Output) {
			p := &o.VanillaProofs[0][0].CommRLastProof
			p.Base = append(p.Base, p.Base[0])
		}, ErrShape, p00 + ".comm_r_last_proof.data.Single.path.path"},
		{"tree_r index", func(o *Output) { o.VanillaProofs[0][0].CommRLastProof.Base[1].Index = 8 }, ErrShape, p00 + ".comm_r_last_proof.data.Single.path.path[1].index"},
		{"tree_r hash", func(o *Output) { o.VanillaProofs[0][0].CommRLastProof.Base[1].Hashes[6] = rModulus }, ErrNonCanonical, p00 + ".comm_r_last_proof.data.Single.path.path[1].hashes[6]"},
		{"tree_r root", func(o *Output) { o.VanillaProofs[0][0].CommRLastProof.Root = rModulus }, ErrNonCanonical, p00 + ".comm_r_last_proof.data.Single.root"},
		{"5 drg parents", func(o *Output) {
			r := &o.VanillaProofs[0][1].ReplicaColumnProofs
			r.DRGParents = r.DRGParents[:5]
		}, ErrShape, "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.drg_parents"},
		{"9 exp parents", func(o *Output) {
			r := &o.VanillaProofs[0][1].ReplicaColumnProofs
			r.ExpParents = append(r.ExpParents, r.ExpParents[0])
		}, ErrShape, "vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs.exp_parents"},
		{"column height", func(o *Output) {
			c := &o.VanillaProofs[0][0].ReplicaColumnProofs.ExpParents[7].Column
			c.Rows = c.Rows[:1]
		}, ErrShape, p00 + ".replica_column_proofs.exp_parents[7].column.rows"},
		{"column row", func(o *Output) { o.VanillaProofs[0][0].ReplicaColumnProofs.CX.Column.Rows[1] = rModulus }, ErrNonCanonical, p00 + ".replica_column_proofs.c_x.column.rows[1]"},
		{"column inclusion", func(o *Output) {
			o.VanillaProofs[0][0].ReplicaColumnProofs.DRGParents[2].InclusionProof.Base[0].Hashes = nil
		}, ErrShape, p00 + ".replica_column_proofs.drg_parents[2].inclusion_proof.data.Single.path.path[0].hashes"},
		{"labeling layers", func(o *Output) {
			p := &o.VanillaProofs[0][0]
			p.LabelingProofs = p.LabelingProofs[:1]
		}, ErrShape, p00 + ".labeling_proofs"},
		{"36 parents", func(o *Output) {
			l := &o.VanillaProofs[0][0].LabelingProofs[1]
			l.Parents = l.Parents[:36]
		}, ErrShape, p00 + ".labeling_proofs[1].parents"},
		{"labeling parent", func(o *Output) { o.VanillaProofs[0][0].LabelingProofs[0].Parents[36] = rModulus }, ErrNonCanonical, p00 + ".labeling_proofs[0].parents[36]"},
		{"encoding parents", func(o *Output) { o.VanillaProofs[0][0].EncodingProof.Parents = nil }, ErrShape, p00 + ".encoding_proof.parents"},
		{"zero comm_r", func(o *Output) { o.CommR = [32]byte{} }, ErrZeroCommitment, "comm_r"},
		{"comm_r = r", func(o *Output) { o.CommR = rModulus }, ErrNonCanonical, "comm_r"},
		{"zero comm_d", func(o *Output) { o.CommD = [32]byte{} }, ErrZeroCommitment, "comm_d"},
		{"comm_d above 2^254", func(o *Output) { o.CommD[31] |= 0x40 }, ErrNonCanonical, "comm_d"},
		{"replica_id = r", func(o *Output) { o.ReplicaID = rModulus }, ErrNonCanonical, "replica_id"},
		{"zero seed", func(o *Output) { o.Seed = [32]byte{} }, ErrZeroSeed, "seed"},
		{"zero ticket is fine", func(o *Output) { o.Ticket = [32]byte{} }, nil, ""},
		{"r-1 is canonical", func(o *Output) { o.CommR = rModulus; o.CommR[0]-- }, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := Unmarshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			tc.mutate(o)
			err = o.Validate()
			if tc.err == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			checkErr(t, err, tc.err, tc.path)
			// The same failure through the text: Parse reports it too.
			if tc.name != "invalid proof" {
				if _, err := Parse(o.AppendJSON(nil)); !errors.Is(err, tc.err) {
					t.Errorf("Parse of the re-encoded C1: %v, want %v", err, tc.err)
				}
			}
		})
	}
}

func TestWrapped(t *testing.T) {
	raw := rustC1(t, "2KiB")
	o, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	w := Wrap(o, 1)
	enc, err := w.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	// Go's encoding/json writes Curio's struct identically.
	curio, err := json.Marshal(struct {
		SectorNum  int64  `json:"SectorNum"`
		Phase1Out  []byte `json:"Phase1Out"`
		SectorSize uint64 `json:"SectorSize"`
	}{1, raw, 2048})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(enc, curio) {
		t.Fatalf("wrapper differs from encoding/json's:\n%.200s\n%.200s", enc, curio)
	}
	o2, w2, err := ParseAny(enc)
	if err != nil {
		t.Fatal(err)
	}
	if w2 == nil || w2.SectorNum != 1 || w2.SectorSize != 2048 || !bytes.Equal(w2.Phase1Out, raw) {
		t.Fatalf("wrapper fields: %+v", w2)
	}
	if !bytes.Equal(o2.AppendJSON(nil), raw) {
		t.Fatal("wrapped C1 differs")
	}
	if o3, w3, err := ParseAny(raw); err != nil || w3 != nil || o3 == nil {
		t.Fatalf("plain C1 through ParseAny: %v %v", w3, err)
	}

	replace := func(old, new string) []byte {
		if !strings.Contains(string(enc), old) {
			t.Fatalf("no %q", old)
		}
		return []byte(strings.Replace(string(enc), old, new, 1))
	}
	bad := replace(`"SectorSize":2048`, `"SectorSize":8388608`)
	_, _, err = ParseWrapped(bad)
	checkErr(t, err, ErrProofMismatch, "SectorSize")

	_, _, err = ParseWrapped(replace(`"Phase1Out":"`, `"Phase1Out":"!`))
	checkErr(t, err, ErrBase64, "Phase1Out")
	_, _, err = ParseWrapped(replace(`"Phase1Out":"ey`, `"Phase1Out":"\r\ney`))
	checkErr(t, err, ErrBase64, "Phase1Out")
	_, _, err = ParseWrapped(replace(`"SectorNum":1`, `"SectorNum":-1`))
	checkErr(t, err, ErrType, "SectorNum")
	_, _, err = ParseWrapped(replace(`,"SectorSize":2048`, ``))
	checkErr(t, err, ErrMissingField, "SectorSize")

	// An error inside the C1 names its path below Phase1Out.
	o.Seed = [32]byte{}
	w = Wrap(o, 1)
	enc, _ = w.MarshalJSON()
	_, _, err = ParseWrapped(enc)
	checkErr(t, err, ErrZeroSeed, "Phase1Out.seed")
}

func TestErrorText(t *testing.T) {
	raw := strings.Replace(string(rustC1(t, "2KiB")), `"index":1},`, `"index":1.5},`, 1)
	_, err := Parse([]byte(raw))
	const want = "c1: wrong JSON type at vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs.data.Single.path.path[0].index (byte "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "found a floating-point number") {
		t.Fatalf("error text %q", err)
	}
}

func BenchmarkUnmarshal8MiB(b *testing.B) {
	raw := rustC1(b, "8MiB")
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Parse(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMarshal8MiB(b *testing.B) {
	o, err := Parse(rustC1(b, "8MiB"))
	if err != nil {
		b.Fatal(err)
	}
	buf := o.AppendJSON(nil)
	b.SetBytes(int64(len(buf)))
	for b.Loop() {
		buf = o.AppendJSON(buf[:0])
	}
}

// fakeOutput builds a structurally valid C1 of a registered proof with
// arbitrary canonical values, for the production shapes no test seals.
func fakeOutput(t testing.TB, p filecoin.RegisteredSealProof) *Output {
	t.Helper()
	l, err := LayoutFor(p)
	if err != nil {
		t.Fatal(err)
	}
	arities, err := l.TreeArities()
	if err != nil {
		t.Fatal(err)
	}
	var ctr uint32
	dom := func() (d [32]byte) {
		ctr++
		d[0], d[1], d[2], d[3] = byte(ctr), byte(ctr>>8), byte(ctr>>16), byte(ctr>>24)
		d[31] = 0x3f
		return
	}
	doms := func(n int) [][32]byte {
		out := make([][32]byte, n)
		for i := range out {
			out[i] = dom()
		}
		return out
	}
	levels := func(ar []int) []PathElement {
		out := make([]PathElement, len(ar))
		for i, a := range ar {
			out[i] = PathElement{Hashes: doms(a - 1), Index: uint64(i % a)}
		}
		return out
	}
	treeProof := func() MerkleProof {
		m := MerkleProof{Variant: l.Variant(), Root: dom(), Leaf: dom()}
		n := len(arities)
		switch m.Variant {
		case Single:
			m.Base = levels(arities)
		case Sub:
			m.Base, m.Sub = levels(arities[:n-1]), levels(arities[n-1:])
		case Top:
			m.Base, m.Sub, m.Top = levels(arities[:n-2]), levels(arities[n-2:n-1]), levels(arities[n-1:])
		}
		return m
	}
	column := func() ColumnProof {
		return ColumnProof{Column{Index: ctr, Rows: doms(l.Layers)}, treeProof()}
	}
	binary := make([]int, l.TreeDDepth())
	for i := range binary {
		binary[i] = 2
	}
	o := &Output{RegisteredProof: p, CommR: dom(), CommD: dom(), ReplicaID: dom(), Seed: dom(), Ticket: dom()}
	for range l.Partitions {
		part := make([]Proof, l.ChallengesPerPartition)
		for i := range part {
			pr := &part[i]
			pr.CommDProofs = MerkleProof{Root: dom(), Leaf: dom(), Base: levels(binary)}
			pr.CommRLastProof = treeProof()
			pr.ReplicaColumnProofs.CX = column()
			for range filecoin.DRGDegree {
				pr.ReplicaColumnProofs.DRGParents = append(pr.ReplicaColumnProofs.DRGParents, column())
			}
			for range filecoin.ExpansionDegree {
				pr.ReplicaColumnProofs.ExpParents = append(pr.ReplicaColumnProofs.ExpParents, column())
			}
			for layer := range l.Layers {
				pr.LabelingProofs = append(pr.LabelingProofs, LabelingProof{Parents: doms(37), LayerIndex: uint32(layer + 1), Node: 5})
			}
			pr.EncodingProof = EncodingProof{Parents: doms(37), LayerIndex: uint32(l.Layers), Node: 5}
		}
		o.VanillaProofs = append(o.VanillaProofs, part)
	}
	return o
}

// TestProductionShapes round-trips C1s with the 32 GiB (Sub) and 64 GiB
// (Top) shapes and checks that the variants are not interchangeable.
func TestProductionShapes(t *testing.T) {
	testenv.Short(t, "builds two 50 MB C1s")
	for _, tc := range []struct {
		p       filecoin.RegisteredSealProof
		variant ProofVariant
		other   filecoin.RegisteredSealProof
	}{
		{filecoin.StackedDrg32GiBV1_1, Sub, filecoin.StackedDrg64GiBV1_1},
		{filecoin.StackedDrg64GiBV1_1, Top, filecoin.StackedDrg32GiBV1_1},
	} {
		o := fakeOutput(t, tc.p)
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		enc := o.AppendJSON(nil)
		back, err := Parse(enc)
		if err != nil {
			t.Fatal(err)
		}
		if v := back.VanillaProofs[9][17].ReplicaColumnProofs.ExpParents[7].InclusionProof.Variant; v != tc.variant {
			t.Errorf("%v: variant %v", tc.p, v)
		}
		if !bytes.Equal(back.AppendJSON(nil), enc) {
			t.Errorf("%v: round trip differs", tc.p)
		}
		t.Logf("%v: %d bytes of JSON", tc.p, len(enc))
		// The same proofs under the other size's name: wrong key.
		back.RegisteredProof = tc.other
		if err := back.Validate(); !errors.Is(err, ErrProofMismatch) {
			t.Errorf("%v proofs as %v: %v", tc.p, tc.other, err)
		}
		l, _ := LayoutFor(tc.other)
		if err := l.Validate(o.VanillaProofs); !errors.Is(err, ErrShape) {
			t.Errorf("%v proofs in the %v layout: %v", tc.p, tc.other, err)
		}
	}
}

func BenchmarkParse32GiB(b *testing.B) {
	enc := fakeOutput(b, filecoin.StackedDrg32GiBV1_1).AppendJSON(nil)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(enc); err != nil {
			b.Fatal(err)
		}
	}
}
