package daemon

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/srs"
)

// Options are what a caller adds to the configuration: the daemon
// (New, Run) and the one-shot commands (Prove: prove-c2, demo) build
// their engines the same way, so a proof is made by one pipeline whichever
// command asks for it. The zero value serves the built-in Filecoin kinds
// on the backends [gpus] names.
type Options struct {
	// EnableTest serves the built-in test circuits (proofkind.Test,
	// proof_kind 1000).
	EnableTest bool
	// TrustParams and CheckParams go to srs.Options.
	TrustParams bool
	CheckParams bool
	// Kinds are served besides the built-in ones.
	Kinds []Kind
	// Log receives the daemon's log; nil discards it. NewLogger gives the
	// one [logging] configures.
	Log *slog.Logger
	// CPUOnly proves on the CPU whatever [gpus] says (the one-shot
	// commands without --gpu).
	CPUOnly bool
	// OnGPURetry, when set, is told of every GPU proof redone on the CPU
	// (New counts them in a metric too).
	OnGPURetry func(reason string)
	// Randomness draws each proof's (r, s); nil: fresh for every proof.
	Randomness prover.RandomnessSource
	// Stages, when set, is told of every partition step (engine.Options.Stages).
	Stages func(job string, partition int, stage string)
	// Residency overrides [srs] residency (the one-shot commands' --residency).
	Residency string
	// PoRepPartition, when not nil, makes every PoRep C2 job prove that
	// partition alone (porepkind.Planner.Partition: prove-c2 --partition).
	// The daemon leaves it nil: a request's partition_index is 0 for PoRep
	// and means every partition.
	PoRepPartition *int
	// ShutdownTimeout is how long Run gives running jobs to finish once
	// its ctx ends, before they are aborted.
	ShutdownTimeout time.Duration
	// Progress, when set, receives Prove's progress lines (progress.go),
	// each starting with ProgressLabel.
	Progress      io.Writer
	ProgressLabel string
	// UpdatePartition is PoRepPartition for SnapDeals jobs
	// (snapkind.Planner.Partition: prove-update --partition).
	UpdatePartition *int
}

// Kind is a proof kind served besides the built-in ones (a test's toy
// kind, a fork's own): its descriptor, its planner and where its
// parameters are.
type Kind struct {
	Descriptor proofkind.Descriptor
	Planner    engine.Planner
	// Locator finds the parameter files of the kind's circuits; nil looks
	// for them as Filecoin circuits in [srs] param_cache.
	Locator srs.Locator
}

// servedKinds are the kinds this build serves, each with its planner (the
// four Filecoin kinds, the test circuits when opt enables them, then
// opt.Kinds), and the locators of their parameters.
func servedKinds(cfg *config.Config, opt Options) ([]engine.Kind, srs.Locator) {
	kinds := []engine.Kind{
		engine.Builtin(proofkind.PoRep, &porepkind.Planner{Partition: opt.PoRepPartition}),
		engine.Builtin(proofkind.WindowPoSt, postkind.Window()),
		engine.Builtin(proofkind.WinningPoSt, postkind.Winning()),
		engine.Builtin(proofkind.SnapDeals, &snapkind.Planner{Partition: opt.UpdatePartition}),
	}
	locators := []srs.Locator{srs.FilecoinLocator(cfg.SRS.ParamCache)}
	if opt.EnableTest {
		kinds = append(kinds, engine.Builtin(proofkind.Test, testkind.New()))
		locators = append(locators, testkind.Locator(cfg.SRS.ParamCache))
	}
	for _, k := range opt.Kinds {
		kinds = append(kinds, engine.Kind{Descriptor: k.Descriptor, Planner: k.Planner})
		if k.Locator != nil {
			locators = append(locators, k.Locator)
		}
	}
	return kinds, srs.Chain(locators...)
}

// build is a Daemon without servers: one memory budget shared by the
// parameter manager and the pipeline, the kinds served, the backends
// (chooseProvers) and the engine over them. opt.Log must be set.
func build(cfg *config.Config, opt Options, obs engine.Observer) (*Daemon, error) {
	total, err := cfg.Memory.ResolveTotalBudget(config.ReadMemTotal)
	if err != nil {
		return nil, err
	}
	if err := checkBudgetFits(cfg.Memory, total, config.ReadMemTotal); err != nil {
		return nil, err
	}
	pv, err := chooseProvers(cfg, opt.CPUOnly, opt.OnGPURetry, opt.Log)
	if err != nil {
		return nil, err
	}
	logArithmetic(opt.Log)
	bud := budget.New(int64(total))
	// The Go collector lets garbage grow the heap to twice what is live
	// before it runs: 25 GB for a 32 GiB partition's 13 GB. A soft limit
	// just above what the budget has reserved makes it collect (and return
	// pages) sooner, so the process holds about what the budget says.
	bud.SetOnChange(func(used int64) { debug.SetMemoryLimit(HeapLimit(used)) })
	debug.SetMemoryLimit(HeapLimit(0))
	so, err := srsOptions(cfg, opt, pv)
	if err != nil {
		pv.close()
		return nil, err
	}
	kinds, locator := servedKinds(cfg, opt)
	so.Locator, so.Budget = locator, bud
	eng, err := engine.New(engine.Options{
		Config:        engineConfig(cfg),
		Kinds:         kinds,
		Backend:       pv.backend,
		Lanes:         pv.lanes,
		UrgentBackend: pv.urgent,
		Devices:       pv.devices(),
		Params:        srs.NewManager(so),
		Budget:        bud,
		Log:           opt.Log,
		Observer:      obs,
		Stages:        stepLogger(opt.Stages, opt.Log),
		Randomness:    opt.Randomness,
	})
	if err != nil {
		pv.close()
		return nil, err // engine.New names itself
	}
	return &Daemon{log: opt.Log, eng: eng, pv: pv, budget: int64(total)}, nil
}

// stepLogger is the engine's Stages hook: next, and a debug line per
// partition step, so that a long job's steps (a 32 GiB partition's MSMs
// take minutes each) can be lined up with memory sampled from outside.
func stepLogger(next func(job string, partition int, stage string), log *slog.Logger) func(string, int, string) {
	if log == nil || !log.Enabled(context.Background(), slog.LevelDebug) {
		return next
	}
	return func(job string, partition int, stage string) {
		log.Debug("partition step", "job", job, "partition", partition, "step", stage)
		if next != nil {
			next(job, partition, stage)
		}
	}
}

// srsOptions are the parameter manager's options for cfg, opt and the
// chosen provers (Locator and Budget left to the caller), with what the
// backend wants of the parameters (provers.paramHooks).
func srsOptions(cfg *config.Config, opt Options, pv provers) (srs.Options, error) {
	name := cfg.SRS.Residency
	if opt.Residency != "" {
		name = opt.Residency
	}
	res, err := srs.ParseResidency(name)
	if err != nil {
		return srs.Options{}, err
	}
	so := srs.Options{
		MinIdle:     cfg.Memory.EvictionMinIdle.Duration,
		TrustParams: opt.TrustParams,
		CheckParams: opt.CheckParams,
		Log:         opt.Log,
		Residency:   res,
		LoadTimeout: loadTimeout(cfg.SRS.LoadTimeout.Duration),
	}
	pv.paramHooks(&so)
	return so, nil
}

// loadTimeout maps srs.load_timeout onto srs.Options.LoadTimeout, where 0
// is the default: 0 (no bound) is negative there.
func loadTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// HeapLimit is the Go heap's soft limit while used bytes of the budget are
// reserved: 512 MiB and a sixty-fourth above, for what the budget does not
// count (requests being decoded, status, the runtime). The collector lets
// garbage fill the heap up to this limit before it runs, so the headroom is
// what a proof's peak RSS exceeds its reservation by: with 1 GiB and a
// sixteenth, a whole 32 GiB PoRep C2 peaked at 1.12x its 12.63 GiB
// reservation. The live heap stays under the reservation (the large vectors
// are noscan, so a collection near the limit costs little), and the limit
// is soft: a heap that must grow past it does, with the collector taking at
// most half the CPU meanwhile.
func HeapLimit(used int64) int64 { return used + 512<<20 + used/64 }

// checkBudgetFits refuses a fixed memory budget above the machine's
// memory: the engine would admit work the machine cannot hold and the
// kernel would kill the daemon mid-proof instead of the budget making jobs
// wait. ("auto" is MemTotal minus the safety margin and always fits.)
func checkBudgetFits(m config.Memory, total config.ByteSize, memTotal config.MemTotalFunc) error {
	if m.TotalBudget.Auto {
		return nil
	}
	have, err := memTotal()
	if err != nil {
		return nil // nothing to compare with (not Linux)
	}
	if uint64(total) > have {
		return fmt.Errorf("memory.total_budget = %s is more than this machine's memory (MemTotal %s): jobs would be admitted that the machine cannot hold; set a budget below MemTotal, or \"auto\" (MemTotal minus memory.safety_margin)",
			total, config.ByteSize(have))
	}
	return nil
}

// engineConfig maps the TOML keys onto the engine. A key left at zero
// stays zero, so the engine's own default applies (engine.Config states
// each default once).
func engineConfig(c *config.Config) engine.Config {
	workers := int(c.Synthesis.Threads)
	if mp := int(c.Pipeline.MaxParallelSynthesis); mp > 0 {
		if workers == 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		workers = min(workers, mp)
	}
	return engine.Config{
		SynthesisWorkers:     workers,
		SynthesisConcurrency: int(c.Pipeline.SynthesisConcurrency),
		Lookahead:            int(c.Pipeline.SynthesisLookahead),
		NoPipeline:           !c.Pipeline.Enabled,
		MaxBatchSize:         int(c.Scheduler.MaxBatchSize),
		MaxBatchWait:         c.Scheduler.MaxBatchWait(),
		SkipSelfCheck:        !c.Engine.SelfCheck,
		CompletedTTL:         c.Engine.CompletedJobTTL.Duration,
		CompletedMax:         int(c.Engine.CompletedJobMax),
		CompletedMaxBytes:    int64(min(c.Engine.CompletedJobMaxBytes, 1<<62)),
		OrphanGrace:          orphanGrace(c.Engine.OrphanGrace.Duration),
		MaxPending:           int(c.Engine.MaxPending),
		PlanConcurrency:      int(c.Engine.MaxConcurrentPlans),
		MaxIntakeBytes:       int64(min(c.Engine.MaxIntakeBytes, 1<<62)),
		ReturnMemory:         true,
		LogTiming:            os.Getenv(TimingEnv) == "1",
		ReservedLane:         c.Pipeline.ReservedLane,
		UrgentMaxDomain:      int(c.Pipeline.UrgentMaxDomain),
		UrgentReserve:        urgentReserve(c.Memory.ReservedLaneBudget),
	}
}

// orphanGrace maps engine.orphan_grace onto engine.Config.OrphanGrace,
// where 0 is the default: 0 (no grace) is negative there.
func orphanGrace(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// urgentReserve maps memory.reserved_lane_budget onto
// engine.Config.UrgentReserve: "auto" is the engine's default (0), a
// size is itself, and 0 reserves nothing (negative).
func urgentReserve(b config.Budget) int64 {
	switch {
	case b.Auto:
		return 0
	case b.Size == 0:
		return -1
	}
	return int64(b.Size)
}

// Prove proves one request through an engine of its own, as the
// daemon would, and shuts it down. A job that fails (its vanilla proof is
// invalid, its proof did not verify) is a Result with StateFailed, not an
// error.
func Prove(ctx context.Context, cfg *config.Config, opt Options, req *engine.Request) (engine.Result, error) {
	// Nobody can come back for a job of this process once its caller
	// (the command) gave up: no orphan grace.
	one := *cfg
	one.Engine.OrphanGrace = config.Duration{}
	opt.Log = logger(opt.Log)
	d, err := build(&one, opt, nil)
	if err != nil {
		return engine.Result{}, err
	}
	eng := d.eng
	defer func() {
		// After a proof nothing is in flight and Shutdown returns at once.
		// After a signal the job is cancelled already, and a stage in
		// progress (an MSM of 2^22 points and more) would only be waited
		// for until it checks again: the process is about to exit, so give
		// it a second.
		wait := 10 * time.Second
		if ctx.Err() != nil {
			wait = time.Second
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
		defer cancel()
		_ = d.Close(sctx)
	}()
	if opt.Progress != nil {
		pctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			watchProgress(pctx, opt.Progress, opt.ProgressLabel, eng.Status, progressPoll, progressHeartbeat)
		}()
		defer func() { stop(); <-done }()
	}
	return eng.Prove(ctx, req)
}

// OneShotConfig is the configuration of a one-shot command: the daemon's
// defaults with parameters read from dir and the given CPU budget.
func OneShotConfig(dir string, workers int) *config.Config {
	cfg := config.Default()
	cfg.SRS.ParamCache = dir
	cfg.Synthesis.Threads = uint32(max(workers, 0))
	cfg.Prover.Threads = uint32(max(workers, 0))
	return &cfg
}
