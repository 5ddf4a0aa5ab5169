package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/bits"
	"os"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c2"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/testparams"
)

// runDemo is the main job on its built-in default: a real PoRep proof of a
// freshly sealed 2 KiB sector, end to end.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("demo", stderr)
	var size sectorSizeFlag
	size.Set("2KiB")
	fs.Var(&size, "sector-size", "sector size (2KiB or 8MiB)")
	paramsDir := fs.String("params-dir", "", "test parameter `directory` (default $CUZK_TEST_PARAMS or the user cache)")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "cuzk demo: "+format+"\n", a...)
		return 1
	}
	proof, err := sealProofFor(size, -1)
	if err != nil {
		return fail("%v", err)
	}
	dir := *paramsDir
	if dir == "" {
		dir = testparams.DefaultDir(os.LookupEnv)
	}
	step := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	step("cuzk demo: PoRep C2 of a %v sector (%v)", proof.SectorSize(), proof)

	t := time.Now()
	in := seal.DefaultInput(proof)
	o, r, err := seal.Seal(ctx, in, seal.DefaultSeed, *workers)
	if err != nil {
		return fail("seal: %v", err)
	}
	commD, commR := r.CommD(), r.CommR()
	step("1. sealed sector %d natively in %v: comm_d %x, comm_r %x", in.Sector, time.Since(t).Round(time.Millisecond), commD, commR)

	t = time.Now()
	files, generated, err := testparams.Ensure(ctx, proof, dir, testparams.Options{Workers: *workers, Progress: newProgress(stderr, "params gen")})
	if err != nil {
		return fail("parameters: %v", err)
	}
	params, err := groth16.LoadParamsFile(files.Params, groth16.LoadOptions{Workers: *workers})
	if err != nil {
		return fail("parameters: %v", err)
	}
	pvk, err := groth16.Prepare(params.VK)
	if err != nil {
		return fail("parameters: %v", err)
	}
	verb := "loaded cached"
	if generated {
		verb = "generated"
	}
	step("2. %s INSECURE test parameters in %v (%.0f MiB): %s", verb, time.Since(t).Round(time.Millisecond), float64(params.EncodedSize())/(1<<20), files.Params)

	t = time.Now()
	parts, err := c2.Plan(ctx, o, c2.PlanOptions{Workers: *workers})
	if err != nil {
		return fail("C1: %v", err)
	}
	step("3. checked the C1 output natively in %v: %d partition(s)", time.Since(t).Round(time.Millisecond), len(parts))

	proofBytes, times, err := c2.Prove(ctx, params, pvk, parts, c2.ProveOptions{Workers: *workers})
	if err != nil {
		return fail("prove: %v", err)
	}
	rows := len(params.H) + 1
	step("4. proved: synthesis %v, prove %v (Start %v + Finish %v; domain 2^%d), self-check %v", times.Synthesis.Round(time.Millisecond),
		times.Prove.Round(time.Millisecond), times.Start.Round(time.Millisecond), times.Finish.Round(time.Millisecond), log2(rows), times.Verify.Round(time.Millisecond))

	t = time.Now()
	cfg, _ := porep.ConfigFor(proof)
	pub := porep.SealPublic{Config: cfg, CommR: commR, CommD: commD, ProverID: in.ProverID, Sector: in.Sector, Ticket: in.Ticket, Seed: seal.DefaultSeed}
	ok, err := porep.VerifySeal(params.VK, proofBytes, pub)
	if err != nil {
		return fail("verify-seal: %v", err)
	}
	if !ok {
		return fail("verify-seal: proof INVALID")
	}
	step("5. verify-seal from public values only: valid (%v)", time.Since(t).Round(time.Millisecond))
	step("proof (%d bytes): %s", len(proofBytes), hex.EncodeToString(proofBytes))
	step("peak RSS %d MiB (parameters resident: %d MiB decoded)", bench.PeakRSS()>>20, params.MemorySize()>>20)
	return exitOK
}

// log2 is ⌈log₂ n⌉.
func log2(n int) int { return bits.Len(uint(n - 1)) }
