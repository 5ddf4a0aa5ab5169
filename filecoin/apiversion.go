package filecoin

import (
	"errors"
	"fmt"
)

// ErrUnknownAPIVersion is returned when a string names no known api version.
var ErrUnknownAPIVersion = errors.New("unknown api version")

// ErrUnknownAPIFeature is returned when a string names no known api feature.
var ErrUnknownAPIFeature = errors.New("unknown api feature")

// APIVersion is a proofs api version (storage-proofs-core ApiVersion). It
// changes graph construction (DRG parent order, expander narrowing) but never
// the circuit.
//
// The zero value is deliberately invalid so that a forgotten field cannot
// silently select the legacy V1_0_0 graph.
type APIVersion uint8

// Known api versions, ordered.
const (
	V1_0_0 APIVersion = iota + 1
	V1_1_0
	V1_2_0
)

// Valid reports whether v is a known version.
func (v APIVersion) Valid() bool { return v >= V1_0_0 && v <= V1_2_0 }

// String returns the semver form upstream prints ("1.2.0").
func (v APIVersion) String() string {
	switch v {
	case V1_0_0:
		return "1.0.0"
	case V1_1_0:
		return "1.1.0"
	case V1_2_0:
		return "1.2.0"
	}
	return fmt.Sprintf("APIVersion(%d)", uint8(v))
}

// ParseAPIVersion accepts the semver form ("1.1.0", as upstream's FromStr) and
// the enum name ("V1_1_0", as serde writes it).
func ParseAPIVersion(s string) (APIVersion, error) {
	switch s {
	case "1.0.0", "V1_0_0":
		return V1_0_0, nil
	case "1.1.0", "V1_1_0":
		return V1_1_0, nil
	case "1.2.0", "V1_2_0":
		return V1_2_0, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownAPIVersion, s)
}

// APIFeature is an optional proofs feature (storage-proofs-core ApiFeature).
// Features conflict with each other: a proof has at most one.
type APIFeature uint8

// Known api features. The zero value is invalid.
const (
	FeatureSyntheticPoRep APIFeature = iota + 1
	FeatureNonInteractivePoRep
)

// Valid reports whether f is a known feature.
func (f APIFeature) Valid() bool {
	return f == FeatureSyntheticPoRep || f == FeatureNonInteractivePoRep
}

// String returns upstream's Display form ("synthetic-porep").
func (f APIFeature) String() string {
	switch f {
	case FeatureSyntheticPoRep:
		return "synthetic-porep"
	case FeatureNonInteractivePoRep:
		return "non-interactive-porep"
	}
	return fmt.Sprintf("APIFeature(%d)", uint8(f))
}

// FirstSupportedVersion is the first api version that knows the feature.
func (f APIFeature) FirstSupportedVersion() APIVersion {
	if f.Valid() {
		return V1_2_0
	}
	return 0
}

// ParseAPIFeature accepts upstream's Display form ("synthetic-porep") and the
// enum name ("SyntheticPoRep").
func ParseAPIFeature(s string) (APIFeature, error) {
	switch s {
	case "synthetic-porep", "SyntheticPoRep":
		return FeatureSyntheticPoRep, nil
	case "non-interactive-porep", "NonInteractivePoRep":
		return FeatureNonInteractivePoRep, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrUnknownAPIFeature, s)
}

// ChallengeMode says how PoRep challenges are derived and hence how many
// partitions a proof has. It follows from a seal proof's feature.
type ChallengeMode uint8

// Challenge modes. The zero value is Interactive, upstream's default when no
// feature is set.
const (
	Interactive    ChallengeMode = iota // seed-derived challenges (V1, V1_1)
	Synthetic                           // SyntheticPoRep: interactive counts, synthetic selection
	NonInteractive                      // NonInteractivePoRep: many partitions, no seed
)

// String returns a short lower-case name.
func (m ChallengeMode) String() string {
	switch m {
	case Interactive:
		return "interactive"
	case Synthetic:
		return "synthetic"
	case NonInteractive:
		return "non-interactive"
	}
	return fmt.Sprintf("ChallengeMode(%d)", uint8(m))
}

// Valid reports whether m is a known mode.
func (m ChallengeMode) Valid() bool { return m <= NonInteractive }
