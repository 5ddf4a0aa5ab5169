// Package testparams generates INSECURE Groth16 parameters for Filecoin
// circuits, for tests and demos on machines without the official
// parameters (a 32 GiB .params file is 47 GB and comes from a ceremony).
//
// The files use the official names (so the daemon and rust-fil-proofs find
// them the same way) but live in their own directory, and each .params file
// gets a sidecar <name>.params.INSECURE-TEST-PARAMETERS saying what it is.
// The daemon logs loudly when it loads parameters with that marker, and this
// package refuses to write over a .params file that has no marker (an
// official file).
package testparams

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/circuit"
	"golang.org/x/sys/unix"
)

// MarkerSuffix is appended to a .params file name to name its marker.
const MarkerSuffix = ".INSECURE-TEST-PARAMETERS"

// ErrOfficialExists: the target already holds parameters without a test
// marker, which must be official ones; they are never overwritten.
var ErrOfficialExists = errors.New("testparams: refusing to overwrite parameters that carry no test marker")

// Files are the paths of one parameter set.
type Files struct {
	Params, VK, Marker string
}

// PathsFor returns where the parameters of a registered seal proof live in
// dir.
func PathsFor(p filecoin.RegisteredSealProof, dir string) (Files, error) {
	id := p.ParameterSetID()
	if id == "" {
		return Files{}, fmt.Errorf("testparams: no parameter set for %v", p)
	}
	params := filepath.Join(dir, id.ParamsFileName())
	return Files{Params: params, VK: filepath.Join(dir, id.VerifyingKeyFileName()), Marker: params + MarkerSuffix}, nil
}

// IsTest reports whether the .params file at path carries a test marker.
func IsTest(paramsPath string) bool {
	_, err := os.Stat(paramsPath + MarkerSuffix)
	return err == nil
}

// DefaultSeed derives the toxic waste of test parameters unless Options
// asks for fresh randomness. A public seed makes the parameters
// reproducible (the same bytes on every machine, so proofs can be compared
// byte for byte with bellperson's) and makes plain that anyone can forge
// proofs with them.
const DefaultSeed = "cuzk-test-params-v1"

// Options tune generation.
type Options struct {
	Workers  int
	Progress func(phase string, done float64)
	// Force regenerates test parameters that already exist.
	Force bool
	// Seed derives the toxic waste ("" means DefaultSeed).
	Seed string
	// Random draws the toxic waste from crypto/rand instead of Seed.
	Random bool
}

func (o Options) seed() string {
	if o.Random {
		return "random"
	}
	if o.Seed == "" {
		return DefaultSeed
	}
	return o.Seed
}

// ToxicWaste derives τ, α, β, γ, δ from a seed: each is SHA-256(seed ‖ name)
// with the top bits cleared, read little-endian.
func ToxicWaste(seed string) groth16.ToxicWaste {
	var tw groth16.ToxicWaste
	for _, f := range []struct {
		name string
		e    *fr.Element
	}{{"tau", &tw.Tau}, {"alpha", &tw.Alpha}, {"beta", &tw.Beta}, {"gamma", &tw.Gamma}, {"delta", &tw.Delta}} {
		h := sha256.Sum256([]byte(seed + "/" + f.name))
		h[31] &= 0x1f
		e, err := fr.LittleEndian.Element(&h)
		if err != nil {
			panic(err) // < 2^253 < r
		}
		*f.e = e
	}
	return tw
}

// Ensure returns the test parameters of p in dir, generating them when they
// are missing (generated reports which). Existing test parameters are reused
// only when the marker, .params and .vk are all present.
func Ensure(ctx context.Context, p filecoin.RegisteredSealProof, dir string, opt Options) (f Files, generated bool, err error) {
	f, err = PathsFor(p, dir)
	if err != nil {
		return f, false, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, false, fmt.Errorf("testparams: %w", err)
	}
	// Concurrent test processes share a cache directory: without the lock
	// two of them could interleave a .params from one setup with a .vk from
	// another.
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return f, false, err
	}
	defer unlock()
	if !opt.Force && exists(f.Params) && exists(f.VK) && markerSeed(f.Marker) == opt.seed() && !opt.Random {
		return f, false, nil
	}
	f, err = Generate(ctx, p, dir, opt)
	return f, err == nil, err
}

// lockDir takes an exclusive flock on dir/.cuzk-testparams.lock, waiting
// (and honouring ctx) while another process holds it.
func lockDir(ctx context.Context, dir string) (func(), error) {
	lf, err := os.OpenFile(filepath.Join(dir, ".cuzk-testparams.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("testparams: %w", err)
	}
	for {
		err := unix.Flock(int(lf.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { unix.Flock(int(lf.Fd()), unix.LOCK_UN); lf.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			lf.Close()
			return nil, fmt.Errorf("testparams: locking %s: %w", dir, err)
		}
		select {
		case <-ctx.Done():
			lf.Close()
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Generate writes test parameters for p into dir, from the toxic waste of
// opt's seed (or fresh randomness with opt.Random).
func Generate(ctx context.Context, p filecoin.RegisteredSealProof, dir string, opt Options) (Files, error) {
	f, err := PathsFor(p, dir)
	if err != nil {
		return f, err
	}
	// A .params or .vk without a marker is someone else's (a cache of
	// official keys often holds only the .vk files): never touch it.
	for _, p := range []string{f.Params, f.VK} {
		if exists(p) && !exists(f.Marker) {
			return f, fmt.Errorf("%w: %s", ErrOfficialExists, p)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, fmt.Errorf("testparams: %w", err)
	}
	shape, in, err := circuit.Blank(p)
	if err != nil {
		return f, err
	}
	c, err := circuit.New(shape, in)
	if err != nil {
		return f, err
	}
	tw := ToxicWaste(opt.seed())
	if opt.Random {
		if tw, err = groth16.RandomToxicWaste(); err != nil {
			return f, err
		}
	}
	if err := ctx.Err(); err != nil {
		return f, err
	}
	start := time.Now()
	params, err := groth16.Setup(c, tw, groth16.SetupOptions{Workers: opt.Workers, Progress: opt.Progress})
	if err != nil {
		return f, fmt.Errorf("testparams: setup for %v: %w", p, err)
	}
	// Marker first: a crash mid-write leaves a marked partial file that the
	// next Ensure regenerates, never an unmarked one that looks official.
	note := fmt.Sprintf(`INSECURE TEST PARAMETERS — NOT FROM THE FILECOIN TRUSTED SETUP.

%s
was generated by cuzk (testparams) on %s for %v (circuit %s).
Its toxic waste is known (derived from a public seed, or drawn locally):
anyone can forge proofs with it, and the Filecoin network rejects its proofs.
Use it only for tests and demos.

%s%s
`, filepath.Base(f.Params), time.Now().UTC().Format(time.RFC3339), p, p.CircuitID(), seedPrefix, opt.seed())
	if err := os.WriteFile(f.Marker, []byte(note), 0o644); err != nil {
		return f, fmt.Errorf("testparams: %w", err)
	}
	if err := groth16.WriteParamsFile(f.Params, params); err != nil {
		return f, err
	}
	// Temp file and rename: a crash mid-write must not leave a truncated
	// .vk that the next Ensure would reuse.
	if err := groth16.WriteVerifyingKeyFile(f.VK+".tmp", params.VK); err != nil {
		return f, err
	}
	if err := os.Rename(f.VK+".tmp", f.VK); err != nil {
		return f, fmt.Errorf("testparams: %w", err)
	}
	if opt.Progress != nil {
		opt.Progress(fmt.Sprintf("done in %v", time.Since(start).Round(time.Millisecond)), 1)
	}
	return f, nil
}

const seedPrefix = "toxic-waste-seed: "

// markerSeed returns the seed recorded in a marker file ("" if none).
func markerSeed(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, seedPrefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// DefaultDir is where tests and the demo keep generated parameters:
// $CUZK_TEST_PARAMS, else cuzk-test-params in the user cache directory
// (falling back to the temp directory). Generating 2 KiB parameters takes
// about a minute on two cores, so they are reused across runs.
func DefaultDir(lookup func(string) (string, bool)) string {
	if d, ok := lookup("CUZK_TEST_PARAMS"); ok && d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "cuzk-test-params")
	}
	return filepath.Join(os.TempDir(), "cuzk-test-params")
}
