package demo

import (
	"context"
	"errors"
	"math"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
)

// ParamsDir refuses parameters too big for the machine and the official
// cache (by its configured name), and picks the test cache when given no
// directory.
func TestParamsDir(t *testing.T) {
	official, cache := t.TempDir(), t.TempDir()
	t.Setenv(filecoin.ParameterCacheEnv, official)
	t.Setenv("CUZK_TEST_PARAMS", cache)
	big := func() (uint64, error) { return 1 << 40, nil }
	if dir, err := ParamsDir(filecoin.CircuitUpdate2K, "", big); err != nil || dir != cache {
		t.Fatalf("default: %q %v", dir, err)
	}
	mine := t.TempDir()
	if dir, err := ParamsDir(filecoin.CircuitUpdate2K, mine, big); err != nil || dir != mine {
		t.Fatalf("given: %q %v", dir, err)
	}
	if _, err := ParamsDir(filecoin.CircuitUpdate2K, official, big); err == nil || !strings.Contains(err.Error(), "is the official parameter cache") {
		t.Errorf("official: %v", err)
	}
	small := func() (uint64, error) { return 1 << 30, nil }
	if _, err := ParamsDir(filecoin.CircuitWindowPoSt32G, mine, small); err == nil || !strings.Contains(err.Error(), "need more than") {
		t.Errorf("too big: %v", err)
	}
}

// A cancelled generation fails with the context's error and leaves no
// set behind, through GenParams and Params alike. (A real generation takes
// minutes on a loaded machine: cmd/cuzk's demo and params gen tests make
// one.)
func TestParamsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := filecoin.CircuitUpdate2K
	dir := t.TempDir()
	files, generated, err := GenParams(ctx, c, dir, GenOptions{Workers: 1})
	if !errors.Is(err, context.Canceled) || generated {
		t.Fatalf("GenParams: %v %v", generated, err)
	}
	if files.Complete() {
		t.Fatal("a cancelled generation left a complete set")
	}
	if _, vk, generated, err := Params(ctx, c, dir, 1, nil); !errors.Is(err, context.Canceled) || generated || vk != nil {
		t.Fatalf("Params: %v %v %v", vk != nil, generated, err)
	}
}

// HeapLimit sets the process's memory limit from the setup's plan, and
// only when asked: the generation is cancelled as soon as the plan has
// passed (its first phase after the count), so the test stays short.
func TestGenParamsHeapLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	for _, limit := range []bool{false, true} {
		debug.SetMemoryLimit(math.MaxInt64)
		ctx, cancel := context.WithCancel(context.Background())
		var phases []string
		cancelAfterPlan := func(p groth16.SetupProgress) {
			phases = append(phases, p.Phase)
			if p.Phase != "count" {
				cancel()
			}
		}
		var planned int64
		opt := GenOptions{Workers: 1, Progress: cancelAfterPlan}
		if limit {
			opt.HeapLimit = func(p int64) int64 { planned = p; return p + 1<<30 }
		}
		_, _, err := GenParams(ctx, filecoin.CircuitUpdate2K, t.TempDir(), opt)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("HeapLimit %v: %v (phases %v)", limit, err, phases)
		}
		got := debug.SetMemoryLimit(-1)
		switch {
		case !limit && got != math.MaxInt64:
			t.Errorf("without HeapLimit the limit moved to %d", got)
		case limit && (planned <= 0 || got != planned+1<<30):
			t.Errorf("HeapLimit: limit %d, want the setup's heap (%d) plus 1 GiB", got, planned)
		}
	}
}

// ProgressLines writes a line at each phase change and at the end of a
// phase, skips updates in between, and shows counts, shares and the time
// left.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	p := ProgressLines(&b, "params gen x", time.Hour)
	p(groth16.SetupProgress{Phase: "count", Done: 10})
	p(groth16.SetupProgress{Phase: "count", Done: 20})
	p(groth16.SetupProgress{Phase: "a", Done: 1, Total: 4, Fraction: 0.25, Remaining: 90 * time.Second})
	p(groth16.SetupProgress{Phase: "a", Done: 2, Total: 4, Fraction: 0.5})
	p(groth16.SetupProgress{Phase: "a", Done: 4, Total: 4, Fraction: 1})
	p(groth16.SetupProgress{Phase: "fold l", Done: 3, Total: 3, Fraction: 0.75})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		"params gen x: count (10 rows), 0% of the setup",
		"params gen x: a  25% (1 of 4 points), 25% of the setup, about 1m30s left",
		"params gen x: a 100% (4 of 4 points)",
		"params gen x: fold l 100% (3 of 3 rows), 75% of the setup",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), b.String())
	}
	for i, l := range lines {
		if _, rest, ok := strings.Cut(l, "s] "); !ok || rest != want[i] || !strings.HasPrefix(l, "[") {
			t.Errorf("line %d: %q, want [elapsed] %q", i, l, want[i])
		}
	}
}
