package seal

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// TestSealReportsProgress: a seal under WithProgress reports every phase
// in order, and inside a counted phase never more than its total nor less
// than before.
func TestSealReportsProgress(t *testing.T) {
	var mu sync.Mutex
	var phases []string
	last := map[string]int64{}
	ctx := WithProgress(context.Background(), func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
		if p.Total > 0 && (p.Done > p.Total || p.Done < 0) {
			t.Errorf("%s: %d of %d", p.Phase, p.Done, p.Total)
		}
		if p.Done < last[p.Phase] && p.Phase != "columns and replica" && p.Phase[:6] != "commit" {
			t.Errorf("%s went back from %d to %d", p.Phase, last[p.Phase], p.Done)
		}
		last[p.Phase] = max(last[p.Phase], p.Done)
	})
	if _, _, err := Seal(ctx, DefaultInput(filecoin.StackedDrg2KiBV1_1), DefaultSeed, 2); err != nil {
		t.Fatal(err)
	}
	want := []string{"tree_d", "parent cache", "labels, layer 1 of 2", "labels, layer 2 of 2",
		"columns and replica", "tree_c", "tree_r_last", "commit, partition 1 of 1"}
	if !slices.Equal(phases, want) {
		t.Fatalf("phases %q, want %q", phases, want)
	}
	if n := last["commit, partition 1 of 1"]; n == 0 {
		t.Errorf("commit reported no challenge proven")
	}
	if n := last["columns and replica"]; n != 64 {
		t.Errorf("columns and replica reported %d of 64 nodes at most", n)
	}
}
