package engine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestKindsDescribed: the engine serves a list of kinds, each its
// descriptor with its planner; a kind without a planner, served twice,
// not described, or described against the built-in table is refused by
// New, naming it; a kind of one's own is named by its descriptor.
func TestKindsDescribed(t *testing.T) {
	toy := proofkind.Descriptor{Kind: 1001, Name: "toy", DefaultPriority: proofkind.PriorityLow}
	p := testkind.New()
	for _, tc := range []struct {
		name  string
		kinds []engine.Kind
		err   string // "" serves
	}{
		{"built-in", []engine.Kind{engine.Builtin(proofkind.Test, p), engine.Builtin(proofkind.PoRep, p)}, ""},
		{"own kind", []engine.Kind{{Descriptor: toy, Planner: p}}, ""},
		{"no planner", []engine.Kind{engine.Builtin(proofkind.Test, nil)}, `proof kind 1000 ("test"): it has no planner`},
		{"twice", []engine.Kind{engine.Builtin(proofkind.Test, p), engine.Builtin(proofkind.Test, p)}, `proof kind 1000 ("test") is served twice`},
		{"not described", []engine.Kind{engine.Builtin(4242, p)}, "proof kind 4242"},
		{"clash", []engine.Kind{{Descriptor: proofkind.Descriptor{Kind: 1001, Name: "wpost"}, Planner: p}}, "wpost"},
		{"built-in redescribed", []engine.Kind{{Descriptor: proofkind.Descriptor{Kind: proofkind.Test, Name: "mine"}, Planner: p}}, "wire value 1000"},
	} {
		b := budget.New(1 << 30)
		e, err := engine.New(engine.Options{Kinds: tc.kinds, Backend: &cpu.Backend{}, Budget: b,
			Params: srs.NewManager(srs.Options{Locator: testkind.Locator(t.TempDir()), Budget: b})})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.err)
			}
			if strings.Contains(tc.name, "clash") || strings.Contains(tc.name, "redescribed") || tc.name == "not described" {
				if !errors.Is(err, proofkind.ErrConflict) {
					t.Errorf("%s: %v is not proofkind.ErrConflict", tc.name, err)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var names []string
		for _, k := range tc.kinds {
			names = append(names, k.Descriptor.Name)
		}
		slices.Sort(names)
		if st := e.Status(); !slices.Equal(st.Kinds, names) {
			t.Errorf("%s: serves %v, want %v", tc.name, st.Kinds, names)
		}
		e.ReleaseParams()
		_ = e.Shutdown(t.Context())
	}
}
