package circuit

import (
	"fmt"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testenv"
)

// The other three 8 MiB partitions' goldens (10 M rows each into a
// recorder, about 10 s of CPU each) run in the end-to-end pass
// (CUZK_E2E=1), which .ci/run runs.
func TestGoldenUpdate8MiBOtherPartitions(t *testing.T) {
	testenv.E2E(t, "three 10 M-row golden digests")
	for _, k := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("update_8MiB_p%d", k), func(t *testing.T) { compareUpdateGolden(t, "8MiB", k) })
	}
}
