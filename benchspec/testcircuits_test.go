package benchspec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/testparams"
)

// The JSON wins over the partition count, unknown fields are refused, and
// one partition is the default left unset.
func TestTestOptions(t *testing.T) {
	opt, err := TestOptions(`{"partitions": 3, "synthesis_delay_ms": 7}`, 5)
	if err != nil || opt.Partitions != 3 || opt.SynthesisDelayMS != 7 {
		t.Fatalf("%+v %v", opt, err)
	}
	if opt, err := TestOptions("", 4); err != nil || opt.Partitions != 4 {
		t.Fatalf("%+v %v", opt, err)
	}
	if opt, err := TestOptions("", 1); err != nil || opt != (testkind.Options{}) {
		t.Fatalf("%+v %v", opt, err)
	}
	for _, bad := range []string{`{"partition": 3}`, `{"partitions": "3"}`, `[`} {
		if _, err := TestOptions(bad, 0); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseTestLogRows(t *testing.T) {
	got, err := ParseTestLogRows(" 10,5 ,10,26,4")
	if err != nil || !slices.Equal(got, []int{10, 5, 26, 4}) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"3", "27", "x", "5,", ""} {
		if got, err := ParseTestLogRows(bad); err == nil {
			t.Errorf("%q: %v, no error", bad, got)
		}
	}
}

// A set is made once, as the daemon's locator finds it, and a cancelled
// generation leaves no set behind.
func TestEnsureTestParams(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	params, generated, err := EnsureTestParams(context.Background(), dir, 5, func() { calls++ })
	if err != nil || !generated || calls != 1 {
		t.Fatalf("first: %v %v, %d calls", generated, err, calls)
	}
	if !testparams.FilesAt(params[:len(params)-len(".params")]).Complete() || !testparams.IsTest(params) {
		t.Fatalf("%s: incomplete or unmarked set", params)
	}
	if files, err := testkind.Locator(dir).Locate(testkind.CircuitID(5)); err != nil || files.Params != params {
		t.Fatalf("locator: %v %v", files, err)
	}
	again, generated, err := EnsureTestParams(context.Background(), dir, 5, func() { calls++ })
	if err != nil || generated || calls != 1 || again != params {
		t.Fatalf("second: %s %v %v, %d calls", again, generated, err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	other := t.TempDir()
	if _, generated, err := EnsureTestParams(ctx, other, 6, nil); !errors.Is(err, context.Canceled) || generated {
		t.Fatalf("cancelled: %v %v", generated, err)
	}
	if _, generated, err := EnsureTestParams(context.Background(), filepath.Join(other, "missing"), 99, nil); err == nil || generated {
		t.Fatalf("k 99: %v %v, want a refusal", generated, err)
	}
	if entries, _ := os.ReadDir(other); len(entries) > 0 && testparams.FilesAt(filepath.Join(other, testkind.FileBase(6))).Complete() {
		t.Fatal("a cancelled generation left a complete set")
	}
}
