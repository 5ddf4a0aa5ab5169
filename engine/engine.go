package engine

// The engine and its collaborators: construction, the workers it starts
// and the bookkeeping types shared by every stage.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// Observer is told about finished jobs and formed batches (metrics). It is
// called with the engine's lock held and must return quickly without
// calling the engine.
type Observer interface {
	JobFinished(r JobReport)
	BatchFormed(circuitID string, jobs int)
}

// JobReport describes a job that reached a final state.
type JobReport struct {
	ID         string
	Kind       proofkind.Descriptor
	CircuitID  string
	State      State
	Partitions int
	Timings    Timings
}

// Options are the engine's collaborators.
type Options struct {
	Config Config
	// Kinds are the proof kinds served, each with its descriptor and its
	// planner (Builtin for a kind proofkind describes).
	Kinds []Kind
	// Backend proves in the engine's one general lane, unless Lanes are
	// given.
	Backend prover.Backend
	// Lanes, when set, are the general prover lanes (one per GPU), each
	// with its backend; Backend is then not used.
	Lanes []Lane
	// UrgentBackend proves in the reserved lane (Config.ReservedLane);
	// nil: the first lane's backend. On the CPU it should have every
	// core, since ordinary work pauses while it runs.
	UrgentBackend prover.Backend
	Params        *srs.Manager
	Budget        *budget.Budget
	Log           *slog.Logger
	// Randomness draws each proof's (r, s); nil means prover.Fresh. Only
	// tests and byte-exact comparisons fix it.
	Randomness prover.RandomnessSource
	// Observer may be nil.
	Observer Observer
	// Devices, when set, reports the accelerators for Status (GetStatus
	// gpus); it is called on every Status, without the engine's lock.
	Devices func() ([]DeviceStatus, error)
	// Stages, when set, is told when each step of a partition starts:
	// "synthesis", then the backend's steps prefixed "prove " (the CPU
	// backend's: groth16.ProveOptions.Stage), then "done" once its proof
	// is assembled. A benchmark (cuzk prove-post --stage-report) measures
	// time and memory per step with it; it runs on the pipeline's
	// goroutines and must be quick.
	Stages func(job string, partition int, stage string)
}

// Engine runs proof jobs: it queues them by priority, batches same-circuit
// jobs, synthesises and proves their partitions in a pipeline under the
// memory budget, self-checks the proofs and keeps results for a while.
type Engine struct {
	cfg     Config
	kinds   map[proofkind.Kind]servedKind
	descs   *proofkind.Set
	lanes   []*lane // general lanes, then the reserved one
	gate    gate    // pauses ordinary work while urgent work runs
	rnd     prover.RandomnessSource
	params  *srs.Manager
	budget  *budget.Budget
	log     *slog.Logger
	obs     Observer
	onStep  func(job string, partition int, stage string)
	devices func() ([]DeviceStatus, error)
	started time.Time

	baseCtx  context.Context
	stopWork context.CancelFunc
	planSem  chan struct{} // one token per plan in progress
	workers  sync.WaitGroup

	mu       sync.Mutex
	jobs     map[string]*job
	retained []*job // final jobs in the order they finished
	// retainedBytes is the memory the retained results hold (job.held).
	retainedBytes int64
	seq           uint64 // numbers batches
	collectors    map[collectorKey]*collector
	// densities holds each circuit's density bitmaps from its first exact
	// synthesis (structure only; shared read-only by later syntheses).
	densities map[string]*r1cs.Densities
	synthQ    []*item
	readyQ    []*item
	stage     stageCounts
	// reservedSynth: the reserved lane's synthesis worker is busy.
	reservedSynth bool
	synthWake     chan struct{}
	proveWake     chan struct{}
	closing       bool
	idle          chan struct{} // closed and replaced when no job is in flight
	counts        counters
	stages        stageLog // stage records of live and recent jobs (timing.go)
	intake        int64    // bytes of requests waiting to be planned or being planned
	// wentIdle receives (without blocking) when the last job in flight
	// ends; the janitor then returns memory (Config.ReturnMemory).
	wentIdle chan struct{}
}

type counters struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
	Attached  uint64 `json:"attached"`
	// Orphaned counts jobs whose callers all left while they were kept
	// for the orphan grace; Reclaimed, the times a caller came back for
	// one.
	Orphaned  uint64                 `json:"orphaned"`
	Reclaimed uint64                 `json:"reclaimed"`
	byKind    map[string]*kindCounts // by kind name
}

type kindCounts struct{ completed, failed, cancelled uint64 }

// Kind is a proof kind the engine serves: what the engine says about it
// (name, default priority, batching) and the planner of its requests. One
// value carries both, so a kind cannot be planned without being described
// or described twice.
type Kind struct {
	Descriptor proofkind.Descriptor
	Planner    Planner
}

// Builtin is the kind k as proofkind describes it, planned by p. A k that
// proofkind does not list has an empty descriptor, which New refuses.
func Builtin(k proofkind.Kind, p Planner) Kind {
	d, ok := proofkind.Lookup(k)
	if !ok {
		d.Kind = k
	}
	return Kind{Descriptor: d, Planner: p}
}

// servedKind is a proof kind the engine serves.
type servedKind struct {
	desc    proofkind.Descriptor
	planner Planner
}

// describe is the set naming every kind: proofkind's built-in kinds (the
// status lists Curio's queues whether they are served or not) and the
// served kinds that it lacks. A served kind whose descriptor differs
// from the built-in one of its wire value or name is refused
// (proofkind.ErrConflict).
func describe(served []Kind) (*proofkind.Set, map[proofkind.Kind]servedKind, error) {
	descs := proofkind.Builtin()
	kinds := make(map[proofkind.Kind]servedKind, len(served))
	for _, k := range served {
		d := k.Descriptor
		if k.Planner == nil {
			return nil, nil, fmt.Errorf("engine: cannot serve proof kind %d (%q): it has no planner", int32(d.Kind), d.Name)
		}
		if _, dup := kinds[d.Kind]; dup {
			return nil, nil, fmt.Errorf("engine: proof kind %d (%q) is served twice", int32(d.Kind), d.Name)
		}
		if b, ok := descs.Lookup(d.Kind); !ok || !reflect.DeepEqual(b, d) {
			var err error
			if descs, err = descs.With(d); err != nil {
				return nil, nil, fmt.Errorf("engine: cannot serve proof kind %d (%q): %w", int32(d.Kind), d.Name, err)
			}
		}
		kinds[d.Kind] = servedKind{desc: d, planner: k.Planner}
	}
	return descs, kinds, nil
}

// New starts an engine and its workers. Stop them with Shutdown.
func New(opt Options) (*Engine, error) {
	if (opt.Backend == nil && len(opt.Lanes) == 0) || opt.Params == nil || opt.Budget == nil {
		return nil, errors.New("engine: Backend (or Lanes), Params and Budget are required")
	}
	for i, l := range opt.Lanes {
		if l.Backend == nil {
			return nil, fmt.Errorf("engine: lane %d (%q) has no backend", i, l.Name)
		}
		if l.Name == "" || l.Name == ReservedLaneName || slices.ContainsFunc(opt.Lanes[:i], func(o Lane) bool { return o.Name == l.Name }) {
			return nil, fmt.Errorf("engine: lane %d: name %q must be set, unique and not %q", i, l.Name, ReservedLaneName)
		}
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	descs, kinds, err := describe(opt.Kinds)
	if err != nil {
		return nil, err
	}
	if opt.Randomness == nil {
		opt.Randomness = prover.Fresh
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := opt.Config.withDefaults()
	e := &Engine{
		cfg:        cfg,
		kinds:      kinds,
		descs:      descs,
		lanes:      newLanes(opt, cfg),
		rnd:        opt.Randomness,
		params:     opt.Params,
		budget:     opt.Budget,
		log:        log,
		obs:        opt.Observer,
		onStep:     opt.Stages,
		devices:    opt.Devices,
		started:    time.Now(),
		baseCtx:    ctx,
		stopWork:   cancel,
		planSem:    make(chan struct{}, cfg.PlanConcurrency),
		jobs:       map[string]*job{},
		collectors: map[collectorKey]*collector{},
		densities:  map[string]*r1cs.Densities{},
		synthWake:  make(chan struct{}),
		proveWake:  make(chan struct{}),
		idle:       make(chan struct{}),
		wentIdle:   make(chan struct{}, 1),
		counts:     counters{byKind: map[string]*kindCounts{}},
	}
	if r := cfg.urgentReserve(opt.Budget.Total()); r > 0 {
		opt.Budget.SetReserve(r, urgentBudgetPrio)
	}
	for i := range e.cfg.SynthesisWorkers {
		e.workers.Add(1)
		go e.synthesisWorker("synthesis "+strconv.Itoa(i), false)
	}
	if cfg.ReservedLane {
		e.workers.Add(1)
		go e.synthesisWorker("synthesis "+ReservedLaneName, true)
	}
	for _, l := range e.lanes {
		e.workers.Add(2)
		go e.proverWorker(l)
		go e.finisher(l)
	}
	e.workers.Add(1)
	go e.janitor()
	return e, nil
}

// Kinds lists the registered proof kinds.
func (e *Engine) Kinds() []proofkind.Kind {
	out := make([]proofkind.Kind, 0, len(e.kinds))
	for k := range e.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Descriptors describes the proof kinds the engine knows (those it serves,
// and the standard kinds GetStatus lists whether served or not).
func (e *Engine) Descriptors() *proofkind.Set { return e.descs }

// logPanic logs a recovered panic with its stack.
func (e *Engine) logPanic(stage string, r any, attrs ...any) {
	e.log.Error("recovered from a panic", append([]any{"stage", stage, "panic", fmt.Sprint(r), "stack", string(debug.Stack())}, attrs...)...)
}

// newJobID returns a random UUID (version 4), as the Rust server does for
// requests without an id.
func newJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// idleSettle is how long the engine must stay idle before the janitor
// returns memory: a stream of jobs keeps its heap.
const idleSettle = time.Second

// janitor drops expired results even when no job finishes, and returns
// freed memory to the operating system once the engine has settled idle
// (Config.ReturnMemory).
func (e *Engine) janitor() {
	defer e.workers.Done()
	period := min(max(e.cfg.CompletedTTL/4, time.Second), time.Minute)
	t := time.NewTicker(period)
	defer t.Stop()
	var settle <-chan time.Time
	for {
		select {
		case <-e.baseCtx.Done():
			return
		case now := <-t.C:
			e.mu.Lock()
			e.pruneLocked(now)
			e.mu.Unlock()
		case <-e.wentIdle:
			if e.cfg.ReturnMemory {
				settle = time.After(idleSettle)
			}
		case <-settle:
			settle = nil
			e.mu.Lock()
			idle := e.liveJobsLocked() == 0 && e.intake == 0
			e.mu.Unlock()
			if idle {
				// Buffers parked in sync.Pools (gRPC's receive buffers:
				// hundreds of MB after a burst of large requests) survive
				// one collection and are dropped by the next, so collect
				// once before FreeOSMemory's own collection and release.
				runtime.GC()
				debug.FreeOSMemory()
				e.log.Debug("engine idle: freed memory returned to the operating system")
			}
		}
	}
}
