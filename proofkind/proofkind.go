// Package proofkind describes each proof kind cuzk serves once: its wire
// value, its one name (status, CLI, logs; the metric label is derived from
// it), the spellings accepted for it, its default priority, whether its
// requests batch, and the prefix of its circuit ids. The engine, the
// client, the bench, the server and cmd/cuzk derive what they say about a
// kind from its Descriptor; filecoin derives its circuit ids from the
// prefix.
//
// The package imports nothing of cuzk, so it sits below both the wire
// contract's users and the proof packages. The values of Kind and Priority
// are the cuzk.v1 wire values (a test pins them to the proto's).
package proofkind

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kind is a proof kind: its value is the cuzk.v1 ProofKind wire value.
type Kind int32

// The kinds cuzk serves. Test lies far outside Curio's enum (0..4), so no
// Filecoin request carries it by accident; a daemon serves it only when
// started with --enable-test-circuits.
const (
	Unspecified Kind = 0
	PoRep       Kind = 1 // POREP_SEAL_COMMIT: C2 of a sealed sector
	SnapDeals   Kind = 2 // SNAP_DEALS_UPDATE: EmptySectorUpdate
	WindowPoSt  Kind = 3 // WINDOW_POST_PARTITION
	WinningPoSt Kind = 4 // WINNING_POST
	Test        Kind = 1000
)

// Priority orders jobs, higher first; its values are the cuzk.v1 Priority
// wire values.
type Priority int32

// Priorities.
const (
	PriorityUnspecified Priority = 0
	PriorityLow         Priority = 1
	PriorityNormal      Priority = 2
	PriorityHigh        Priority = 3
	PriorityCritical    Priority = 4
)

// String names the priority ("low", "normal", "high", "critical";
// "unspecified" for anything else).
func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityNormal:
		return "normal"
	case PriorityHigh:
		return "high"
	case PriorityCritical:
		return "critical"
	}
	return "unspecified"
}

// ErrUnknownPriority is returned by ParsePriority for a name it does not
// know.
var ErrUnknownPriority = errors.New("unknown priority")

// ParsePriority reads a priority name, case-insensitively; "" is
// PriorityUnspecified (the kind's default applies).
func ParsePriority(s string) (Priority, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return PriorityUnspecified, nil
	case "low":
		return PriorityLow, nil
	case "normal":
		return PriorityNormal, nil
	case "high":
		return PriorityHigh, nil
	case "critical":
		return PriorityCritical, nil
	}
	return 0, fmt.Errorf("%w %q (low, normal, high or critical)", ErrUnknownPriority, s)
}

// Descriptor is everything cuzk says about a proof kind outside the
// kind's own packages.
type Descriptor struct {
	Kind Kind
	// Name is the kind's one spelling: GetStatus queues and jobs, the
	// status page, logs, errors, the CLI's output. The built-in names are
	// the Rust cuzk's queue names, which Curio's status readers know.
	Name string
	// Aliases are other spellings Parse accepts (the CLI's and the Rust
	// cuzk-bench's older names). Parse ignores case and reads '_' as '-'.
	Aliases []string
	// DefaultPriority is the priority of a request that names none.
	DefaultPriority Priority
	// Batchable says whether same-circuit requests of the kind may be
	// proved together. PoSt never is: its deadlines do not allow waiting
	// for company.
	Batchable bool
	// CircuitPrefix is the first part of the kind's circuit ids
	// ("porep" in "porep-32g"), which name its parameter files.
	CircuitPrefix string
	// Standard marks Curio's kinds: GetStatus lists their queues whether
	// the daemon serves them or not, so Curio's backpressure sum sees the
	// entries the Rust cuzk reports.
	Standard bool
}

// MetricLabel is the proof_kind label of the kind's metrics: the name with
// '-' as '_' ("porep_c2"), as the Rust cuzk labels them.
func (d Descriptor) MetricLabel() string { return strings.ReplaceAll(d.Name, "-", "_") }

// EffectivePriority is the priority a request of the kind runs at: its
// own when it names a known one, the kind's default when it names none,
// and NORMAL for an unknown wire value (as the Rust cuzk does).
func (d Descriptor) EffectivePriority(requested Priority) Priority {
	switch requested {
	case PriorityLow, PriorityNormal, PriorityHigh, PriorityCritical:
		return requested
	case PriorityUnspecified:
		if d.DefaultPriority != PriorityUnspecified {
			return d.DefaultPriority
		}
	}
	return PriorityNormal
}

// builtin is the table of the kinds this build serves; never written.
var builtin = mustSet(
	Descriptor{Kind: PoRep, Name: "porep-c2", Aliases: []string{"porep", "seal-commit", "porep-seal-commit"},
		DefaultPriority: PriorityNormal, Batchable: true, CircuitPrefix: "porep", Standard: true},
	Descriptor{Kind: SnapDeals, Name: "snap-update", Aliases: []string{"snap", "snap-deals", "update", "snap-deals-update"},
		DefaultPriority: PriorityNormal, Batchable: true, CircuitPrefix: "snap", Standard: true},
	Descriptor{Kind: WindowPoSt, Name: "window-post", Aliases: []string{"wpost", "window", "windowpost", "window-post-partition"},
		DefaultPriority: PriorityHigh, CircuitPrefix: "wpost", Standard: true},
	Descriptor{Kind: WinningPoSt, Name: "winning-post", Aliases: []string{"winning", "winningpost"},
		DefaultPriority: PriorityCritical, CircuitPrefix: "winning", Standard: true},
	Descriptor{Kind: Test, Name: "test", DefaultPriority: PriorityNormal, Batchable: true, CircuitPrefix: "test"},
)

// Builtin is the set of the kinds this build serves.
func Builtin() *Set { return builtin }

// Lookup is the built-in descriptor of k.
func Lookup(k Kind) (Descriptor, bool) { return builtin.Lookup(k) }

// Parse reads a built-in kind's name or alias.
func Parse(s string) (Kind, error) {
	d, err := builtin.Parse(s)
	return d.Kind, err
}

// String is the built-in name of k, or "Kind(N)" for a value no built-in
// kind has.
func (k Kind) String() string {
	if d, ok := builtin.Lookup(k); ok {
		return d.Name
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// MarshalText writes the built-in name; a value without one is refused.
func (k Kind) MarshalText() ([]byte, error) {
	d, ok := builtin.Lookup(k)
	if !ok {
		return nil, fmt.Errorf("%w: %d", ErrUnknownKind, int32(k))
	}
	return []byte(d.Name), nil
}

// UnmarshalText reads a built-in name or alias.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// ErrUnknownKind is returned for a name or value no descriptor of the set
// has.
var ErrUnknownKind = errors.New("unknown proof kind")

// ErrConflict is returned by NewSet and With when two descriptors share a
// wire value, a name or an alias, or a descriptor lacks a name.
var ErrConflict = errors.New("conflicting proof kind descriptors")

// Set is an immutable set of descriptors: the built-in one, or that with a
// kind added (a test's toy kind, a fork's own).
type Set struct {
	list   []Descriptor
	byKind map[Kind]int
	byName map[string]int // normalized names and aliases
}

// normalize is the form names are compared in: lower case, '_' as '-'.
func normalize(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "-")
}

// NewSet builds a set, refusing duplicate wire values, names and aliases
// (a metric label counts as an alias of its kind).
func NewSet(ds ...Descriptor) (*Set, error) {
	s := &Set{byKind: map[Kind]int{}, byName: map[string]int{}}
	for _, d := range ds {
		if d.Name == "" || d.Kind == Unspecified {
			return nil, fmt.Errorf("%w: kind %d named %q: a descriptor needs a name and a wire value other than 0", ErrConflict, int32(d.Kind), d.Name)
		}
		if i, dup := s.byKind[d.Kind]; dup {
			return nil, fmt.Errorf("%w: %q and %q share wire value %d", ErrConflict, s.list[i].Name, d.Name, int32(d.Kind))
		}
		i := len(s.list)
		d.Aliases = append([]string(nil), d.Aliases...)
		for _, n := range append([]string{d.Name}, d.Aliases...) {
			key := normalize(n)
			if j, dup := s.byName[key]; dup && j != i {
				return nil, fmt.Errorf("%w: %q names both %q and %q", ErrConflict, n, s.list[j].Name, d.Name)
			}
			s.byName[key] = i
		}
		s.byKind[d.Kind] = i
		s.list = append(s.list, d)
	}
	return s, nil
}

func mustSet(ds ...Descriptor) *Set {
	s, err := NewSet(ds...)
	if err != nil {
		panic(err)
	}
	return s
}

// With is a new set holding s's descriptors and ds.
func (s *Set) With(ds ...Descriptor) (*Set, error) {
	return NewSet(append(s.All(), ds...)...)
}

// All lists the descriptors in the order the set was built.
func (s *Set) All() []Descriptor {
	out := make([]Descriptor, len(s.list))
	copy(out, s.list)
	return out
}

// Lookup is the descriptor of wire value k.
func (s *Set) Lookup(k Kind) (Descriptor, bool) {
	i, ok := s.byKind[k]
	if !ok {
		return Descriptor{}, false
	}
	return s.list[i], true
}

// Name is the set's name of k, or "Kind(N)" for a value it lacks.
func (s *Set) Name(k Kind) string {
	if d, ok := s.Lookup(k); ok {
		return d.Name
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Parse reads a name or an alias, case-insensitively, '_' as '-'.
func (s *Set) Parse(name string) (Descriptor, error) {
	if i, ok := s.byName[normalize(name)]; ok {
		return s.list[i], nil
	}
	names := make([]string, len(s.list))
	for i, d := range s.list {
		names[i] = d.Name
	}
	return Descriptor{}, fmt.Errorf("%w %q (%s)", ErrUnknownKind, name, strings.Join(names, ", "))
}
