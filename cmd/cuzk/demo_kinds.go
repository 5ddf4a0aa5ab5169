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

// runDemoKind is `cuzk demo --kind window-post|winning-post|snap`: CC
// sectors sealed natively, their vanilla proofs made as Curio's sealing
// pipeline would, proved through the in-process engine, and the proof
// verified against public inputs computed here from public values.
func runDemoKind(ctx context.Context, kind proofkind.Kind, size filecoin.SectorSize, paramsDir string, workers int, stdout, stderr io.Writer) int {
	fail := failer(stderr, "cuzk demo")
	cid, err := filecoin.CircuitIDFor(kind, size)
	if err != nil {
		return fail("%v", err)
	}
	if size > seal.MaxSectorSize {
		return fail("%v sectors are too large to seal in memory (at most %v)", size, seal.MaxSectorSize)
	}
	dir, err := demo.ParamsDir(cid, paramsDir, config.ReadMemTotal)
	if err != nil {
		return fail("%v", err)
	}
	step := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	step("cuzk demo: %v of %v sectors (circuit %s)", kind, size, cid)

	t := time.Now()
	f, err := demo.NewFixture(ctx, kind, size, seal.DefaultMinerID, workers)
	if err != nil {
		return fail("sectors: %v", err)
	}
	step("1. sealed natively and made the vanilla proofs in %v: %s", time.Since(t).Round(time.Millisecond), f.What)

	t = time.Now()
	files, vk, generated, err := demo.Params(ctx, cid, dir, workers, newProgress(stderr, "params gen "+cid.String()))
	if err != nil {
		return fail("parameters: %v", err)
	}
	verb := "found cached"
	if generated {
		verb = "generated"
	}
	step("2. %s INSECURE test parameters in %v: %s", verb, time.Since(t).Round(time.Millisecond), files.Params)

	opt := oneshot.Options{ParamsDir: dir, Workers: workers, Stderr: stderr, Label: "prove", QuietLog: true}
	res, err := oneshot.Prove(ctx, oneshot.Job{Request: f.Request}, opt)
	if err != nil {
		return proofFailed(fail, err)
	}
	proofBytes, tm := res.Proof, res.Timings
	step("3. proved through the engine: parameters loaded in %v, vanilla proofs checked natively and %d partition(s) synthesised in %v, proved in %v (total %v, self-checked)",
		tm.SRSLoad.Round(time.Millisecond), res.Partitions(), tm.Synthesis.Round(time.Millisecond),
		tm.Prove.Round(time.Millisecond), tm.Total.Round(time.Millisecond))

	t = time.Now()
	ok, err := f.Public.Verify(vk, proofBytes)
	if err != nil {
		return fail("verify: %v", err)
	}
	if !ok {
		fail("verify: proof INVALID")
		return exitInvalid
	}
	step("4. groth16 verify against public inputs computed from public values only: valid (%v)", time.Since(t).Round(time.Millisecond))
	step("proof (%d bytes): %s", len(proofBytes), hex.EncodeToString(proofBytes))
	step("peak RSS %d MiB", bench.PeakRSS()>>20)
	return exitOK
}
