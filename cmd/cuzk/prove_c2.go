package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/testparams"
)

// runProveC2 proves a C1 output through an in-process engine: the same
// planning, pipeline, self-check and encoding as the daemon's.
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
	if *c1Path == "" || *out == "" {
		return fail("--c1 and --out are required")
	}
	if r.set != s.set {
		return fail("--r and --s go together")
	}
	opt := daemon.Options{CheckParams: *checkParams, Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if r.set {
		var fixed groth16.Randomness
		var err error
		if fixed.R, err = fr.LittleEndian.Element(&r.v); err != nil {
			return fail("--r: %v", err)
		}
		if fixed.S, err = fr.LittleEndian.Element(&s.v); err != nil {
			return fail("--s: %v", err)
		}
		opt.Randomness = prover.Fixed(fixed)
	}
	raw, err := os.ReadFile(*c1Path)
	if err != nil {
		return fail("%v", err)
	}
	o, w, err := c1.ParseAny(raw)
	if err != nil {
		return fail("%s: %v", *c1Path, err)
	}
	if w == nil {
		// The engine takes C1 outputs as Curio sends them.
		if raw, err = c1.Wrap(o, 0).MarshalJSON(); err != nil {
			return fail("%v", err)
		}
	}
	dir := filecoin.ParamDir(*paramsDir, os.LookupEnv)
	if files, err := testparams.PathsFor(o.RegisteredProof, dir); err == nil && testparams.IsTest(files.Params) {
		fmt.Fprintf(stderr, "WARNING: %s are INSECURE TEST PARAMETERS; the proof is useless on the Filecoin network\n", files.Params)
	}
	opt.Progress, opt.ProgressLabel = stderr, "prove-c2"
	req := &engine.Request{Kind: proofkind.PoRep, RegisteredProof: uint64(o.RegisteredProof), VanillaProof: raw}
	res, err := daemon.Prove(ctx, daemon.OneShotConfig(dir, *workers), opt, req)
	if code, ok := jobFailed(fail, res, err); ok {
		return code
	}
	if err := os.WriteFile(*out, res.Proof, 0o644); err != nil {
		return fail("%v", err)
	}
	t := res.Timings
	fmt.Fprintf(stdout, "%v: %d partition(s), proof %d bytes written to %s\n", o.RegisteredProof, len(res.Proof)/groth16.ProofSize, len(res.Proof), *out)
	fmt.Fprintf(stdout, "params load %v, synthesis %v, prove %v, total %v\n", t.SRSLoad.Round(time.Millisecond),
		t.Synthesis.Round(time.Millisecond), t.Prove.Round(time.Millisecond), t.Total.Round(time.Millisecond))
	return exitOK
}

// jobFailed maps an in-process proof that did not complete to the exit
// codes: an invalid vanilla proof or a proof that does not verify is
// exitInvalid, anything else (missing parameters, I/O, memory) exitError.
// ok is false when the job completed.
func jobFailed(fail func(string, ...any) int, res engine.Result, err error) (code int, ok bool) {
	switch {
	case errors.Is(err, engine.ErrInvalidRequest):
		fail("%v", err)
		return exitInvalid, true
	case err != nil:
		return fail("%v", err), true
	case res.State == engine.StateCompleted:
		return exitOK, false
	case errors.Is(res.Err, engine.ErrSelfCheck):
		fail("%v", res.Err)
		return exitInvalid, true
	default:
		return fail("job %s: %v", res.State, res.Err), true
	}
}
