package gpu

import (
	"errors"
	"fmt"

	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// checkBatch checks a whole batch before anything is handed to the device.
func checkBatch(p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) error {
	if len(parts) == 0 {
		return errors.New("gpu: nothing to prove")
	}
	if len(rnd) != len(parts) {
		return fmt.Errorf("gpu: %d circuits but %d randomness pairs", len(parts), len(rnd))
	}
	if p.VK.DeltaG1.IsInfinity() || p.VK.DeltaG2.IsInfinity() {
		return errors.New("gpu: δ is the identity in the parameters")
	}
	for i, pa := range parts {
		// The kernels only assert shapes (an assert aborts the process),
		// so every count they rely on is checked first.
		if err := groth16.CheckShape(p, pa); err != nil {
			return fmt.Errorf("circuit %d: %w", i, err)
		}
	}
	return nil
}
