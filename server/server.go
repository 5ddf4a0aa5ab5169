package server

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server/history"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/server/statuspage"
)

// Server serves one engine over gRPC and, optionally, HTTP.
type Server struct {
	eng     *engine.Engine
	log     *slog.Logger
	metrics *Metrics
	health  *health.Server
	grpc    *grpc.Server
	auth    *Auth // nil: callers are not authenticated
	calls   *callTracker

	pprof       bool            // serve /debug/pprof/ on the status listener
	statusHosts map[string]bool // Host names the status listener answers to, besides loopback

	mu       sync.Mutex
	http     []*http.Server
	shutdown bool // Shutdown has begun: no new HTTP server starts

	// The sampler of the gauges the status page's history charts.
	sampleEvery  time.Duration
	stopSampling context.CancelFunc
	sampling     chan struct{} // closed when the sampler has returned
}

// DefaultHistorySampling is how often the server reads the queue depth and
// the memory in use into the status page's history.
const DefaultHistorySampling = 10 * time.Second

// Option configures New.
type Option interface{ apply(*Server) }

type optionFunc func(*Server)

func (f optionFunc) apply(s *Server) { f(s) }

// WithLogger sets the logger (default: discard).
func WithLogger(l *slog.Logger) Option { return optionFunc(func(s *Server) { s.log = l }) }

// WithMetrics uses m (the Observer the engine was built with) instead of a
// fresh registry.
func WithMetrics(m *Metrics) Option { return optionFunc(func(s *Server) { s.metrics = m }) }

// WithAuth authenticates every RPC and every status request with a (see
// NewAuth and Caller): nothing reaches a service, health and reflection
// included, before it passes.
func WithAuth(a *Auth) Option { return optionFunc(func(s *Server) { s.auth = a }) }

// WithPprof serves Go's profiler under /debug/pprof/ on the status
// listener (behind WithAuth's credentials like every status request). Off
// by default: a CPU profile or trace costs the daemon CPU for as long as it
// is asked to run, and the command line is no one else's business.
func WithPprof(on bool) Option { return optionFunc(func(s *Server) { s.pprof = on }) }

// WithStatusHosts adds host names (or addresses) the status listener
// answers to in the Host header besides loopback ones (see hostAllowed).
func WithStatusHosts(hosts ...string) Option {
	return optionFunc(func(s *Server) {
		for _, h := range hosts {
			s.statusHosts[normalizeHost(h)] = true
		}
	})
}

// WithHistorySampling reads the gauges into the history every d instead of
// DefaultHistorySampling (d <= 0: the default).
func WithHistorySampling(d time.Duration) Option {
	return optionFunc(func(s *Server) {
		if d > 0 {
			s.sampleEvery = d
		}
	})
}

// New returns a server for eng with the ProvingEngine, health and
// reflection services registered, and starts the history's sampler
// (Shutdown stops it).
func New(eng *engine.Engine, opts ...Option) *Server {
	s := &Server{eng: eng, log: slog.New(slog.DiscardHandler), calls: newCallTracker(), sampleEvery: DefaultHistorySampling,
		statusHosts: map[string]bool{}}
	for _, o := range opts {
		o.apply(s)
	}
	if s.metrics == nil {
		s.metrics = NewMetrics()
	}
	s.metrics.reg.MustRegister(newStatusCollector(eng))
	var served []proofkind.Descriptor
	for _, k := range eng.Kinds() {
		if d, ok := eng.Descriptors().Lookup(k); ok {
			served = append(served, d)
		}
	}
	s.metrics.serving(served)
	wire := newWireCodec()
	gopts := append(transportOptions(), grpc.ForceServerCodecV2(wire),
		// First, so that a message that did not decode reaches nothing
		// else, and its filed error is always taken (wire.go).
		grpc.ChainUnaryInterceptor(wire.unary), grpc.ChainStreamInterceptor(wire.stream),
		// Next, so every call, rejected ones too, ends at the shutdown
		// deadline with an answer (drain.go).
		grpc.ChainUnaryInterceptor(s.calls.unary), grpc.ChainStreamInterceptor(s.calls.stream))
	if s.auth != nil {
		gopts = append(gopts, grpc.InTapHandle(s.auth.tap), grpc.ChainUnaryInterceptor(s.auth.unary), grpc.ChainStreamInterceptor(s.auth.stream))
		if s.auth.cert != nil {
			gopts = append(gopts, grpc.Creds(tcpTLS{credentials.NewTLS(s.auth.tlsConfig())}))
		}
	}
	s.grpc = grpc.NewServer(gopts...)
	cuzkv1.RegisterProvingEngineServer(s.grpc, &service{s: s})
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	s.health.SetServingStatus(cuzkv1.ProvingEngine_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	reflection.Register(s.grpc)
	ctx, cancel := context.WithCancel(context.Background())
	s.stopSampling, s.sampling = cancel, make(chan struct{})
	go s.sample(ctx)
	return s
}

// sample records the engine's gauges in the history now and every
// sampleEvery until ctx ends.
func (s *Server) sample(ctx context.Context) {
	defer close(s.sampling)
	tick := time.NewTicker(s.sampleEvery)
	defer tick.Stop()
	for {
		st := s.eng.Status()
		h := history.Sample{BudgetUsed: st.Memory.UsedBytes, BudgetTotal: st.Memory.TotalBytes, ResidentAnon: st.Memory.ProcessAnonBytes}
		for _, q := range st.Queues {
			h.QueueDepth += q.Pending
			h.Running += q.InProgress
		}
		s.metrics.history.Record(h)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Metrics is the server's registry.
func (s *Server) Metrics() *Metrics { return s.metrics }

// Serve serves gRPC on l until Shutdown, with at most MaxConnections
// connections open.
func (s *Server) Serve(l net.Listener) error {
	s.log.Info("gRPC listening", "addr", l.Addr().String(), "max_connections", MaxConnections)
	l = newLimitListener(l, MaxConnections, "listen", s.log)
	if err := s.grpc.Serve(l); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// HTTPHandler serves GET /status (the statusdoc.Status document built
// from the engine's Status), the status page (GET / and its
// /timeline.svg and /history.svg, server/statuspage), GET /metrics and,
// with WithPprof, /debug/pprof/. A request over TCP whose Host is not
// one the listener answers to gets 421 before anything else (hostCheck).
func (s *Server) HTTPHandler() http.Handler {
	mux := http.NewServeMux()
	page := statuspage.New(func() statusdoc.Status { return statusDocument(s.eng.Status()) }, s.metrics.history.Snapshot, s.log)
	mux.Handle("GET "+statuspage.PagePath+"{$}", page)
	mux.Handle("GET "+statuspage.TimelinePath, page)
	mux.Handle("GET "+statuspage.HistoryPath, page)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(statusDocument(s.eng.Status())); err != nil {
			s.log.Debug("writing /status", "err", err)
		}
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	if s.pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	var h http.Handler = mux
	if s.auth != nil {
		h = s.auth.httpHandler(mux)
	}
	return s.hostCheck(h)
}

// Limits of the status listener's http.Server. What it serves is small:
// GETs of /status, /metrics, the page and its SVGs, and one POST of a
// token to /login; so every phase of a request can be short, and a
// connection that idles or trickles is closed soon rather than held.
var statusLimits = struct {
	// ReadHeaderTimeout: a client has this long from the connection (or
	// the end of its last request) to send its headers (and, over TLS,
	// finish the handshake first). A browser or Prometheus sends them at
	// once; 5 s leaves room for a slow link.
	ReadHeaderTimeout time.Duration
	// ReadTimeout: the whole request, body included (/login's form, at
	// most 16 KiB).
	ReadTimeout time.Duration
	// WriteTimeout: the whole answer. /status and the timeline of a busy
	// daemon are a few MB; a client that does not read them is cut after
	// this. pprof refuses a profile or trace asked for this long or longer.
	WriteTimeout time.Duration
	// IdleTimeout: a kept-alive connection waiting for its next request.
	// Prometheus scrapes every 15–60 s and reconnects cheaply; an idle
	// connection holds a descriptor the daemon may need for a parameter file.
	IdleTimeout time.Duration
	// MaxHeaderBytes: a request's headers. A bearer token is at most 4 KiB
	// (tokenfile.MaxTokenLen) and a browser's other headers and the
	// session cookie 1–2 KiB, so 16 KiB is several times what is sent.
	MaxHeaderBytes int
}{5 * time.Second, 10 * time.Second, 2 * time.Minute, 30 * time.Second, 16 << 10}

// statusLimitsMu guards statusLimits, which tests shorten.
var statusLimitsMu sync.Mutex

// hostCheck refuses, with 421 Misdirected Request, a TCP request whose
// Host header names anything but this machine's loopback (localhost,
// 127.0.0.0/8, ::1), the address the request arrived at, or a name of
// WithStatusHosts. A web page the operator opens can make the browser
// send requests to any name its author controls and has pointed at
// 127.0.0.1 (DNS rebinding); the browser then lets that page read the
// answers, which no token in a cookie would stop once the operator has
// logged in. Such requests carry the author's name in Host, and are
// refused here, before authentication. A unix socket is out of a
// browser's reach and is not checked.
func (s *Server) hostCheck(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if unixRequest(r) || s.hostAllowed(r) {
			h.ServeHTTP(w, r)
			return
		}
		s.log.Debug("status request for another host refused", "host", truncate(r.Host, 80), "peer", r.RemoteAddr, "path", truncate(r.URL.Path, 80))
		w.Header().Set("Connection", "close")
		http.Error(w, "misdirected request: this listener answers to localhost, loopback addresses and [daemon] status_hosts only", http.StatusMisdirectedRequest)
	})
}

// hostAllowed says r's Host names this listener (see hostCheck).
func (s *Server) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = normalizeHost(host)
	if host == "localhost" || s.statusHosts[host] {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	// An address in Host is the page's own origin, not a name someone
	// else resolves: the address the client reached is safe to answer.
	local, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	return ok && !ip.IsUnspecified() && local.IP.Equal(ip)
}

// normalizeHost is the form hosts are compared in: lower case, without a
// trailing dot or an IPv6 address's brackets.
func normalizeHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), ".")
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		h = h[1 : len(h)-1]
	}
	return h
}

// truncate bounds a client's string in a log line.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// ServeHTTP serves HTTPHandler on l until Shutdown, with at most
// MaxHTTPConnections connections open. The server is
// registered before it serves, so a Shutdown that runs first (or at the
// same time) stops it; after Shutdown, ServeHTTP closes l and returns nil.
func (s *Server) ServeHTTP(l net.Listener) error {
	statusLimitsMu.Lock()
	lim := statusLimits
	statusLimitsMu.Unlock()
	hs := &http.Server{Handler: s.HTTPHandler(), ReadHeaderTimeout: lim.ReadHeaderTimeout, ReadTimeout: lim.ReadTimeout,
		WriteTimeout: lim.WriteTimeout, IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: lim.MaxHeaderBytes,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelDebug)}
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		l.Close()
		return nil
	}
	s.http = append(s.http, hs)
	s.mu.Unlock()
	// Counted before TLS, so a handshake in progress holds a slot too.
	l = newLimitListener(l, MaxHTTPConnections, "status_listen", s.log)
	if s.auth != nil && s.auth.cert != nil && l.Addr().Network() != "unix" {
		l = tls.NewListener(l, s.auth.tlsConfig("http/1.1"))
	}
	s.log.Info("status HTTP listening", "addr", l.Addr().String())
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown stops the daemon in order (see the package documentation). The
// engine gets until ctx's deadline to finish the jobs it holds, while gRPC
// keeps serving: GetStatus reports draining and new jobs are refused with
// Unavailable and cuzkv1.DrainingMessage. Calls still in flight at the
// deadline end with Unavailable and the reason (context.Cause of ctx, when
// it carries one), and those that do not return within callsFlush are cut
// with their connections, so Shutdown returns shortly after the deadline.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	hs := s.http
	s.mu.Unlock()
	s.health.Shutdown()
	var errs []error
	// gRPC stops only once the engine has drained: stopping it first would
	// refuse every new call, GetStatus included, with a transport error
	// ("graceful_stop"), so clients could neither see the drain nor tell it
	// from a crash.
	if err := s.eng.Shutdown(ctx); err != nil {
		errs = append(errs, err)
	}
	stopped := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(stopped)
	}()
	// Every job is final now, so the calls waiting on jobs return
	// promptly. At the deadline the others are ended too, with the
	// reason, and get callsFlush to say so before what lingers is cut.
	select {
	case <-stopped:
	case <-ctx.Done():
		reason := shutdownReason(ctx)
		s.calls.endCalls(reason)
		flush := time.NewTimer(callsFlush)
		defer flush.Stop()
		select {
		case <-stopped:
		case <-flush.C:
			s.log.Warn("gRPC calls still open after the shutdown deadline; closing them", "reason", reason)
			s.grpc.Stop()
			<-stopped
		}
	}
	for _, h := range hs {
		if err := h.Shutdown(ctx); err != nil {
			// Connections still open at the deadline are closed.
			h.Close()
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
				errs = append(errs, fmt.Errorf("status HTTP: %w", err))
			}
		}
	}
	s.stopSampling()
	<-s.sampling
	s.eng.ReleaseParams()
	return errors.Join(errs...)
}
