package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/server"
)

// TimingEnv, set to 1, logs the per-partition stage lines (engine doc.go)
// at INFO, so they appear without debug logging.
const TimingEnv = "CUZK_TIMING"

// runDaemon is `cuzk daemon`: it serves proofs over gRPC until SIGINT or
// SIGTERM (ctx), then shuts down within --shutdown-timeout.
func runDaemon(ctx context.Context, args []string, _, stderr io.Writer) int {
	fs := newFlags("daemon", stderr)
	cfgPath := fs.String("config", "", "TOML configuration `file` (default: built-in defaults; see config/cuzk.example.toml)")
	listen := fs.String("listen", "", "gRPC `address`, unix:///path.sock or host:port (overrides daemon.listen)")
	statusListen := fs.String("status-listen", "", "HTTP `address` for /status, /metrics, /debug/pprof (overrides daemon.status_listen)")
	logLevel := fs.String("log-level", "", "trace, debug, info, warn or error (overrides logging.level)")
	paramCache := fs.String("param-cache", "", "parameter `directory` (overrides srs.param_cache and FIL_PROOFS_PARAMETER_CACHE)")
	enableTest := fs.Bool("enable-test-circuits", false, "serve the built-in test circuits (proof_kind 1000); for tests and benchmarks only")
	trustParams := fs.Bool("trust-params", false, "decode proving keys without subgroup checks, as rust-fil-proofs does (loads about twice as fast; the self-check still rejects any proof a bad key makes)")
	shutdownTimeout := fs.Duration("shutdown-timeout", 30*time.Second, "how long running jobs may take to finish after SIGINT/SIGTERM before they are aborted")
	maxPending := fs.Int("max-pending", 0, fmt.Sprintf("most jobs planning, queued or running at once; more submissions get RESOURCE_EXHAUSTED (0: %d)", engine.DefaultMaxPending))
	maxPlans := fs.Int("max-concurrent-plans", 0, "most requests decoded and checked at once (0: GOMAXPROCS)")
	sec := addSecurityFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk daemon")
	if *maxPending < 0 || *maxPlans < 0 {
		return fail("--max-pending and --max-concurrent-plans must not be negative")
	}

	cfg := config.Default()
	if *cfgPath != "" {
		c, err := config.Load(*cfgPath)
		if err != nil {
			return fail("%v", err)
		}
		cfg = *c
	}
	cfg.ApplyEnv(os.LookupEnv)
	if *listen != "" {
		cfg.Daemon.Listen = *listen
	}
	if *statusListen != "" {
		cfg.Daemon.StatusListen = *statusListen
	}
	if *logLevel != "" {
		cfg.Logging.Level = *logLevel
	}
	if *paramCache != "" {
		cfg.SRS.ParamCache = *paramCache
	}
	sec.apply(&cfg.Daemon)
	if err := cfg.Validate(); err != nil {
		return fail("%v", err)
	}
	transportWarnings, err := cfg.CheckListeners()
	if err != nil {
		return fail("%v", err)
	}
	log, err := newLogger(cfg.Logging, stderr)
	if err != nil {
		return fail("%v", err)
	}
	for _, w := range cfg.Warnings() {
		log.Warn("config: " + w)
	}
	auth, err := newAuth(cfg.Daemon, log, transportWarnings)
	if err != nil {
		return fail("%v", err)
	}

	// The flags override [engine] max_pending and max_concurrent_plans.
	if *maxPending > 0 {
		cfg.Engine.MaxPending = uint32(*maxPending)
	}
	if *maxPlans > 0 {
		cfg.Engine.MaxConcurrentPlans = uint32(*maxPlans)
	}
	metrics := server.NewMetrics()
	eng, total, release, err := newEngine(&cfg, engineOptions{enableTest: *enableTest, trustParams: *trustParams, log: log, observer: metrics,
		gpu: true, onGPURetry: metrics.GPURetry})
	if err != nil {
		return fail("%v", err)
	}
	defer release()
	if *enableTest {
		log.Warn("test circuits enabled (proof_kind 1000): this daemon serves insecure test proofs")
	}
	srvOpts := []server.Option{server.WithLogger(log), server.WithMetrics(metrics)}
	if auth != nil {
		srvOpts = append(srvOpts, server.WithAuth(auth))
	}
	srv := server.New(eng, srvOpts...)

	lis, err := server.Listen(cfg.Daemon.Listen)
	if err != nil {
		_ = eng.Shutdown(context.Background())
		return fail("%v", err)
	}
	var hlis net.Listener
	if cfg.Daemon.StatusListen != "" {
		if hlis, err = server.Listen(cfg.Daemon.StatusAddr()); err != nil {
			lis.Close()
			_ = eng.Shutdown(context.Background())
			return fail("%v", err)
		}
	}
	st := eng.Status()
	lim := st.Limits
	kindNames := make([]string, 0, len(eng.Kinds()))
	for _, k := range eng.Kinds() {
		kindNames = append(kindNames, k.String())
	}
	log.Info("cuzk daemon started",
		"listen", cfg.Daemon.Listen, "status_listen", cfg.Daemon.StatusAddr(), "param_cache", cfg.SRS.ParamCache,
		"memory_budget", budget.FormatBytes(total), "kinds", strings.Join(kindNames, ","),
		"trust_params", *trustParams, "synthesis_workers", st.Pipeline.SynthesisWorkers, "prover_threads", cfg.Prover.Threads, "pipeline", cfg.Pipeline.Enabled,
		"max_batch_size", st.Batching.MaxBatchSize, "self_check", cfg.Engine.SelfCheck, "max_pending", lim.MaxPending,
		"max_concurrent_plans", lim.PlanConcurrency, "max_intake_bytes", budget.FormatBytes(lim.MaxIntakeBytes), "gomaxprocs", runtime.GOMAXPROCS(0),
		"lanes", laneNames(st.Lanes), "reserved_lane", st.Urgent.Enabled, "reserved_memory", budget.FormatBytes(st.Urgent.ReservedBytes))

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(lis) }()
	if hlis != nil {
		go func() { errc <- srv.ServeHTTP(hlis) }()
	}
	code := exitOK
	why := "a listener failed"
	select {
	case <-ctx.Done():
		why = context.Cause(ctx).Error()
		log.Info("signal received; shutting down", "signal", why, "timeout", *shutdownTimeout)
	case err := <-errc:
		log.Error("listener failed; shutting down", "err", err)
		code = 1
	}
	// The reason calls and jobs still open at the deadline are given.
	sctx, cancel := context.WithTimeoutCause(context.Background(), *shutdownTimeout,
		fmt.Errorf("%s; --shutdown-timeout %v passed", why, *shutdownTimeout))
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Error("shutdown", "err", err)
		code = 1
	}
	log.Info("cuzk daemon stopped")
	return code
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

func newLogger(l config.Logging, w io.Writer) (*slog.Logger, error) {
	lvl, err := l.SlogLevel()
	if err != nil {
		return nil, err
	}
	opts := &slog.HandlerOptions{Level: lvl}
	if l.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}
