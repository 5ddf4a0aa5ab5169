package testparams

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bls "github.com/consensys/gnark-crypto/ecc/bls12-381"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testcircuits"
)

// Files without a test marker are someone else's: Generate and Ensure must
// refuse to write over a .params or a .vk that has none.
func TestRefusesUnmarkedFiles(t *testing.T) {
	for _, which := range []string{"params", "vk"} {
		dir := t.TempDir()
		f, err := PathsFor(filecoin.StackedDrg2KiBV1_1, dir)
		if err != nil {
			t.Fatal(err)
		}
		path := f.Params
		if which == "vk" {
			path = f.VK
		}
		os.WriteFile(path, []byte("official"), 0o644)
		_, _, err = Ensure(context.Background(), filecoin.StackedDrg2KiBV1_1, dir, Options{})
		if !errors.Is(err, ErrOfficialExists) {
			t.Fatalf("%s: err = %v", which, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "official" {
			t.Fatalf("%s overwritten", which)
		}
	}
}

func TestToxicWasteDeterministic(t *testing.T) {
	a, b, c := ToxicWaste(DefaultSeed), ToxicWaste(DefaultSeed), ToxicWaste("other")
	if a != b || a == c {
		t.Fatal("toxic waste is not a function of the seed")
	}
	if a.Tau.IsZero() || a.Gamma.IsZero() || a.Delta.IsZero() {
		t.Fatal("zero toxic waste")
	}
}

func smallParams(t *testing.T) *groth16.Params {
	t.Helper()
	p, err := groth16.Setup(testcircuits.Cubic{X: 3}, ToxicWaste("write-test"), groth16.SetupOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Write leaves exactly the marker, .params and .vk, with the right bytes,
// and nothing temporary.
func TestWriteSet(t *testing.T) {
	dir := t.TempDir()
	f := FilesAt(filepath.Join(dir, "set"))
	if f.Complete() {
		t.Fatal("empty directory holds a complete set")
	}
	p := smallParams(t)
	if err := Write(f, p, "note\n"); err != nil {
		t.Fatal(err)
	}
	if !f.Complete() || !IsTest(f.Params) {
		t.Fatal("set incomplete or unmarked after Write")
	}
	if b, _ := os.ReadFile(f.Marker); string(b) != "note\n" {
		t.Fatalf("marker holds %q", b)
	}
	got, err := groth16.LoadParamsFile(f.Params, groth16.LoadOptions{SubgroupChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	var want, have bytes.Buffer
	p.WriteTo(&want)
	got.WriteTo(&have)
	if !bytes.Equal(want.Bytes(), have.Bytes()) {
		t.Fatal(".params does not hold the parameters")
	}
	vk, err := groth16.ReadVerifyingKeyFile(f.VK)
	if err != nil || !bytes.Equal(vk.Bytes(), p.VK.Bytes()) {
		t.Fatalf(".vk does not hold the key: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("%d files in the directory, want 3", len(entries))
	}
	// A marked set may be rewritten.
	if err := Write(f, p, "again\n"); err != nil {
		t.Fatal(err)
	}
}

// Write refuses an unmarked .params or .vk before writing anything, marker
// included.
func TestWriteRefusesUnmarked(t *testing.T) {
	p := smallParams(t)
	for _, which := range []string{"params", "vk"} {
		dir := t.TempDir()
		f := FilesAt(filepath.Join(dir, "set"))
		path := map[string]string{"params": f.Params, "vk": f.VK}[which]
		if err := os.WriteFile(path, []byte("official"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := Write(f, p, "note"); !errors.Is(err, ErrOfficialExists) {
			t.Fatalf("%s: err = %v", which, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "official" {
			t.Fatalf("%s overwritten", which)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Fatalf("%s: Write left %d files", which, len(entries))
		}
	}
}

// The marker is in place before the .params appears: when writing the
// .params fails, the marker is there and no .params is.
func TestWriteMarkerFirst(t *testing.T) {
	dir := t.TempDir()
	f := FilesAt(filepath.Join(dir, "set"))
	f.Params = filepath.Join(dir, "missing", "set.params") // cannot be created
	if err := Write(f, smallParams(t), "note"); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
	if !exists(f.Marker) || exists(f.Params) || exists(f.VK) {
		t.Fatalf("marker %v params %v vk %v", exists(f.Marker), exists(f.Params), exists(f.VK))
	}
}

// countdownCtx reports cancellation from its n-th Err call on, so a test
// can end the context at every check WriteContext makes in turn.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestWriteContextCancelled: whichever check sees the context end first,
// WriteContext stops with the context's error, removes its temporary
// file, and leaves under the official names only complete files (written
// before the cancellation); with enough checks to spare it writes the
// whole set.
func TestWriteContextCancelled(t *testing.T) {
	p := smallParams(t)
	big := *p
	_, _, g1, _ := bls.Generators()
	big.H = make([]bls.G1Affine, 1<<16) // 6 MiB: several buffered flushes
	for i := range big.H {
		big.H[i] = g1
	}
	var want bytes.Buffer
	if _, err := big.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	for n := 0; ; n++ {
		dir := t.TempDir()
		f := FilesAt(filepath.Join(dir, "set"))
		err := WriteContext(&countdownCtx{Context: context.Background(), n: n}, f, &big, "note")
		if tmps, _ := filepath.Glob(filepath.Join(dir, "*"+tmpInfix+"*")); len(tmps) > 0 {
			t.Fatalf("n=%d: temporary files left: %v", n, tmps)
		}
		if b, rerr := os.ReadFile(f.Params); rerr == nil && !bytes.Equal(b, want.Bytes()) {
			t.Fatalf("n=%d: a partial .params (%d of %d bytes) under the official name", n, len(b), want.Len())
		}
		if err == nil {
			if !f.Complete() || n < 8 {
				t.Fatalf("n=%d: complete %v after only %d checks", n, f.Complete(), n)
			}
			return
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("n=%d: %v", n, err)
		}
		if exists(f.VK) {
			t.Fatalf("n=%d: cancelled, yet the .vk (written last) exists", n)
		}
	}
}

// TestEnsureRemovesStaleTemps: temporary files a killed writer left beside
// a set are removed by the next Ensure of that set (under the lock);
// others' files are left alone.
func TestEnsureRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	f, err := PathsFor(filecoin.StackedDrg2KiBV1_1, dir)
	if err != nil {
		t.Fatal(err)
	}
	stale := f.Params + tmpInfix + "12345"
	other := filepath.Join(dir, "other.params"+tmpInfix+"1")
	for _, p := range []string{stale, other, f.Params, f.VK} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Unmarked .params: Ensure refuses to generate, after the cleanup.
	if _, _, err := Ensure(context.Background(), filecoin.StackedDrg2KiBV1_1, dir, Options{}); !errors.Is(err, ErrOfficialExists) {
		t.Fatalf("ensure: %v", err)
	}
	if exists(stale) || !exists(other) {
		t.Fatalf("stale temp exists %v, other's temp exists %v", exists(stale), exists(other))
	}
}
