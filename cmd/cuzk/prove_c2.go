package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/oneshot"
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
	partition := fs.Int("partition", -1, "prove partition `K` alone (its 192 bytes, self-checked against its public inputs; verify-seal --partition K checks it); default: every partition")
	useGPU := fs.Bool("gpu", false, "prove on the CUDA devices (CUDA_VISIBLE_DEVICES picks them; a cuzk built with -tags cuda), every proof re-checked on the CPU; no device is an error")
	var r, s hex32
	fs.Var(&r, "r", "fixed blinding r for every partition, 64 hex (LE Fr); tests only")
	fs.Var(&s, "s", "fixed blinding s for every partition, 64 hex (LE Fr); tests only")
	stageReport := fs.String("stage-report", "", "write the wall time, CPU time and peak anonymous and file-backed memory of every step of every partition (synthesis, each MSM, H) to this JSON `file`, and a table to stderr")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to this `file` (go tool pprof)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk prove-c2")
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return fail("%v", err)
	}
	defer stop()
	if *c1Path == "" || *out == "" {
		return fail("--c1 and --out are required")
	}
	if r.set != s.set {
		return fail("--r and --s go together")
	}
	if *partition < -1 {
		return fail("--partition %d: want a partition index (0 upwards)", *partition)
	}
	opt := oneshot.Options{ParamsDir: *paramsDir, Workers: *workers, CheckParams: *checkParams, GPU: *useGPU, Stderr: stderr, Label: "prove-c2", StageReport: *stageReport}
	if r.set {
		var err error
		if opt.Randomness, err = oneshot.FixedRandomness(r.v, s.v); err != nil {
			return fail("--%v", err)
		}
	}
	raw, err := os.ReadFile(*c1Path)
	if err != nil {
		return fail("%v", err)
	}
	var job oneshot.Job
	if *partition >= 0 {
		if job, err = oneshot.C2Partition(raw, *partition); errors.Is(err, oneshot.ErrPartition) {
			return fail("--partition: %v", err)
		}
	} else {
		job, err = oneshot.C2(raw)
	}
	if err != nil {
		return fail("%s: %v", *c1Path, err)
	}
	return proveJob(ctx, job, opt, *out, stdout, fail)
}

// proveJob makes job's proof, writes it to out and reports its size and
// timings.
func proveJob(ctx context.Context, job oneshot.Job, opt oneshot.Options, out string, stdout io.Writer, fail func(string, ...any) int) int {
	res, err := oneshot.Prove(ctx, job, opt)
	if err != nil {
		return proofFailed(fail, err)
	}
	if err := os.WriteFile(out, res.Proof, 0o644); err != nil {
		return fail("%v", err)
	}
	t := res.Timings
	if k, ok := job.Partition(); ok {
		fmt.Fprintf(stdout, "%s: partition %d alone, proof %d bytes written to %s\n", job.Name, k, len(res.Proof), out)
	} else {
		fmt.Fprintf(stdout, "%s: %d partition(s), proof %d bytes written to %s\n", job.Name, res.Partitions(), len(res.Proof), out)
	}
	if opt.GPU {
		// The CPU re-check redoes a GPU proof that failed or did not
		// verify: the proof is good, but was not the device's.
		fmt.Fprintf(stdout, "proved on the GPU; redone on the CPU: %d\n", res.GPURetries)
	}
	fmt.Fprintf(stdout, "params load %v, synthesis %v, prove %v, total %v\n", t.SRSLoad.Round(time.Millisecond),
		t.Synthesis.Round(time.Millisecond), t.Prove.Round(time.Millisecond), t.Total.Round(time.Millisecond))
	return exitOK
}

// proofFailed maps a proof that was not made to the exit codes: an
// invalid vanilla proof or a proof that does not verify is exitInvalid,
// anything else (missing parameters, I/O, memory) exitError.
func proofFailed(fail func(string, ...any) int, err error) int {
	code := fail("%v", err)
	if errors.Is(err, oneshot.ErrInvalid) {
		return exitInvalid
	}
	return code
}
