package c1gen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

func generate(t *testing.T, p filecoin.RegisteredSealProof) *Result {
	t.Helper()
	r, err := Generate(context.Background(), DefaultParams(p), 2)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A generated C1 passes the native vanilla check at every size, 32 and
// 64 GiB included (the tree shapes 8-8-0 and 8-8-2 no sealed sector here has).
func TestGeneratedPassesVanillaCheck(t *testing.T) {
	for _, p := range []filecoin.RegisteredSealProof{
		filecoin.StackedDrg2KiBV1_1, filecoin.StackedDrg8MiBV1_1, filecoin.StackedDrg512MiBV1_1,
		filecoin.StackedDrg32GiBV1_1, filecoin.StackedDrg64GiBV1_1,
	} {
		t.Run(p.SectorSize().String(), func(t *testing.T) {
			r := generate(t, p)
			if err := porep.VerifyVanilla(context.Background(), r.Output, 2); err != nil {
				t.Fatal(err)
			}
			cfg, _ := porep.ConfigFor(p)
			if got, want := len(r.Output.VanillaProofs), cfg.Partitions(); got != want {
				t.Fatalf("%d partitions, want %d", got, want)
			}
			if r.Challenged == 0 || r.Columns < r.Challenged {
				t.Fatalf("challenged %d, columns %d", r.Challenged, r.Columns)
			}
		})
	}
}

// Any change to what a proof reads is caught: the generator is not
// producing something the check waves through.
func TestGeneratedTamperedFails(t *testing.T) {
	for name, tamper := range map[string]func(o *c1.Output){
		"label":    func(o *c1.Output) { o.VanillaProofs[0][1].LabelingProofs[1].Parents[7][0] ^= 1 },
		"column":   func(o *c1.Output) { o.VanillaProofs[0][1].ReplicaColumnProofs.ExpParents[2].Column.Rows[1][1] ^= 1 },
		"seed":     func(o *c1.Output) { o.Seed[0] ^= 1 },
		"comm_r":   func(o *c1.Output) { o.CommR[0] ^= 1 },
		"data":     func(o *c1.Output) { o.VanillaProofs[0][0].CommDProofs.Leaf[0] ^= 1 },
		"replica":  func(o *c1.Output) { o.VanillaProofs[0][0].CommRLastProof.Leaf[0] ^= 1 },
		"encoding": func(o *c1.Output) { o.VanillaProofs[0][1].EncodingProof.Parents[0][2] ^= 1 },
	} {
		t.Run(name, func(t *testing.T) {
			r := generate(t, filecoin.StackedDrg8MiBV1_1)
			tamper(r.Output)
			if err := porep.VerifyVanilla(context.Background(), r.Output, 2); err == nil {
				t.Fatal("tampered output accepted")
			}
		})
	}
}

// The generated output has the shape of a sector sealed by rust-fil-proofs
// (testdata/rustref/seal), field by field: the JSON of both, with every
// scalar replaced by its kind, is the same tree (keys, variants, array
// lengths: partitions, challenges, path lengths and arities, column heights,
// parent counts). The values differ: the data and the columns no challenge
// reaches are chosen, not sealed.
func TestGeneratedShapeMatchesRustSealed(t *testing.T) {
	for _, p := range []filecoin.RegisteredSealProof{filecoin.StackedDrg2KiBV1_1, filecoin.StackedDrg8MiBV1_1} {
		t.Run(p.SectorSize().String(), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "rustref", "seal", p.SectorSize().String(), "c1.json"))
			if err != nil {
				t.Fatal(err)
			}
			sealed, err := c1.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if sealed.RegisteredProof != p {
				t.Fatalf("golden is %v", sealed.RegisteredProof)
			}
			gen := generate(t, p).Output.AppendJSON(nil)
			got, want := skeleton(t, gen), skeleton(t, raw)
			if got != want {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("JSON shape differs at character %d:\n got …%s\nwant …%s", i, clip(got, i), clip(want, i))
			}
		})
	}
}

func clip(s string, i int) string { return s[max(0, i-80):min(len(s), i+80)] }

// skeleton is the JSON document with every number replaced by "n", every
// string by "s" and null kept: what is left is its shape.
func skeleton(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			b.WriteByte('{')
			for _, k := range keys {
				b.WriteString(k + ":")
				walk(x[k])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for _, e := range x {
				walk(e)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		case json.Number:
			b.WriteByte('n')
		case string:
			b.WriteByte('s')
		case nil:
			b.WriteString("null")
		default:
			fmt.Fprintf(&b, "%T", x)
		}
	}
	walk(v)
	return b.String()
}

func TestGenerateRefusesCommRChallenges(t *testing.T) {
	for _, p := range []filecoin.RegisteredSealProof{filecoin.StackedDrg2KiBV1_1_Feat_SyntheticPoRep, filecoin.StackedDrg2KiBV1_2_Feat_NonInteractivePoRep} {
		if _, err := Generate(context.Background(), DefaultParams(p), 1); !errors.Is(err, ErrChallengeMode) {
			t.Errorf("%v: %v, want ErrChallengeMode", p, err)
		}
	}
}

func TestGenerateRejectsBadBlock(t *testing.T) {
	p := DefaultParams(filecoin.StackedDrg2KiBV1_1)
	p.Block = make([]byte, 96) // three nodes: not a power of two
	if _, err := Generate(context.Background(), p, 1); err == nil {
		t.Fatal("3-node block accepted")
	}
	p.Block = make([]byte, 64)
	p.Block[31] = 0xff
	if _, err := Generate(context.Background(), p, 1); !errors.Is(err, seal.ErrDataNotPadded) {
		t.Fatalf("unpadded block: %v", err)
	}
}

// The same parameters give the same bytes.
func TestGenerateDeterministic(t *testing.T) {
	a := generate(t, filecoin.StackedDrg2KiBV1_1).Output.AppendJSON(nil)
	b := generate(t, filecoin.StackedDrg2KiBV1_1).Output.AppendJSON(nil)
	if string(a) != string(b) {
		t.Fatal("two runs differ")
	}
}
