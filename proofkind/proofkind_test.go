package proofkind_test

import (
	"encoding/json"
	"errors"
	"testing"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// The wire values are the proto's, and every Curio kind has a descriptor.
func TestWireValues(t *testing.T) {
	for k, want := range map[proofkind.Kind]cuzkv1.ProofKind{
		proofkind.Unspecified: cuzkv1.ProofKind_PROOF_KIND_UNSPECIFIED,
		proofkind.PoRep:       cuzkv1.ProofKind_POREP_SEAL_COMMIT,
		proofkind.SnapDeals:   cuzkv1.ProofKind_SNAP_DEALS_UPDATE,
		proofkind.WindowPoSt:  cuzkv1.ProofKind_WINDOW_POST_PARTITION,
		proofkind.WinningPoSt: cuzkv1.ProofKind_WINNING_POST,
	} {
		if int32(k) != int32(want) {
			t.Errorf("%v = %d, the proto's %v is %d", k, int32(k), want, int32(want))
		}
	}
	for v, name := range cuzkv1.ProofKind_name {
		if v == 0 {
			continue
		}
		d, ok := proofkind.Lookup(proofkind.Kind(v))
		if !ok {
			t.Errorf("the proto's %s (%d) has no descriptor", name, v)
			continue
		}
		if !d.Standard {
			t.Errorf("%s is one of Curio's kinds but not Standard", d.Name)
		}
		// The proto's enum name is accepted too.
		if got, err := proofkind.Parse(name); err != nil || got != d.Kind {
			t.Errorf("Parse(%q) = %v, %v; want %v", name, got, err, d.Kind)
		}
	}
	if _, ok := cuzkv1.ProofKind_name[int32(proofkind.Test)]; ok {
		t.Errorf("the test kind's wire value %d is in Curio's enum", proofkind.Test)
	}
	for p, want := range map[proofkind.Priority]cuzkv1.Priority{
		proofkind.PriorityUnspecified: cuzkv1.Priority_PRIORITY_UNSPECIFIED,
		proofkind.PriorityLow:         cuzkv1.Priority_LOW,
		proofkind.PriorityNormal:      cuzkv1.Priority_NORMAL,
		proofkind.PriorityHigh:        cuzkv1.Priority_HIGH,
		proofkind.PriorityCritical:    cuzkv1.Priority_CRITICAL,
	} {
		if int32(p) != int32(want) {
			t.Errorf("%v = %d, the proto's %v is %d", p, int32(p), want, int32(want))
		}
		if p != proofkind.PriorityUnspecified {
			if got, err := proofkind.ParsePriority(want.String()); err != nil || got != p {
				t.Errorf("ParsePriority(%q) = %v, %v", want.String(), got, err)
			}
		}
	}
}

// The names, labels and policies of the built-in kinds: the Rust cuzk's
// queue names and metric labels, Curio's default priorities.
func TestBuiltin(t *testing.T) {
	type row struct {
		name, label, prefix string
		prio                proofkind.Priority
		batch               bool
	}
	want := map[proofkind.Kind]row{
		proofkind.PoRep:       {"porep-c2", "porep_c2", "porep", proofkind.PriorityNormal, true},
		proofkind.SnapDeals:   {"snap-update", "snap_update", "snap", proofkind.PriorityNormal, true},
		proofkind.WindowPoSt:  {"window-post", "window_post", "wpost", proofkind.PriorityHigh, false},
		proofkind.WinningPoSt: {"winning-post", "winning_post", "winning", proofkind.PriorityCritical, false},
		proofkind.Test:        {"test", "test", "test", proofkind.PriorityNormal, true},
	}
	all := proofkind.Builtin().All()
	if len(all) != len(want) {
		t.Fatalf("%d built-in kinds, want %d", len(all), len(want))
	}
	for _, d := range all {
		w := want[d.Kind]
		got := row{d.Name, d.MetricLabel(), d.CircuitPrefix, d.DefaultPriority, d.Batchable}
		if got != w {
			t.Errorf("%d: %+v, want %+v", d.Kind, got, w)
		}
		if d.Kind.String() != d.Name {
			t.Errorf("%d.String() = %q", d.Kind, d.Kind.String())
		}
	}
	if got := proofkind.Kind(7).String(); got != "Kind(7)" {
		t.Errorf("Kind(7).String() = %q", got)
	}
}

// Every old spelling still parses: the CLI's (porep, window-post, snap),
// the Rust cuzk-bench's (wpost, winning, snap-deals, update, seal-commit),
// the metric labels; anything else is refused with the names listed.
func TestParseAliases(t *testing.T) {
	for in, want := range map[string]proofkind.Kind{
		"porep": proofkind.PoRep, "porep-c2": proofkind.PoRep, "PoRep_C2": proofkind.PoRep, "seal-commit": proofkind.PoRep,
		"snap": proofkind.SnapDeals, "snap-update": proofkind.SnapDeals, "snap-deals": proofkind.SnapDeals, "update": proofkind.SnapDeals,
		"wpost": proofkind.WindowPoSt, "window": proofkind.WindowPoSt, "window-post": proofkind.WindowPoSt, "windowpost": proofkind.WindowPoSt, "window_post": proofkind.WindowPoSt,
		"winning": proofkind.WinningPoSt, "winning-post": proofkind.WinningPoSt, "winningpost": proofkind.WinningPoSt,
		"test": proofkind.Test, " TEST ": proofkind.Test,
	} {
		if got, err := proofkind.Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "c2", "post", "porep-c1"} {
		_, err := proofkind.Parse(in)
		if !errors.Is(err, proofkind.ErrUnknownKind) {
			t.Errorf("Parse(%q): %v, want ErrUnknownKind", in, err)
		}
	}
	_, err := proofkind.Parse("c2")
	if want := `unknown proof kind "c2" (porep-c2, snap-update, window-post, winning-post, test)`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if _, err := proofkind.ParsePriority("urgent"); !errors.Is(err, proofkind.ErrUnknownPriority) {
		t.Errorf("ParsePriority(urgent): %v", err)
	}
}

// The request priority policy: a known priority is kept, none takes the
// kind's default, an unknown wire value is NORMAL.
func TestEffectivePriority(t *testing.T) {
	win, _ := proofkind.Lookup(proofkind.WinningPoSt)
	for in, want := range map[proofkind.Priority]proofkind.Priority{
		proofkind.PriorityUnspecified: proofkind.PriorityCritical,
		proofkind.PriorityLow:         proofkind.PriorityLow,
		proofkind.PriorityHigh:        proofkind.PriorityHigh,
		99:                            proofkind.PriorityNormal,
		-1:                            proofkind.PriorityNormal,
	} {
		if got := win.EffectivePriority(in); got != want {
			t.Errorf("winning-post, requested %d: %v, want %v", in, got, want)
		}
	}
	var unknown proofkind.Descriptor
	if got := unknown.EffectivePriority(proofkind.PriorityUnspecified); got != proofkind.PriorityNormal {
		t.Errorf("unknown kind, no priority: %v, want normal", got)
	}
}

// A set grows by descriptors that clash with nothing in it.
func TestSetWith(t *testing.T) {
	toy := proofkind.Descriptor{Kind: 1001, Name: "toy", Aliases: []string{"toy-proof"}, DefaultPriority: proofkind.PriorityLow, CircuitPrefix: "toy"}
	s, err := proofkind.Builtin().With(toy)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := s.Parse("TOY_PROOF"); err != nil || d.Kind != 1001 {
		t.Errorf("Parse(TOY_PROOF) = %+v, %v", d, err)
	}
	if s.Name(1001) != "toy" || proofkind.Builtin().Name(1001) != "Kind(1001)" {
		t.Errorf("names: %q, built-in %q", s.Name(1001), proofkind.Builtin().Name(1001))
	}
	if _, ok := proofkind.Lookup(1001); ok {
		t.Error("With changed the built-in set")
	}
	for name, d := range map[string]proofkind.Descriptor{
		"same wire value":  {Kind: proofkind.PoRep, Name: "other"},
		"same name":        {Kind: 1002, Name: "porep-c2"},
		"alias of another": {Kind: 1002, Name: "x", Aliases: []string{"WPOST"}},
		"no name":          {Kind: 1002},
		"wire value 0":     {Name: "zero"},
	} {
		if _, err := proofkind.Builtin().With(d); !errors.Is(err, proofkind.ErrConflict) {
			t.Errorf("%s: %v, want ErrConflict", name, err)
		}
	}
}

// Kinds read and write JSON as their names.
func TestKindJSON(t *testing.T) {
	var v struct {
		K proofkind.Kind `json:"k"`
	}
	if err := json.Unmarshal([]byte(`{"k":"wpost"}`), &v); err != nil || v.K != proofkind.WindowPoSt {
		t.Fatalf("unmarshal: %v, %v", v.K, err)
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"k":"window-post"}` {
		t.Fatalf("marshal: %s, %v", b, err)
	}
	v.K = 77
	if _, err := json.Marshal(v); !errors.Is(err, proofkind.ErrUnknownKind) {
		t.Errorf("marshal of an unknown kind: %v", err)
	}
}
