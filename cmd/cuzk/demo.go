package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/demo"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/oneshot"
	"github.com/cuzk-dev/cuzk/porep/seal"
)

// runDemo is the main job on its built-in default: a real proof of a kind
// (PoRep C2 by default) from sectors sealed natively, their vanilla proofs
// made as Curio's sealing pipeline would, proved through the in-process
// engine, and the proof verified from public values only.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", stderr)
	size := sectorSizeFlag{allowed: sealableSizes()}
	size.Set("2KiB")
	fs.Var(&size, "sector-size", "sector size: 2KiB, 8MiB or 512MiB (sealed in memory)")
	kindName := fs.String("kind", "porep-c2", "proof `kind`: porep-c2, window-post, winning-post or snap-update (porep and snap work too)")
	paramsDir := fs.String("params", "", "test parameter `directory` (default $CUZK_TEST_PARAMS or the user cache)")
	deprecatedFlag(fs, "params-dir", "params")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk demo")
	kind, err := filecoin.ParseKind(*kindName)
	if err != nil {
		return fail("--kind: %v", err)
	}
	cid, err := filecoin.CircuitIDFor(kind, size.v)
	if err != nil {
		return fail("%v", err)
	}
	// Refused up front, before sealing or generating anything.
	if size.v > seal.MaxSectorSize {
		return fail("%v sectors are too large to seal in memory (at most %v)", size.v, seal.MaxSectorSize)
	}
	dir, err := demo.ParamsDir(cid, *paramsDir, config.ReadMemTotal)
	if err != nil {
		return fail("%v", err)
	}
	step := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	step("cuzk demo: %v of %v sectors (circuit %s)", kind, size.v, cid)

	t := time.Now()
	f, err := demo.NewFixture(ctx, kind, size.v, seal.DefaultMinerID, *workers)
	if err != nil {
		return fail("sectors: %v", err)
	}
	step("1. sealed natively and made the vanilla proofs in %v: %s", time.Since(t).Round(time.Millisecond), f.What)

	t = time.Now()
	files, vk, generated, err := demo.Params(ctx, cid, dir, *workers, demo.ProgressLines(stderr, "params gen", progressEvery))
	if err != nil {
		return fail("parameters: %v", err)
	}
	verb := "found cached"
	if generated {
		verb = "generated"
	}
	step("2. %s INSECURE test parameters in %v: %s", verb, time.Since(t).Round(time.Millisecond), files.Params)

	// The proof goes through an in-process engine, the daemon's pipeline:
	// the native check of the vanilla proofs, synthesis, proving and the
	// self-check.
	opt := oneshot.Options{ParamsDir: dir, Workers: *workers, Stderr: stderr, Label: "prove", QuietLog: true}
	res, err := oneshot.Prove(ctx, oneshot.Job{Request: f.Request}, opt)
	if err != nil {
		return proofFailed(fail, err)
	}
	proofBytes, tm := res.Proof, res.Timings
	step("3. proved through the engine: parameters loaded in %v, vanilla proofs checked natively and %d partition(s) synthesised in %v, proved in %v (total %v, self-checked)",
		tm.SRSLoad.Round(time.Millisecond), res.Partitions(), tm.Synthesis.Round(time.Millisecond),
		tm.Prove.Round(time.Millisecond), tm.Total.Round(time.Millisecond))

	t = time.Now()
	ok, err := f.Verify(vk, proofBytes)
	if err != nil {
		return fail("%s: %v", f.Check, err)
	}
	if !ok {
		fail("%s: proof INVALID", f.Check)
		return exitInvalid
	}
	step("4. %s from public values only: valid (%v)", f.Check, time.Since(t).Round(time.Millisecond))
	step("proof (%d bytes): %s", len(proofBytes), hex.EncodeToString(proofBytes))
	step("peak RSS %d MiB", bench.PeakRSS()>>20)
	return exitOK
}
