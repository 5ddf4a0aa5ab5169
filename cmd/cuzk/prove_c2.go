package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/c2"
	"github.com/cuzk-dev/cuzk/testparams"
)

func runProveC2(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("prove-c2", stderr)
	c1Path := fs.String("c1", "", "C1 output `file`: SealCommitPhase1Output JSON, or Curio's wrapper")
	paramsDir := fs.String("params", "", "parameter `directory` (default $FIL_PROOFS_PARAMETER_CACHE or "+filecoin.DefaultParameterCacheDir+")")
	out := fs.String("out", "", "proof output `file`")
	workers := fs.Int("workers", 0, "worker goroutines (0 = all CPUs)")
	checkParams := fs.Bool("check-params", false, "check that every parameter point is in the prime-order subgroup (slow; for files of unknown provenance)")
	var r, s hex32
	fs.Var(&r, "r", "fixed blinding r for every partition, 64 hex (LE Fr); tests only")
	fs.Var(&s, "s", "fixed blinding s for every partition, 64 hex (LE Fr); tests only")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk prove-c2")
	failed := func(format string, a ...any) int {
		fail(format, a...)
		return exitFailed
	}
	if *c1Path == "" || *out == "" {
		return fail("--c1 and --out are required")
	}
	if r.set != s.set {
		return fail("--r and --s go together")
	}
	raw, err := os.ReadFile(*c1Path)
	if err != nil {
		return fail("%v", err)
	}
	o, _, err := c1.ParseAny(raw)
	if err != nil {
		return fail("%s: %v", *c1Path, err)
	}
	dir := *paramsDir
	if dir == "" {
		dir = filecoin.ParameterCacheDir(os.LookupEnv)
	}
	files, err := testparams.PathsFor(o.RegisteredProof, dir)
	if err != nil {
		return fail("%v", err)
	}
	if testparams.IsTest(files.Params) {
		fmt.Fprintf(stderr, "WARNING: %s are INSECURE TEST PARAMETERS; the proof is useless on the Filecoin network\n", files.Params)
	}
	t0 := time.Now()
	parts, err := c2.Plan(ctx, o, c2.PlanOptions{Workers: *workers})
	if err != nil {
		return fail("%v", err)
	}
	t1 := time.Now()
	params, err := groth16.LoadParamsFile(files.Params, groth16.LoadOptions{Workers: *workers, SubgroupChecks: *checkParams})
	if err != nil {
		return failed("%v", err)
	}
	vk, err := groth16.ReadVerifyingKeyFile(files.VK)
	if err != nil {
		return failed("%v", err)
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return failed("%v", err)
	}
	t2 := time.Now()
	opt := c2.ProveOptions{Workers: *workers}
	if r.set {
		var rr, ss fr.Element
		if rr, err = fr.LittleEndian.Element(&r.v); err != nil {
			return fail("--r: %v", err)
		}
		if ss, err = fr.LittleEndian.Element(&s.v); err != nil {
			return fail("--s: %v", err)
		}
		for range parts {
			opt.Randomness = append(opt.Randomness, groth16.Randomness{R: rr, S: ss})
		}
	}
	proof, times, err := c2.Prove(ctx, params, pvk, parts, opt)
	if err != nil {
		return failed("%v", err)
	}
	if err := os.WriteFile(*out, proof, 0o644); err != nil {
		return failed("%v", err)
	}
	fmt.Fprintf(stdout, "%v: %d partition(s), proof %d bytes written to %s\n", o.RegisteredProof, len(parts), len(proof), *out)
	fmt.Fprintf(stdout, "check %v, params load %v, synthesis %v, prove %v, verify %v\n",
		t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond), times.Synthesis.Round(time.Millisecond),
		times.Prove.Round(time.Millisecond), times.Verify.Round(time.Millisecond))
	return exitOK
}
