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
	"sync"
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

// ErrListen wraps a listener that could not be opened (a port in use, a
// missing socket directory): the machine's state, not the configuration's
// syntax. New opens its listeners before it builds the engine, so nothing
// has started when it returns this.
var ErrListen = errors.New("daemon: cannot listen")

// Daemon is a proving engine with its gRPC and status servers, built from
// a configuration. New builds it and opens its listeners, Serve serves
// until its context ends, Close stops it. Its methods may be called from
// any goroutine.
type Daemon struct {
	log    *slog.Logger
	eng    *engine.Engine
	pv     provers
	budget int64
	// srv, lis and statusLis are nil for an engine alone (Prove).
	srv       *server.Server
	lis       net.Listener
	statusLis net.Listener
	served    chan error // what ended each listener's Serve

	closeOnce sync.Once
	closeErr  error
}

// New builds the daemon cfg describes and opens its listeners: the memory
// budget shared by the parameter manager and the pipeline, the proof kinds
// this build serves with opt.Kinds, the backends ([gpus]), the engine, the
// gRPC server on daemon.listen and the status HTTP server on
// daemon.status_listen. Nothing is served until Serve. cfg must have passed
// config.Validate; a listener that is refused or cannot open is an error,
// and New then leaves nothing open or running.
func New(cfg config.Config, opt Options) (*Daemon, error) {
	transportWarnings, err := cfg.CheckListeners()
	if err != nil {
		return nil, err
	}
	opt.Log = logger(opt.Log)
	log := opt.Log
	for _, w := range cfg.Warnings() {
		log.Warn("config: " + w)
	}
	auth, err := newAuth(cfg.Daemon, log, transportWarnings)
	if err != nil {
		return nil, err
	}
	// The listeners open before the engine is built: a second daemon on a
	// busy port fails at once and says only why.
	lis, statusLis, err := listen(cfg.Daemon)
	if err != nil {
		return nil, err
	}
	closeListeners := func() {
		lis.Close()
		if statusLis != nil {
			statusLis.Close()
		}
	}
	metrics := server.NewMetrics()
	opt.OnGPURetry = alsoRetry(metrics.GPURetry, opt.OnGPURetry)
	d, err := build(&cfg, opt, metrics)
	if err != nil {
		closeListeners()
		return nil, err
	}
	warnMissingParams(log, cfg.SRS.ParamCache)
	if opt.EnableTest {
		log.Warn("test circuits enabled (proof_kind 1000): this daemon serves insecure test proofs")
	}
	srvOpts := []server.Option{server.WithLogger(log), server.WithMetrics(metrics),
		server.WithPprof(cfg.Daemon.Pprof), server.WithStatusHosts(cfg.Daemon.StatusHosts...)}
	if auth != nil {
		srvOpts = append(srvOpts, server.WithAuth(auth))
	}
	d.srv = server.New(d.eng, srvOpts...)
	d.lis, d.statusLis = lis, statusLis
	d.logStarted(&cfg, opt)
	return d, nil
}

// logStarted logs the start-up line (and warns of an intake bound below
// the largest request).
func (d *Daemon) logStarted(cfg *config.Config, opt Options) {
	st := d.eng.Status()
	lim := st.Limits
	if lim.MaxIntakeBytes < server.MaxRecvMsgSize {
		d.log.Warn("engine.max_intake_bytes is below the largest request the gRPC transport admits: two such requests cannot be taken at once",
			"max_intake_bytes", bytesize.Format(lim.MaxIntakeBytes), "max_message", bytesize.Format(server.MaxRecvMsgSize))
	}
	d.log.Info("cuzk daemon started",
		"listen", cfg.Daemon.Listen, "status_listen", cfg.Daemon.StatusAddr(), "param_cache", cfg.SRS.ParamCache,
		"memory_budget", bytesize.Format(d.budget), "kinds", strings.Join(st.Kinds, ","),
		"trust_params", opt.TrustParams, "synthesis_workers", st.Pipeline.SynthesisWorkers, "prover_threads", cfg.Prover.Threads, "pipeline", cfg.Pipeline.Enabled,
		"max_batch_size", st.Batching.MaxBatchSize, "self_check", cfg.Engine.SelfCheck, "max_pending", lim.MaxPending,
		"max_concurrent_plans", lim.PlanConcurrency, "max_intake_bytes", bytesize.Format(lim.MaxIntakeBytes), "gomaxprocs", runtime.GOMAXPROCS(0),
		"lanes", laneNames(st.Lanes), "reserved_lane", st.Urgent.Enabled, "reserved_memory", bytesize.Format(st.Urgent.ReservedBytes))
}

// Engine is the daemon's engine, for submitting in-process without gRPC.
func (d *Daemon) Engine() *engine.Engine { return d.eng }

// Addr is the gRPC listener's address (a unix socket's path, or the TCP
// port bound for ":0"), for client.Dial after Addr().Network()+"://".
func (d *Daemon) Addr() net.Addr { return d.lis.Addr() }

// StatusAddr is the status listener's address; nil without one.
func (d *Daemon) StatusAddr() net.Addr {
	if d.statusLis == nil {
		return nil
	}
	return d.statusLis.Addr()
}

// Serve serves gRPC (and the status HTTP) until ctx ends, and returns nil
// then, or until a listener fails, and returns an error wrapping ErrServe.
// Either way the servers keep answering (GetStatus says the daemon is
// draining) and the jobs keep running until Close: call it next. Serve is
// called once.
func (d *Daemon) Serve(ctx context.Context) error {
	d.served = make(chan error, 2)
	go func() { d.served <- d.srv.Serve(d.lis) }()
	if d.statusLis != nil {
		go func() { d.served <- d.srv.ServeHTTP(d.statusLis) }()
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-d.served:
		if err == nil { // Close stopped it
			return nil
		}
		d.log.Error("listener failed; shutting down", "err", err)
		return fmt.Errorf("%w: listener: %w", ErrServe, err)
	}
}

// Close stops the daemon in order: health NOT_SERVING and new jobs
// refused, the jobs it holds given until ctx's deadline to finish (then
// aborted, with ctx's cause as the reason), gRPC and HTTP stopped, the
// parameters released, then the backends closed (a GPU's pinned copies of
// the parameters). A shutdown that could not finish cleanly is an error
// wrapping ErrServe; jobs aborted at the deadline are not an error. Later
// calls return what the first did.
func (d *Daemon) Close(ctx context.Context) error {
	d.closeOnce.Do(func() {
		d.closeErr = d.stop(ctx)
		if d.srv != nil {
			d.log.Info("cuzk daemon stopped")
		}
	})
	return d.closeErr
}

func (d *Daemon) stop(ctx context.Context) error {
	var err error
	if d.srv != nil {
		// The server's Shutdown drains the engine and releases the
		// parameters; listeners it never served are closed here.
		err = d.srv.Shutdown(ctx)
		for _, l := range []net.Listener{d.lis, d.statusLis} {
			if l != nil {
				l.Close()
			}
		}
	} else {
		err = d.eng.Shutdown(ctx)
		d.eng.ReleaseParams()
	}
	d.pv.close()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		d.log.Error("shutdown", "err", err)
		return fmt.Errorf("%w: shutdown: %w", ErrServe, err)
	}
	return nil
}

// Run serves proofs over gRPC (and the status listener's HTTP) as cfg
// describes until ctx ends, then shuts down within opt.ShutdownTimeout:
// New, Serve and Close. cfg must have passed config.Validate.
func Run(ctx context.Context, cfg config.Config, opt Options) error {
	d, err := New(cfg, opt)
	if err != nil {
		return err
	}
	failed := d.Serve(ctx)
	why := "a listener failed"
	if failed == nil {
		why = context.Cause(ctx).Error()
		d.log.Info("signal received; shutting down", "signal", why, "timeout", opt.ShutdownTimeout)
	}
	// The reason calls and jobs still open at the deadline are given.
	sctx, cancel := context.WithTimeoutCause(context.Background(), opt.ShutdownTimeout,
		fmt.Errorf("%s; --shutdown-timeout %v passed", why, opt.ShutdownTimeout))
	defer cancel()
	return errors.Join(failed, d.Close(sctx))
}

// alsoRetry calls both counters of GPU proofs redone on the CPU.
func alsoRetry(a, b func(reason string)) func(reason string) {
	if b == nil {
		return a
	}
	return func(reason string) { a(reason); b(reason) }
}

// listen opens the gRPC listener and the status one (nil without
// status_listen). A second daemon on a busy port thus fails before its
// engine starts, and says only why.
func listen(d config.Daemon) (grpcLis, statusLis net.Listener, err error) {
	grpcLis, err = server.Listen(d.Listen)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: daemon.listen: %w", ErrListen, err)
	}
	if err := checkBound(d, grpcLis.Addr()); err != nil {
		grpcLis.Close()
		return nil, nil, err
	}
	if d.StatusListen != "" {
		if statusLis, err = server.Listen(d.StatusAddr()); err != nil {
			grpcLis.Close()
			return nil, nil, fmt.Errorf("%w: daemon.status_listen: %w", ErrListen, err)
		}
	}
	return grpcLis, statusLis, nil
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

// NewLogger is the daemon's logger as [logging] configures it: cfg's
// level, text or JSON, to w (nil discards).
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
		opts.ReplaceAttr = secondsAttr
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return slog.New(slog.NewTextHandler(w, opts)), nil
}

// logger is log, or one that discards.
func logger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// secondsAttr writes a duration in the JSON log as seconds, with the unit
// in the key ("timeout": 30s becomes "timeout_s": 30): slog's JSON handler
// writes integer nanoseconds under the bare key, which a reader of the log
// would have to know. The text format keeps Go's "30s". The nanoseconds are
// divided in one step: Duration.Seconds adds the whole and the fractional
// seconds, which writes 3.236 s as 3.2359999999999998.
func secondsAttr(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() != slog.KindDuration {
		return a
	}
	key := a.Key
	if !strings.HasSuffix(key, "_s") {
		key += "_s"
	}
	return slog.Float64(key, float64(a.Value.Duration())/float64(time.Second))
}
