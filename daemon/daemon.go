package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
	"github.com/cuzk-dev/cuzk/server"
)

// TimingEnv, set to 1, logs the per-partition stage lines (engine doc.go)
// at INFO, so they appear without debug logging.
const TimingEnv = "CUZK_TIMING"

// DefaultMaxPending is what daemon.max_pending = 0 means: the engine's
// default, named here so the CLI's help need not import the engine.
const DefaultMaxPending = engine.DefaultMaxPending

// ErrServe wraps what stops a daemon that was serving: a listener that
// failed, or a shutdown that could not finish cleanly. Anything else Run
// returns stopped it before it served.
var ErrServe = errors.New("daemon: serving failed")

// RunOptions are what `cuzk daemon` adds to the configuration.
type RunOptions struct {
	// EnableTest serves the built-in test circuits (proof_kind 1000).
	EnableTest bool
	// TrustParams decodes proving keys without subgroup checks.
	TrustParams bool
	// ShutdownTimeout is how long running jobs may take to finish once ctx
	// ends, before they are aborted.
	ShutdownTimeout time.Duration
	// Kinds are served besides the built-in ones.
	Kinds []Kind
	// Log receives the daemon's log in cfg.Logging's format and level.
	Log io.Writer
	// Started, when set, is called once the listeners are open, with their
	// addresses (the status one nil without a status listener).
	Started func(grpc, status net.Addr)
}

// Run serves proofs over gRPC (and the status listener's HTTP) as cfg
// describes until ctx ends, then shuts down within opt.ShutdownTimeout.
// cfg must have passed config.Validate.
func Run(ctx context.Context, cfg config.Config, opt RunOptions) error {
	transportWarnings, err := cfg.CheckListeners()
	if err != nil {
		return err
	}
	log, err := NewLogger(cfg.Logging, opt.Log)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings() {
		log.Warn("config: " + w)
	}
	auth, err := newAuth(cfg.Daemon, log, transportWarnings)
	if err != nil {
		return err
	}
	metrics := server.NewMetrics()
	eng, total, release, err := NewEngine(&cfg, Options{EnableTest: opt.EnableTest, TrustParams: opt.TrustParams, Log: log, Observer: metrics,
		GPU: true, OnGPURetry: metrics.GPURetry, Kinds: opt.Kinds})
	if err != nil {
		return err
	}
	defer release()
	warnMissingParams(log, cfg.SRS.ParamCache)
	if opt.EnableTest {
		log.Warn("test circuits enabled (proof_kind 1000): this daemon serves insecure test proofs")
	}
	srvOpts := []server.Option{server.WithLogger(log), server.WithMetrics(metrics),
		server.WithPprof(cfg.Daemon.Pprof), server.WithStatusHosts(cfg.Daemon.StatusHosts...)}
	if auth != nil {
		srvOpts = append(srvOpts, server.WithAuth(auth))
	}
	srv := server.New(eng, srvOpts...)

	lis, err := server.Listen(cfg.Daemon.Listen)
	if err != nil {
		_ = eng.Shutdown(context.Background())
		return err
	}
	if err := checkBound(cfg.Daemon, lis.Addr()); err != nil {
		lis.Close()
		_ = eng.Shutdown(context.Background())
		return err
	}
	var hlis net.Listener
	if cfg.Daemon.StatusListen != "" {
		if hlis, err = server.Listen(cfg.Daemon.StatusAddr()); err != nil {
			lis.Close()
			_ = eng.Shutdown(context.Background())
			return err
		}
	}
	st := eng.Status()
	lim := st.Limits
	if lim.MaxIntakeBytes < server.MaxRecvMsgSize {
		log.Warn("engine.max_intake_bytes is below the largest request the gRPC transport admits: two such requests cannot be taken at once",
			"max_intake_bytes", bytesize.Format(lim.MaxIntakeBytes), "max_message", bytesize.Format(server.MaxRecvMsgSize))
	}
	log.Info("cuzk daemon started",
		"listen", cfg.Daemon.Listen, "status_listen", cfg.Daemon.StatusAddr(), "param_cache", cfg.SRS.ParamCache,
		"memory_budget", bytesize.Format(total), "kinds", strings.Join(st.Kinds, ","),
		"trust_params", opt.TrustParams, "synthesis_workers", st.Pipeline.SynthesisWorkers, "prover_threads", cfg.Prover.Threads, "pipeline", cfg.Pipeline.Enabled,
		"max_batch_size", st.Batching.MaxBatchSize, "self_check", cfg.Engine.SelfCheck, "max_pending", lim.MaxPending,
		"max_concurrent_plans", lim.PlanConcurrency, "max_intake_bytes", bytesize.Format(lim.MaxIntakeBytes), "gomaxprocs", runtime.GOMAXPROCS(0),
		"lanes", laneNames(st.Lanes), "reserved_lane", st.Urgent.Enabled, "reserved_memory", bytesize.Format(st.Urgent.ReservedBytes))

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	if hlis != nil {
		go func() { errc <- srv.ServeHTTP(hlis) }()
	}
	if opt.Started != nil {
		var haddr net.Addr
		if hlis != nil {
			haddr = hlis.Addr()
		}
		opt.Started(lis.Addr(), haddr)
	}
	var failed error
	why := "a listener failed"
	select {
	case <-ctx.Done():
		why = context.Cause(ctx).Error()
		log.Info("signal received; shutting down", "signal", why, "timeout", opt.ShutdownTimeout)
	case err := <-errc:
		log.Error("listener failed; shutting down", "err", err)
		failed = fmt.Errorf("%w: listener: %w", ErrServe, err)
	}
	// The reason calls and jobs still open at the deadline are given.
	sctx, cancel := context.WithTimeoutCause(context.Background(), opt.ShutdownTimeout,
		fmt.Errorf("%s; --shutdown-timeout %v passed", why, opt.ShutdownTimeout))
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Error("shutdown", "err", err)
		failed = errors.Join(failed, fmt.Errorf("%w: shutdown: %w", ErrServe, err))
	}
	log.Info("cuzk daemon stopped")
	return failed
}

// laneNames lists the prover lanes for the start-up line: "cpu", or
// "gpu0:cuda+checked,gpu1:…", and the reserved lane.
func laneNames(ls []engine.LaneStatus) string {
	var out []string
	for _, l := range ls {
		name := l.Name
		if name == "" {
			name = "prover"
		}
		out = append(out, name+":"+l.Backend)
	}
	return strings.Join(out, ",")
}

// NewLogger is the daemon's logger: cfg's level, text or JSON, to w.
func NewLogger(l config.Logging, w io.Writer) (*slog.Logger, error) {
	lvl, err := l.SlogLevel()
	if err != nil {
		return nil, err
	}
	if w == nil {
		w = io.Discard
	}
	opts := &slog.HandlerOptions{Level: lvl}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}
