//go:build heavy

package circuit

import (
	"fmt"
	"testing"
)

// The other three 8 MiB partitions' goldens (about 10 s of CPU each), with
// -tags heavy.
func TestGoldenUpdate8MiBOtherPartitions(t *testing.T) {
	for _, k := range []int{0, 1, 2} {
		t.Run(fmt.Sprintf("update_8MiB_p%d", k), func(t *testing.T) { compareUpdateGolden(t, "8MiB", k) })
	}
}
