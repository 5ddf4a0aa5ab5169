package engine

// The engine and its collaborators: construction, the workers it starts
// and the bookkeeping types shared by every stage.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
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
	Kind       ProofKind
	CircuitID  string
	State      State
	Partitions int
	Timings    Timings
}

// Options are the engine's collaborators.
type Options struct {
	Config  Config
	Kinds   map[ProofKind]Kind
	Backend prover.Backend
	Params  *srs.Manager
	Budget  *budget.Budget
	Log     *slog.Logger
	// Randomness draws each proof's (r, s); nil means prover.Fresh. Only
	// tests and byte-exact comparisons fix it.
	Randomness prover.RandomnessSource
	// Observer may be nil.
	Observer Observer
}

// Engine runs proof jobs: it queues them by priority, batches same-circuit
// jobs, synthesises and proves their partitions in a pipeline under the
// memory budget, self-checks the proofs and keeps results for a while.
type Engine struct {
	cfg     Config
	kinds   map[ProofKind]Kind
	backend prover.Backend
	rnd     prover.RandomnessSource
	params  *srs.Manager
	budget  *budget.Budget
	log     *slog.Logger
	obs     Observer
	started time.Time

	baseCtx  context.Context
	stopWork context.CancelFunc
	finCh    chan *finishing // closed by the prover when it stops
	planSem  chan struct{}   // one token per plan in progress
	workers  sync.WaitGroup

	mu         sync.Mutex
	jobs       map[string]*job
	retained   []*job // final jobs in the order they finished
	seq        uint64 // numbers batches
	collectors map[collectorKey]*collector
	// densities holds each circuit's density bitmaps from its first exact
	// synthesis (structure only; shared read-only by later syntheses).
	densities map[string]*r1cs.Densities
	synthQ    []*item
	readyQ    []*item
	stage     stageCounts
	synthWake chan struct{}
	proveWake chan struct{}
	closing   bool
	idle      chan struct{} // closed and replaced when no job is in flight
	counts    counters
	stages    stageLog // stage records of live and recent jobs (timing.go)
	intake    int64    // bytes of requests waiting to be planned or being planned
	// wentIdle receives (without blocking) when the last job in flight
	// ends; the janitor then returns memory (Config.ReturnMemory).
	wentIdle chan struct{}
}

type counters struct {
	Completed uint64 `json:"completed"`
	Failed    uint64 `json:"failed"`
	Cancelled uint64 `json:"cancelled"`
	Attached  uint64 `json:"attached"`
	byKind    map[ProofKind]*kindCounts
}

type kindCounts struct{ completed, failed, cancelled uint64 }

// New starts an engine and its workers. Stop them with Shutdown.
func New(opt Options) (*Engine, error) {
	if opt.Backend == nil || opt.Params == nil || opt.Budget == nil {
		return nil, errors.New("engine: Backend, Params and Budget are required")
	}
	log := opt.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kinds := make(map[ProofKind]Kind, len(opt.Kinds))
	for k, v := range opt.Kinds {
		if k == ProofKindUnspecified || v == nil {
			return nil, fmt.Errorf("engine: cannot register a Kind for %v", k)
		}
		kinds[k] = v
	}
	if opt.Randomness == nil {
		opt.Randomness = prover.Fresh
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := opt.Config.withDefaults()
	e := &Engine{
		cfg:        cfg,
		kinds:      kinds,
		backend:    opt.Backend,
		rnd:        opt.Randomness,
		params:     opt.Params,
		budget:     opt.Budget,
		log:        log,
		obs:        opt.Observer,
		started:    time.Now(),
		baseCtx:    ctx,
		stopWork:   cancel,
		finCh:      make(chan *finishing, 1),
		planSem:    make(chan struct{}, cfg.PlanConcurrency),
		jobs:       map[string]*job{},
		collectors: map[collectorKey]*collector{},
		densities:  map[string]*r1cs.Densities{},
		synthWake:  make(chan struct{}),
		proveWake:  make(chan struct{}),
		idle:       make(chan struct{}),
		wentIdle:   make(chan struct{}, 1),
		counts:     counters{byKind: map[ProofKind]*kindCounts{}},
	}
	for i := range e.cfg.SynthesisWorkers {
		e.workers.Add(1)
		go e.synthesisWorker(i)
	}
	e.workers.Add(3)
	go e.proverWorker()
	go e.finisher()
	go e.janitor()
	return e, nil
}

// Kinds lists the registered proof kinds.
func (e *Engine) Kinds() []ProofKind {
	out := make([]ProofKind, 0, len(e.kinds))
	for k := range e.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

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
