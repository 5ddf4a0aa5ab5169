// Package oneshot proves one request through an in-process engine built
// as the daemon builds its own (daemon.Prove), for the commands that prove
// without a daemon: prove-c2, prove-post, prove-update and the demo. It
// turns their inputs into engine requests, applies a fixed blinding,
// records a stage report, and tells an invalid proof (ErrInvalid) from a
// failure to prove.
package oneshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/jsonfile"
	"github.com/cuzk-dev/cuzk/internal/procmem"
	"github.com/cuzk-dev/cuzk/porep"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/gpu"
	"github.com/cuzk-dev/cuzk/testparams"
)

// ErrInvalid marks a proof that could not be made because what it proves
// is false: the request's vanilla proofs are invalid, or the proof did not
// verify (the self-check). The commands exit with their "invalid" code for
// it and their error code for anything else (missing parameters, I/O,
// memory).
var ErrInvalid = errors.New("invalid proof")

// Job is one proof to make.
type Job struct {
	Request *engine.Request
	// Circuit, when set, is checked for test parameters in the parameter
	// directory: a proof made with them is useless on the network, which
	// deserves a warning.
	Circuit filecoin.CircuitID
	// Name is how a report names the proof: the registered proof of a C2,
	// the circuit otherwise.
	Name string
	// partition, when not nil, is the one partition of a C2 to prove
	// (C2Partition) or of an update (UpdatePartition).
	partition *int
}

// C2 is the job of a C1 output, plain or in Curio's envelope (the engine
// takes only the envelope, so a plain one is wrapped, sector 0).
func C2(raw []byte) (Job, error) {
	job, _, err := c2Job(raw)
	return job, err
}

// c2Job is C2's job and the C1 it carries.
func c2Job(raw []byte) (Job, *c1.Output, error) {
	o, w, err := c1.ParseAny(raw)
	if err != nil {
		return Job{}, nil, err
	}
	if w == nil {
		if raw, err = c1.Wrap(o, 0).MarshalJSON(); err != nil {
			return Job{}, nil, fmt.Errorf("wrapping the C1: %w", err)
		}
	}
	req := porepkind.NewRequest(o.RegisteredProof, 0, 0, raw)
	return Job{Request: req, Circuit: o.RegisteredProof.CircuitID(), Name: o.RegisteredProof.String()}, o, nil
}

// ErrPartition is C2Partition's error for a partition the C1 does not
// have (porep.ErrPartition, so that callers need not import porep).
var ErrPartition = porep.ErrPartition

// C2Partition is the job of partition k of a C1 output alone: its proof
// is that partition's 192 bytes, made and self-checked against that
// partition's public inputs as in the whole proof (prove-c2 --partition).
// The engine request is C2's, unchanged: the partition is the in-process
// PoRep planner's setting (daemon.Options.PoRepPartition), never the
// request's partition_index, which Curio sends as 0 for every partition.
// A k the C1 does not have is an error wrapping porep.ErrPartition that
// names its partition count.
func C2Partition(raw []byte, k int) (Job, error) {
	job, o, err := c2Job(raw)
	if err != nil {
		return Job{}, err
	}
	if n := len(o.VanillaProofs); k < 0 || k >= n {
		return Job{}, fmt.Errorf("%w: partition %d, but the %v C1 has %d partition(s), 0 to %d", porep.ErrPartition, k, o.RegisteredProof, n, n-1)
	}
	job.partition = &k
	return job, nil
}

// Partition is the one partition job proves, and false when it proves
// every partition.
func (j Job) Partition() (int, bool) {
	if j.partition == nil {
		return 0, false
	}
	return *j.partition, true
}

// PoSt is the job of a WindowPoSt partition or a WinningPoSt. The
// randomness goes to the engine as given: it checks length and canonicity,
// as for Curio's requests.
func PoSt(p filecoin.RegisteredPoStProof, randomness []byte, partition uint32, miner uint64, vanilla [][]byte) Job {
	req := postkind.NewRequest(p, randomness, partition, miner, vanilla)
	return Job{Request: req, Circuit: p.CircuitID(), Name: string(p.CircuitID())}
}

// Update is the job of a SnapDeals update (every partition).
func Update(p filecoin.RegisteredUpdateProof, commROld, commRNew, commDNew [32]byte, vanilla [][]byte) Job {
	req := snapkind.NewRequest(p, commROld, commRNew, commDNew, vanilla)
	return Job{Request: req, Circuit: p.CircuitID(), Name: string(p.CircuitID())}
}

// ReadVanillaFile reads the vanilla proofs of a PoSt or update job as
// Curio sends them (jsonfile.ParseVanilla): a JSON array of base64 strings,
// one per sector for PoSt, per partition for SnapDeals, or one raw
// bincode proof; errors name the file.
func ReadVanillaFile(path string) ([][]byte, error) { return jsonfile.ReadVanilla(path) }

// UpdatePartition is the job of partition k of a SnapDeals update alone:
// its proof is that partition's 192 bytes, made and self-checked against
// that partition's public inputs as in the whole proof (prove-update
// --partition). The request is Update's, every vanilla proof included; a
// k the update does not have fails the job naming its partition count.
func UpdatePartition(p filecoin.RegisteredUpdateProof, k int, commROld, commRNew, commDNew [32]byte, vanilla [][]byte) Job {
	job := Update(p, commROld, commRNew, commDNew, vanilla)
	job.partition = &k
	return job
}

// Options say how to prove.
type Options struct {
	// ParamsDir holds the parameters; "" is filecoin.ParamDir's default.
	ParamsDir   string
	Workers     int // 0: all CPUs
	CheckParams bool
	// Randomness, when set, is the blinding of every partition (tests
	// only: a fixed blinding makes proofs comparable byte for byte).
	Randomness *groth16.Randomness
	// Residency overrides [srs] residency ("" keeps the default).
	Residency string
	// GPU proves on the CUDA devices the process sees (CUDA_VISIBLE_DEVICES
	// picks them) as the daemon does with [gpus] devices = []: the GPU
	// backend under the CPU re-check of every proof, the parameters mapped.
	// Unlike the daemon's default it never falls back to the CPU: a build
	// without -tags cuda or a machine without a usable device is an error.
	GPU bool
	// StageReport, when set, is the file the steps' wall time, CPU time
	// and peak memory are written to as JSON (and to FILE.partial, a JSON
	// line each, as each step ends, so a run that is killed keeps what it
	// measured); a table of them goes to Stderr.
	StageReport string
	// Stderr receives the engine's warnings, the progress lines (each
	// starting with Label), the test-parameter warning and the stage
	// table; nil discards them.
	Stderr io.Writer
	Label  string
	// QuietLog discards the engine's log, progress aside (the demo: its
	// own steps say what happened).
	QuietLog bool
}

// FixedRandomness is the Randomness of r and s given as 32-byte
// little-endian field elements (the CLI's --r and --s). An error names
// the value at fault, "r: …" or "s: …", for the caller to prefix with its
// own name for it.
func FixedRandomness(r, s [32]byte) (*groth16.Randomness, error) {
	var fixed groth16.Randomness
	var err error
	if fixed.R, err = fr.LittleEndian.Element(&r); err != nil {
		return nil, fmt.Errorf("r: %w", err)
	}
	if fixed.S, err = fr.LittleEndian.Element(&s); err != nil {
		return nil, fmt.Errorf("s: %w", err)
	}
	return &fixed, nil
}

// Result is a proof made.
type Result struct {
	Proof   []byte // the partition proofs, groth16.ProofSize bytes each
	Timings engine.Timings
	// GPURetries counts the GPU proofs redone on the CPU because the
	// device failed or its proof did not verify (Options.GPU).
	GPURetries int
}

// Partitions is the number of partition proofs.
func (r Result) Partitions() int { return len(r.Proof) / groth16.ProofSize }

// Prove makes job's proof. An error wrapping ErrInvalid says the proof
// cannot be made because its inputs are false; any other error, that it
// was not made.
func Prove(ctx context.Context, job Job, opt Options) (Result, error) {
	stderr := opt.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if opt.QuietLog {
		log = slog.New(slog.DiscardHandler)
	}
	dopt := daemon.Options{CheckParams: opt.CheckParams, Log: log, Progress: opt.Stderr, ProgressLabel: opt.Label, Residency: opt.Residency,
		CPUOnly: !opt.GPU}
	if job.Request.Kind == proofkind.SnapDeals {
		dopt.UpdatePartition = job.partition
	} else {
		dopt.PoRepPartition = job.partition
	}
	cfg := daemon.OneShotConfig(filecoin.ParamDir(opt.ParamsDir, os.LookupEnv), opt.Workers)
	var retries atomic.Int64
	if opt.GPU {
		if !gpu.Built {
			return Result{}, fmt.Errorf("proving on the GPU: this cuzk was built without CUDA (scripts/build-gpu.sh builds one with it): %w", gpu.ErrNoCUDA)
		}
		dopt.OnGPURetry = func(string) { retries.Add(1) }
		cfg.GPUs.CPUFallback = false
	}
	if opt.Randomness != nil {
		dopt.Randomness = prover.Fixed(*opt.Randomness)
	}
	var rec *procmem.Recorder
	if opt.StageReport != "" {
		rec = procmem.NewRecorder(0)
		partial, err := os.Create(opt.StageReport + ".partial")
		if err != nil {
			return Result{}, fmt.Errorf("stage report: %w", err)
		}
		defer partial.Close()
		rec.OnStep = func(s procmem.Stage) {
			b, _ := json.Marshal(s)
			partial.Write(append(b, '\n'))
		}
		rec.Step("plan and parameters")
		dopt.Stages = func(_ string, partition int, stage string) { rec.Step(fmt.Sprintf("p%d %s", partition, stage)) }
	}
	dir := cfg.SRS.ParamCache
	if job.Circuit != "" {
		if files, err := testparams.PathsForCircuit(job.Circuit, dir); err == nil && testparams.IsTest(files.Params) {
			fmt.Fprintf(stderr, "WARNING: %s are INSECURE TEST PARAMETERS; the proof is useless on the Filecoin network\n", files.Params)
		}
	}
	res, err := daemon.Prove(ctx, cfg, dopt, job.Request)
	if rec != nil {
		if werr := writeStageReport(opt.StageReport, stderr, rec.Stop()); werr != nil && err == nil {
			return Result{}, werr
		}
	}
	if err := outcome(res, err); err != nil {
		return Result{}, err
	}
	return Result{Proof: res.Proof, Timings: res.Timings, GPURetries: int(retries.Load())}, nil
}

// outcome is the error of an engine job: nil when it completed, one
// wrapping ErrInvalid for an invalid request or a failed self-check,
// another otherwise.
func outcome(res engine.Result, err error) error {
	switch {
	case errors.Is(err, engine.ErrInvalidRequest):
		return invalid{err}
	case err != nil:
		return err
	case res.State == engine.StateCompleted:
		return nil
	case errors.Is(res.Err, engine.ErrSelfCheck):
		return invalid{res.Err}
	default:
		return fmt.Errorf("job %s: %w", res.State, res.Err)
	}
}

// invalid marks err as ErrInvalid and reads as err alone: the commands
// print the engine's reason as it is.
type invalid struct{ err error }

func (e invalid) Error() string        { return e.err.Error() }
func (e invalid) Unwrap() error        { return e.err }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

// writeStageReport writes the steps as JSON to path and as a table to w.
func writeStageReport(path string, w io.Writer, stages []procmem.Stage) error {
	b, err := json.MarshalIndent(struct {
		Stages []procmem.Stage `json:"stages"`
	}{stages}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("stage report: %w", err)
	}
	gib := func(n int64) string { return fmt.Sprintf("%.2f", float64(n)/(1<<30)) }
	fmt.Fprintf(w, "%-26s %10s %10s %10s %10s %10s\n", "step", "wall", "cpu", "anon GiB", "file GiB", "rss GiB")
	for _, s := range stages {
		fmt.Fprintf(w, "%-26s %10s %10s %10s %10s %10s\n", s.Name, s.Wall.Round(100*time.Millisecond), s.CPU.Round(100*time.Millisecond), gib(s.PeakAnon), gib(s.PeakFile), gib(s.PeakRSS))
	}
	return nil
}
