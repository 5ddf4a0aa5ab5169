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
	"github.com/cuzk-dev/cuzk/proofkind"
)

// runDemo is the main job on its built-in default: a real PoRep proof of a
// freshly sealed 2 KiB sector, end to end.
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
	if kind != proofkind.PoRep {
		return runDemoKind(ctx, kind, size.v, *paramsDir, *workers, stdout, stderr)
	}
	proof, err := sealProofFor(size, -1)
	if err != nil {
		return fail("%v", err)
	}
	// Refused up front, before sealing or generating anything.
	if proof.SectorSize() > seal.MaxSectorSize {
		return fail("%v sectors are too large to seal in memory (at most %v)", proof.SectorSize(), seal.MaxSectorSize)
	}
	dir, err := demo.ParamsDir(proof.CircuitID(), *paramsDir, config.ReadMemTotal)
	if err != nil {
		return fail("%v", err)
	}
	step := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	step("cuzk demo: PoRep C2 of a %v sector (%v)", proof.SectorSize(), proof)

	t := time.Now()
	f, err := demo.NewPoRep(ctx, proof, *workers)
	if err != nil {
		return fail("%v", err)
	}
	step("1. sealed sector %d natively in %v: comm_d %x, comm_r %x", f.Public.Sector, time.Since(t).Round(time.Millisecond), f.Public.CommD, f.Public.CommR)

	t = time.Now()
	files, vk, generated, err := demo.Params(ctx, proof.CircuitID(), dir, *workers, newProgress(stderr, "params gen"))
	if err != nil {
		return fail("parameters: %v", err)
	}
	verb := "found cached"
	if generated {
		verb = "generated"
	}
	step("2. %s INSECURE test parameters in %v: %s", verb, time.Since(t).Round(time.Millisecond), files.Params)

	// The proof goes through an in-process engine, the daemon's pipeline:
	// the native C1 check, synthesis, proving and the self-check.
	opt := oneshot.Options{ParamsDir: dir, Workers: *workers, Stderr: stderr, Label: "prove", QuietLog: true}
	res, err := oneshot.Prove(ctx, oneshot.Job{Request: f.Request}, opt)
	if err != nil {
		return proofFailed(fail, err)
	}
	proofBytes, tm := res.Proof, res.Timings
	step("3. proved through the engine: parameters loaded in %v, C1 checked natively and %d partition(s) synthesised in %v, proved in %v (total %v, self-checked)",
		tm.SRSLoad.Round(time.Millisecond), res.Partitions(), tm.Synthesis.Round(time.Millisecond),
		tm.Prove.Round(time.Millisecond), tm.Total.Round(time.Millisecond))

	t = time.Now()
	ok, err := f.Verify(vk, proofBytes)
	if err != nil {
		return fail("verify-seal: %v", err)
	}
	if !ok {
		fail("verify-seal: proof INVALID")
		return exitInvalid
	}
	step("4. verify-seal from public values only: valid (%v)", time.Since(t).Round(time.Millisecond))
	step("proof (%d bytes): %s", len(proofBytes), hex.EncodeToString(proofBytes))
	step("peak RSS %d MiB", bench.PeakRSS()>>20)
	return exitOK
}
