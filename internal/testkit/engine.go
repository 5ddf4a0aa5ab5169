package testkit

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// EngineOptions describe a test engine; the zero value serves the test
// circuits test-k10 and test-k12 (TestParams) on the CPU within a 4 GiB
// budget.
type EngineOptions struct {
	Config engine.Config
	// Kinds are the kinds served; nil serves the test kind only.
	Kinds []engine.Kind
	// Locator finds the parameters; nil: test-k10 and test-k12 in a
	// directory of the test's own (TestParams).
	Locator srs.Locator
	// Budget is the memory budget in bytes; 0 is 4 GiB.
	Budget int64
	// MinIdle and TrustParams go to srs.Options.
	MinIdle     time.Duration
	TrustParams bool
	// Backend, Lanes, UrgentBackend, Randomness, Observer and Devices go
	// to engine.Options; a nil Backend without Lanes is the CPU backend.
	Backend       prover.Backend
	Lanes         []engine.Lane
	UrgentBackend prover.Backend
	Randomness    prover.RandomnessSource
	Observer      engine.Observer
	Devices       func() ([]engine.DeviceStatus, error)
	// Log is the engine's and the parameter manager's logger; nil
	// discards.
	Log *slog.Logger
}

// Engine is a test engine with the parameter manager and budget it was
// built with. It is shut down (its jobs given 30 s) and its parameters
// released when the test ends.
type Engine struct {
	*engine.Engine
	Params *srs.Manager
	Budget *budget.Budget
	t      testing.TB
}

// NewEngine builds the engine opt describes (engine.New) and fails t if it
// cannot.
func NewEngine(t testing.TB, opt EngineOptions) *Engine {
	t.Helper()
	if opt.Budget == 0 {
		opt.Budget = 4 << 30
	}
	if opt.Kinds == nil {
		opt.Kinds = []engine.Kind{engine.Builtin(proofkind.Test, testkind.New())}
	}
	if opt.Locator == nil {
		opt.Locator = testkind.Locator(TestParams(t, 10, 12))
	}
	if opt.Backend == nil && len(opt.Lanes) == 0 {
		opt.Backend = &cpu.Backend{}
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	b := budget.New(opt.Budget)
	m := srs.NewManager(srs.Options{Locator: opt.Locator, Budget: b, MinIdle: opt.MinIdle, TrustParams: opt.TrustParams, Log: opt.Log})
	e, err := engine.New(engine.Options{
		Config: opt.Config, Kinds: opt.Kinds, Backend: opt.Backend, Lanes: opt.Lanes,
		UrgentBackend: opt.UrgentBackend, Params: m, Budget: b, Log: opt.Log, Observer: opt.Observer,
		Randomness: opt.Randomness, Devices: opt.Devices,
	})
	if err != nil {
		t.Fatal(err)
	}
	te := &Engine{Engine: e, Params: m, Budget: b, t: t}
	t.Cleanup(te.Close)
	return te
}

// Close shuts the engine down (its jobs given 30 s) and releases its
// parameters now, for a test that builds one engine after another; the
// end of the test does it otherwise.
func (e *Engine) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		e.t.Errorf("engine shutdown: %v", err)
	}
	e.ReleaseParams()
}

// Logger is a debug-level logger that writes to t's log (shown with -v or
// when the test fails) and to also, when set (a SyncBuffer a test reads).
func Logger(t testing.TB, also *SyncBuffer) *slog.Logger {
	w := testLog{t: t, also: also}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testLog struct {
	t    testing.TB
	also *SyncBuffer
}

func (w testLog) Write(p []byte) (int, error) {
	w.t.Helper()
	if testing.Verbose() {
		w.t.Logf("%s", p)
	}
	if w.also != nil {
		w.also.Write(p)
	}
	return len(p), nil
}
