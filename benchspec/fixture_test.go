package benchspec

import (
	"context"
	"reflect"
	"testing"

	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// A fixture's spec is its request as Curio sends it, and the same request
// rebuilt from its vanilla proofs and public fields (bench --vanilla)
// describes itself alike: circuit, partitions, public values.
func TestFixtureAndVanillaSpec(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []proofkind.Kind{proofkind.WinningPoSt, proofkind.SnapDeals} {
		f, err := demo.NewFixture(ctx, kind, filecoin.SectorSize2KiB, 1000, 1)
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		spec := FixtureSpec(f)
		w := spec.Template
		if w.RegisteredProof != f.Request.RegisteredProof || len(w.VanillaProofs) != len(f.Request.VanillaProofs) || spec.Kind() != kind ||
			w.MinerId != 1000 || spec.Circuit != string(f.Circuit) || spec.Public != f.Public || spec.Method != f.Method {
			t.Fatalf("%v: fixture spec %+v", kind, spec)
		}
		back := VanillaSpec(kind, w.VanillaProofs, VanillaOptions{RegisteredProof: w.RegisteredProof, SectorNumber: w.SectorNumber, MinerID: w.MinerId,
			Randomness: w.Randomness, CommROld: w.CommROld, CommRNew: w.CommRNew, CommDNew: w.CommDNew})
		if back.Circuit != spec.Circuit || back.Partitions != spec.Partitions || back.Template.SectorSize != 2048 || back.Method == "" {
			t.Fatalf("%v: from the vanilla proofs %+v, the fixture's %+v", kind, back.Spec, spec.Spec)
		}
		if !reflect.DeepEqual(back.Public, spec.Public) {
			t.Fatalf("%v: public values from the vanilla proofs %+v, the fixture's %+v", kind, back.Public, spec.Public)
		}
	}
}

// What VanillaSpec fills by default, and a request it cannot describe
// left without a verifier rather than refused.
func TestVanillaSpecDefaults(t *testing.T) {
	s := VanillaSpec(proofkind.WindowPoSt, [][]byte{{1, 2, 3}}, VanillaOptions{RegisteredProof: uint64(filecoin.StackedDrgWindow2KiBV1_2)})
	if s.Template.SectorNumber != seal.DefaultSector || len(s.Template.Randomness) != 32 || s.Circuit != "wpost-2k" || s.Partitions != 1 {
		t.Fatalf("defaults: %+v", s.Template)
	}
	if s.Public != nil {
		t.Fatalf("undecodable vanilla proofs got public values %+v", s.Public)
	}
	if s := VanillaSpec(proofkind.SnapDeals, nil, VanillaOptions{RegisteredProof: 99}); s.Circuit != "" || s.Public != nil || s.Template.Randomness != nil {
		t.Fatalf("unknown update proof: %+v", s.Spec)
	}
}
