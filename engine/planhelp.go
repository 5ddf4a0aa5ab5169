package engine

import (
	"fmt"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Invalid is the error a Planner returns for a request it refuses: it
// wraps ErrInvalidRequest, then names the kind (its queue name, so the
// message says whose request it was) and the field at fault. format may
// use %w, so the cause stays matchable (porep.ErrVanillaInvalid,
// post.ErrChallenge, ...).
func Invalid(kind, format string, args ...any) error {
	return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalidRequest, kind}, args...)...)
}

// FirstDifference is the index of the first public input in which a
// circuit's (got) and the verifier's (want) differ, -1 when they are
// equal; a length that differs is an error. Planners tie the circuit they
// build to the inputs they derive from public values with it, each naming
// a difference in its own terms.
func FirstDifference(got, want []fr.Element) (int, error) {
	if len(got) != len(want) {
		return 0, fmt.Errorf("the circuit has %d public inputs, the verifier %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return i, nil
		}
	}
	return -1, nil
}
