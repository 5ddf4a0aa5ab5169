package testkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/testparams"
)

// The test circuits' parameters (engine/testkind, fixed public toxic
// waste) are the same bytes for every test, so they are generated once per
// machine into a cache directory that every test process shares, as the
// 2 KiB Filecoin test parameters are: the first `go test ./...` on a clean
// machine pays for them once, later ones not at all.
var (
	paramsMu   sync.Mutex
	paramsDone = map[int]bool{} // the circuits this process has seen complete
)

// CacheDir is where the test circuits' parameters are generated once per
// machine: test-circuits under testparams.DefaultDir ($CUZK_TEST_PARAMS,
// else the user cache directory).
func CacheDir() string {
	return filepath.Join(testparams.DefaultDir(os.LookupEnv), "test-circuits")
}

// ensureCached makes sure CacheDir holds the parameters of test-k<k> for
// every k, generating what is missing under a lock that other test
// processes wait for.
func ensureCached(ks []int) error {
	paramsMu.Lock()
	defer paramsMu.Unlock()
	var missing []int
	for _, k := range ks {
		if !paramsDone[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	dir := CacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lock(filepath.Join(dir, ".testkit.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	for _, k := range missing {
		// WriteParams keeps complete files and writes new ones atomically.
		if err := testkind.WriteParams(dir, k); err != nil {
			return fmt.Errorf("testkit: test-k%d parameters in %s: %w", k, dir, err)
		}
		paramsDone[k] = true
	}
	return nil
}

// LinkTestParams puts the parameters of exactly the test circuits test-k<k>
// into dir, as symbolic links to CacheDir's files (generated there first
// if missing): a test sees the circuits it asked for and no other, and no
// process copies or regenerates them.
func LinkTestParams(dir string, ks ...int) error {
	if err := ensureCached(ks); err != nil {
		return err
	}
	for _, k := range ks {
		from := testparams.FilesAt(filepath.Join(CacheDir(), testkind.FileBase(k)))
		to := testparams.FilesAt(filepath.Join(dir, testkind.FileBase(k)))
		for _, f := range [][2]string{{from.Params, to.Params}, {from.VK, to.VK}, {from.Marker, to.Marker}} {
			if err := os.Symlink(f[0], f[1]); err != nil && !errors.Is(err, os.ErrExist) {
				return fmt.Errorf("testkit: %w", err)
			}
		}
	}
	return nil
}

// TestParamsDir is a directory of its own (under os.TempDir) holding the
// parameters of exactly the test circuits test-k<k> (LinkTestParams), for
// TestMain; call remove when the tests are done. Tests use TestParams.
func TestParamsDir(ks ...int) (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", "cuzk-testparams-")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	if err := LinkTestParams(dir, ks...); err != nil {
		remove()
		return "", nil, err
	}
	return dir, remove, nil
}

// RunWithTestParams is the TestMain of a package whose tests share one
// TestParamsDir: it sets *dir to the directory, runs m, removes the
// directory and returns m's exit code (for os.Exit, which would skip the
// removal if called here).
func RunWithTestParams(m *testing.M, dir *string, ks ...int) int {
	d, remove, err := TestParamsDir(ks...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	*dir = d
	return testenv.Run(m)
}

// TestParams is TestParamsDir for one test: the directory is removed when
// the test ends.
func TestParams(t testing.TB, ks ...int) string {
	t.Helper()
	dir := t.TempDir()
	if err := LinkTestParams(dir, ks...); err != nil {
		t.Fatal(err)
	}
	return dir
}

// BreakableParams prepares test-k's parameters for a test that breaks
// them: it returns the good .params bytes from the shared cache and the path
// of a .params file in a fresh directory (beside a copy of the .vk) that the
// test writes broken variants to. The file itself is not written.
func BreakableParams(t testing.TB, k int) (good []byte, params string) {
	t.Helper()
	src := filepath.Join(CacheDir(), testkind.FileBase(k))
	if err := ensureCached([]int{k}); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(src + ".params")
	if err != nil {
		t.Fatal(err)
	}
	vk, err := os.ReadFile(src + ".vk")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, testkind.FileBase(k)+".vk"), vk, 0o644); err != nil {
		t.Fatal(err)
	}
	return good, filepath.Join(dir, testkind.FileBase(k)+".params")
}

// lock takes an exclusive flock on path, waiting for other processes.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("testkit: %w", err)
	}
	for deadline := time.Now().Add(10 * time.Minute); ; {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("testkit: locking %s: %w", path, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// FilecoinParams makes sure the INSECURE test parameters of the Filecoin
// circuits cs (official file names, testparams) are in
// testparams.DefaultDir, generating the missing ones (a minute for the
// 2 KiB PoRep's 1.1 GB; testparams locks the directory against other
// processes), and returns the files of each, in order.
func FilecoinParams(t testing.TB, cs ...filecoin.CircuitID) []testparams.Files {
	t.Helper()
	dir := testparams.DefaultDir(os.LookupEnv)
	out := make([]testparams.Files, len(cs))
	for i, c := range cs {
		start := time.Now()
		f, generated, err := testparams.EnsureCircuit(context.Background(), c, dir, testparams.Options{})
		if err != nil {
			t.Fatalf("test parameters of %s: %v", c, err)
		}
		if generated {
			t.Logf("generated the test parameters of %s in %v", c, time.Since(start).Round(time.Second))
		}
		out[i] = f
	}
	return out
}
