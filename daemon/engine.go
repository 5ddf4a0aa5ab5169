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

// Options are what a caller adds to the configuration when it builds an
// engine: the daemon and the one-shot commands (prove-c2, demo) build
// theirs the same way, so a proof is made by one pipeline whichever
// command asks for it.
type Options struct {
	// EnableTest serves the built-in test circuits (proofkind.Test).
	EnableTest bool
	// TrustParams and CheckParams go to srs.Options.
	TrustParams bool
	CheckParams bool
	Randomness  prover.RandomnessSource // nil: fresh for every proof
	Log         *slog.Logger
	Observer    engine.Observer
	// Progress, when set, receives Prove's progress lines (progress.go),
	// each starting with ProgressLabel.
	Progress      io.Writer
	ProgressLabel string
	// GPU proves on the CUDA devices of [gpus] when there are any (the
	// daemon); the one-shot commands prove on the CPU.
	GPU bool
	// OnGPURetry counts GPU proofs redone on the CPU (a metric).
	OnGPURetry func(reason string)
	// Stages, when set, is told of every partition step (engine.Options.Stages).
	Stages func(job string, partition int, stage string)
	// Residency overrides [srs] residency (the one-shot commands' --residency).
	Residency string
	// Kinds are served besides the built-in ones.
	Kinds []Kind
	// PoRepPartition, when not nil, makes every PoRep C2 job prove that
	// partition alone (porepkind.Planner.Partition: prove-c2 --partition).
	// The daemon leaves it nil: a request's partition_index is 0 for PoRep
	// and means every partition.
	PoRepPartition *int
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

// planners are the kinds this build serves, each with its planner: the
// four Filecoin kinds, the test circuits when opt enables them.
func planners(opt Options) map[proofkind.Kind]engine.Planner {
	kinds := map[proofkind.Kind]engine.Planner{
		proofkind.PoRep:       &porepkind.Planner{Partition: opt.PoRepPartition},
		proofkind.WindowPoSt:  postkind.Window(),
		proofkind.WinningPoSt: postkind.Winning(),
		proofkind.SnapDeals:   &snapkind.Planner{},
	}
	if opt.EnableTest {
		kinds[proofkind.Test] = testkind.New()
	}
	return kinds
}

// NewEngine builds the engine a configuration describes: one memory
// budget shared by the parameter manager and the pipeline, the proof kinds
// this build serves and the backends (chooseProvers). Call the returned
// release after the engine's Shutdown and ReleaseParams.
func NewEngine(cfg *config.Config, opt Options) (*engine.Engine, int64, func(), error) {
	total, err := cfg.Memory.ResolveTotalBudget(config.ReadMemTotal)
	if err != nil {
		return nil, 0, nil, err
	}
	if err := checkBudgetFits(cfg.Memory, total, config.ReadMemTotal); err != nil {
		return nil, 0, nil, err
	}
	pv, err := chooseProvers(cfg, opt.GPU, opt.OnGPURetry, opt.Log)
	if err != nil {
		return nil, 0, nil, err
	}
	logArithmetic(opt.Log)
	bud := budget.New(int64(total))
	locators := []srs.Locator{srs.FilecoinLocator(cfg.SRS.ParamCache)}
	kinds := planners(opt)
	if opt.EnableTest {
		locators = append(locators, testkind.Locator(cfg.SRS.ParamCache))
	}
	descs := proofkind.Builtin()
	for _, k := range opt.Kinds {
		if descs, err = descs.With(k.Descriptor); err != nil {
			pv.close()
			return nil, 0, nil, err
		}
		kinds[k.Descriptor.Kind] = k.Planner
		if k.Locator != nil {
			locators = append(locators, k.Locator)
		}
	}
	// The Go collector lets garbage grow the heap to twice what is live
	// before it runs: 25 GB for a 32 GiB partition's 13 GB. A soft limit
	// just above what the budget has reserved makes it collect (and return
	// pages) sooner, so the process holds about what the budget says.
	bud.SetOnChange(func(used int64) { debug.SetMemoryLimit(HeapLimit(used)) })
	debug.SetMemoryLimit(HeapLimit(0))
	so, err := srsOptions(cfg, opt, pv)
	if err != nil {
		pv.close()
		return nil, 0, nil, err
	}
	so.Locator, so.Budget = srs.Chain(locators...), bud
	params := srs.NewManager(so)
	eng, err := engine.New(engine.Options{
		Config:        engineConfig(cfg),
		Kinds:         kinds,
		Descriptors:   descs,
		Backend:       pv.backend,
		Lanes:         pv.lanes,
		UrgentBackend: pv.urgent,
		Devices:       pv.devices,
		Params:        params,
		Budget:        bud,
		Log:           opt.Log,
		Observer:      opt.Observer,
		Stages:        stepLogger(opt.Stages, opt.Log),
		Randomness:    opt.Randomness,
	})
	if err != nil {
		pv.close()
		return nil, 0, nil, fmt.Errorf("engine: %w", err)
	}
	return eng, int64(total), pv.close, nil
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
// chosen provers (Locator and Budget left to the caller). GPU lanes map the
// parameters whatever the configuration says: supraseal holds its own
// pinned copy, so a decoded one would hold them twice.
func srsOptions(cfg *config.Config, opt Options, pv provers) (srs.Options, error) {
	name := cfg.SRS.Residency
	if opt.Residency != "" {
		name = opt.Residency
	}
	res, err := srs.ParseResidency(name)
	if err != nil {
		return srs.Options{}, err
	}
	if pv.mapParams {
		res = srs.ResidencyMapped
	}
	return srs.Options{
		MinIdle:     cfg.Memory.EvictionMinIdle.Duration,
		TrustParams: opt.TrustParams,
		CheckParams: opt.CheckParams,
		Log:         opt.Log,
		Residency:   res,
		KeepC:       pv.keepC,
		OnLoad:      pv.onLoad,
		OnEvict:     pv.onEvict,
		LoadTimeout: loadTimeout(cfg.SRS.LoadTimeout.Duration),
	}, nil
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
// reserved: 1 GiB and a sixteenth above, for what the budget does not
// count (requests being decoded, status, the runtime). The limit is soft:
// a heap that must grow past it does, with the collector taking at most
// half the CPU meanwhile.
func HeapLimit(used int64) int64 { return used + 1<<30 + used/16 }

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
	eng, _, release, err := NewEngine(&one, opt)
	if err != nil {
		return engine.Result{}, err
	}
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
		_ = eng.Shutdown(sctx)
		eng.ReleaseParams()
		release()
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
