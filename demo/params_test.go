package demo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
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
