package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	_ "google.golang.org/grpc/health" // client-side health checking (healthCheckConfig)
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

var (
	// ErrBadAddress is returned when a daemon address is empty, malformed
	// or given twice.
	ErrBadAddress = errors.New("bad daemon address")
	// ErrSeveralDaemons is returned by Metrics on a client of several
	// daemons: their Prometheus texts cannot be merged into one (use
	// MetricsOf for each of Daemons).
	ErrSeveralDaemons = errors.New("client of several daemons")
)

// staticScheme is the resolver scheme of an address list; the resolver is
// the client's own (grpc.WithResolvers), not a registered one.
const staticScheme = "cuzk-daemons"

// SplitAddrs splits a comma-separated address list, trimming spaces and
// dropping empty items.
func SplitAddrs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

// several reports whether Dial's addr names more than one daemon: a list,
// or a dns: name (which may resolve to several).
func several(addr string) ([]string, bool) {
	addrs := SplitAddrs(addr)
	return addrs, len(addrs) > 1 || (len(addrs) == 1 && strings.HasPrefix(addrs[0], "dns:"))
}

// DialDaemons connects to several daemons (see DialResolver for what the
// client then does). Each address is "unix:///path.sock" or "host:port";
// a single "dns:///host:port" (or "dns://resolver/host:port") instead
// balances over every address the name resolves to, re-resolved as gRPC's
// DNS resolver does.
func DialDaemons(addrs []string, opts ...grpc.DialOption) (*Client, error) {
	if len(addrs) == 1 && strings.HasPrefix(addrs[0], "dns:") {
		return DialResolver(addrs[0], nil, opts...)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("cuzk client: %w: no address", ErrBadAddress)
	}
	var state resolver.State
	seen := map[string]bool{}
	for _, a := range addrs {
		ra, err := staticAddress(a)
		if err != nil {
			return nil, fmt.Errorf("cuzk client: %w", err)
		}
		if seen[ra.Addr] {
			return nil, fmt.Errorf("cuzk client: %w: %q given twice", ErrBadAddress, a)
		}
		seen[ra.Addr] = true
		state.Addresses = append(state.Addresses, ra)
	}
	r := manual.NewBuilderWithScheme(staticScheme)
	r.InitialState(state)
	return dialFleet(staticScheme+":///cuzk", r, opts)
}

// staticAddress turns one list entry into a resolver address. Its Addr
// is what the default dialer understands ("unix:///path" or "host:port")
// and what Daemons and Placement report; ServerName is the authority a
// single-address client would send (and verify with TLS).
func staticAddress(a string) (resolver.Address, error) {
	switch {
	case strings.HasPrefix(a, "unix:"):
		path := strings.TrimPrefix(strings.TrimPrefix(a, "unix:"), "//")
		if path == "" {
			return resolver.Address{}, fmt.Errorf("%w: %q has no socket path", ErrBadAddress, a)
		}
		return resolver.Address{Addr: a, ServerName: "localhost"}, nil
	case strings.HasPrefix(a, "dns:"):
		return resolver.Address{}, fmt.Errorf("%w: %q: a dns: name balances over its own records and cannot be part of a list", ErrBadAddress, a)
	}
	a = strings.TrimPrefix(a, "passthrough:///")
	if strings.Contains(a, "://") {
		return resolver.Address{}, fmt.Errorf("%w: %q: want unix:///path.sock, host:port or dns:///host:port", ErrBadAddress, a)
	}
	if host, port, err := net.SplitHostPort(a); err != nil || port == "" {
		return resolver.Address{}, fmt.Errorf("%w: %q: want host:port", ErrBadAddress, a)
	} else if host == "" {
		a = "localhost:" + port
	}
	return resolver.Address{Addr: a, ServerName: a}, nil
}

// DialResolver connects to every daemon the resolver rb finds for target
// (nil rb: the resolver registered for target's scheme, such as "dns").
// The client then
//
//   - keeps a connection to each daemon, with gRPC health checking, and
//     polls each connected daemon's GetStatus every PollInterval;
//   - sends each Prove and SubmitProof (also through RPC) to the ready
//     daemon with the least work ahead of the job (running jobs, queued
//     jobs of the same or a higher priority, the jobs it sent since the
//     last poll; then memory headroom), and on to the next daemon with
//     the same request when one answers Unavailable or ResourceExhausted;
//   - remembers where each job went (Placement) and sends AwaitProof and
//     CancelProof there. A job whose daemon stopped is lost with it: the
//     call fails Unavailable and the caller submits it again (Prove does
//     that by itself, since it holds the whole request).
//
// Status sums the daemons' reports; Preload and Evict act on every
// daemon; StatusOf, MetricsOf and OnDaemon address one.
func DialResolver(target string, rb resolver.Builder, opts ...grpc.DialOption) (*Client, error) {
	if rb == nil {
		scheme, _, ok := strings.Cut(target, ":")
		if rb = resolver.Get(scheme); !ok || rb == nil {
			return nil, fmt.Errorf("cuzk client: %w: %q: no resolver for its scheme", ErrBadAddress, target)
		}
	}
	return dialFleet(target, rb, opts)
}

func dialFleet(target string, rb resolver.Builder, opts []grpc.DialOption) (*Client, error) {
	f := newFleet()
	all := append(defaultDialOptions(),
		grpc.WithResolvers(&fleetResolver{inner: rb, fleet: f}),
		grpc.WithDefaultServiceConfig(serviceConfig),
		grpc.WithChainUnaryInterceptor(f.intercept),
		// Stay connected between bursts: the load reports stay fresh, and
		// no job waits for every daemon to be dialled again.
		grpc.WithIdleTimeout(0))
	all = append(all, opts...)
	conn, err := grpc.NewClient(target, all...)
	if err != nil {
		return nil, fmt.Errorf("cuzk client: %w", err)
	}
	// Resolve and connect now, so that the first Prove finds load reports.
	conn.Connect()
	return &Client{conn: conn, rpc: cuzkv1.NewProvingEngineClient(conn), fleet: f}, nil
}

// fleetResolver wraps a resolver so that every state it reports carries
// the client's fleet to the balancer (resolver attributes are gRPC's way
// for a resolver to hand data to the balancing policy).
type fleetResolver struct {
	inner resolver.Builder
	fleet *fleet
}

func (b *fleetResolver) Scheme() string { return b.inner.Scheme() }

func (b *fleetResolver) Build(t resolver.Target, cc resolver.ClientConn, o resolver.BuildOptions) (resolver.Resolver, error) {
	return b.inner.Build(t, &fleetCC{ClientConn: cc, fleet: b.fleet}, o)
}

type fleetCC struct {
	resolver.ClientConn
	fleet *fleet
}

func (c *fleetCC) UpdateState(s resolver.State) error {
	s.Attributes = s.Attributes.WithValue(fleetKey{}, c.fleet)
	return c.ClientConn.UpdateState(s)
}

// tlsExceptUnix is TLS for a list that mixes unix sockets, which the
// daemon serves without TLS, and TCP addresses: transport credentials
// belong to the whole connection, so the handshake looks at each
// sub-connection's network.
type tlsExceptUnix struct {
	credentials.TransportCredentials
}

func (t tlsExceptUnix) ClientHandshake(ctx context.Context, authority string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	if conn.RemoteAddr().Network() == "unix" {
		return insecure.NewCredentials().ClientHandshake(ctx, authority, conn)
	}
	return t.TransportCredentials.ClientHandshake(ctx, authority, conn)
}

func (t tlsExceptUnix) Clone() credentials.TransportCredentials {
	return tlsExceptUnix{t.TransportCredentials.Clone()}
}

// Several reports whether the client balances over several daemons.
func (c *Client) Several() bool { return c.fleet != nil }

// Daemons lists the client's daemons with their last known state, in
// resolver order; a client of one daemon lists it alone (with no load
// report: it does not poll).
func (c *Client) Daemons() []DaemonState {
	if c.fleet == nil {
		return []DaemonState{{Addr: c.addr, Ready: c.conn.GetState() == connectivity.Ready}}
	}
	return c.fleet.states()
}

// Placement says where the job (by job id, or by the request id it was
// submitted with) went. A client of one daemon places every job there.
func (c *Client) Placement(id string) (Placement, bool) {
	if c.fleet == nil {
		return Placement{Daemon: c.addr}, true
	}
	return c.fleet.jobs.get(id)
}

// StatusOf returns the status of the daemon at addr (one of Daemons).
func (c *Client) StatusOf(ctx context.Context, addr string) (*cuzkv1.GetStatusResponse, error) {
	return c.rpc.GetStatus(OnDaemon(ctx, addr), &cuzkv1.GetStatusRequest{})
}

// MetricsOf returns the Prometheus text of the daemon at addr.
func (c *Client) MetricsOf(ctx context.Context, addr string) (string, error) {
	resp, err := c.rpc.GetMetrics(OnDaemon(ctx, addr), &cuzkv1.GetMetricsRequest{})
	return resp.GetPrometheusText(), err
}

// each calls fn for every daemon at once and returns the errors, one per
// daemon, nil where fn succeeded.
func (c *Client) each(ctx context.Context, fn func(ctx context.Context, addr string) error) ([]string, []error, error) {
	addrs, err := c.fleet.addrs(ctx)
	if err != nil {
		return nil, nil, err
	}
	errs := make([]error, len(addrs))
	var wg sync.WaitGroup
	for i, a := range addrs {
		wg.Go(func() {
			if err := fn(OnDaemon(ctx, a), a); err != nil {
				errs[i] = fmt.Errorf("%s: %w", a, err)
			}
		})
	}
	wg.Wait()
	return addrs, errs, nil
}

// statusAll sums the reports of every daemon that answers: counters,
// memory and queues (by kind) add up, uptime is the longest, parameter
// sets and GPUs are listed per daemon, draining only when all drain. It fails only when none answers.
func (c *Client) statusAll(ctx context.Context) (*cuzkv1.GetStatusResponse, error) {
	var mu sync.Mutex
	var reports []*cuzkv1.GetStatusResponse
	_, errs, err := c.each(ctx, func(ctx context.Context, _ string) error {
		st, err := c.rpc.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
		if err == nil {
			mu.Lock()
			reports = append(reports, st)
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(reports) == 0 {
		return nil, errors.Join(errs...)
	}
	return SumStatus(reports...), nil
}

// SumStatus adds daemons' reports up as Status does for a client of
// several daemons.
func SumStatus(reports ...*cuzkv1.GetStatusResponse) *cuzkv1.GetStatusResponse {
	// Draining only when every daemon drains: the fleet as a whole still
	// takes work while one does.
	out := &cuzkv1.GetStatusResponse{Draining: len(reports) > 0}
	queues := map[string]*cuzkv1.QueueStatus{}
	for _, st := range reports {
		out.Draining = out.Draining && st.GetDraining()
		out.TotalProofsCompleted += st.GetTotalProofsCompleted()
		out.TotalProofsFailed += st.GetTotalProofsFailed()
		out.UptimeSeconds = max(out.UptimeSeconds, st.GetUptimeSeconds())
		out.PinnedMemoryBytes += st.GetPinnedMemoryBytes()
		out.PinnedMemoryLimitBytes += st.GetPinnedMemoryLimitBytes()
		out.Gpus = append(out.Gpus, st.GetGpus()...)
		out.LoadedSrs = append(out.LoadedSrs, st.GetLoadedSrs()...)
		for _, q := range st.GetQueues() {
			sum := queues[q.GetProofKind()]
			if sum == nil {
				sum = &cuzkv1.QueueStatus{ProofKind: q.GetProofKind()}
				queues[q.GetProofKind()] = sum
				out.Queues = append(out.Queues, sum)
			}
			sum.Pending += q.GetPending()
			sum.InProgress += q.GetInProgress()
		}
	}
	slices.SortFunc(out.Queues, func(a, b *cuzkv1.QueueStatus) int { return strings.Compare(a.GetProofKind(), b.GetProofKind()) })
	out.CpuArithmetic = sumArithmetic(reports)
	return out
}

// sumArithmetic is the daemons' common CPU arithmetic, "mixed" when they
// differ, nil when none reports one (older daemons, Rust's).
func sumArithmetic(reports []*cuzkv1.GetStatusResponse) *cuzkv1.CPUArithmetic {
	var out *cuzkv1.CPUArithmetic
	var kinds []string
	for _, st := range reports {
		a := st.GetCpuArithmetic()
		if a == nil {
			continue
		}
		if !slices.Contains(kinds, a.GetKind()) {
			kinds = append(kinds, a.GetKind())
		}
		if out == nil {
			out = &cuzkv1.CPUArithmetic{Kind: a.GetKind(), Reason: a.GetReason()}
		}
		out.CheckFailed = out.CheckFailed || a.GetCheckFailed()
	}
	if len(kinds) > 1 {
		out.Kind, out.Reason = "mixed", "daemons use "+strings.Join(kinds, ", ")
	}
	return out
}

// preloadAll loads the parameters on every daemon: already when all had
// them, the longest load time.
func (c *Client) preloadAll(ctx context.Context, circuitID string) (bool, time.Duration, error) {
	var mu sync.Mutex
	already, longest := true, time.Duration(0)
	_, errs, err := c.each(ctx, func(ctx context.Context, _ string) error {
		resp, err := c.rpc.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: circuitID})
		if err == nil {
			mu.Lock()
			already = already && resp.GetAlreadyLoaded()
			longest = max(longest, time.Duration(resp.GetLoadTimeMs())*time.Millisecond)
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		return false, 0, err
	}
	return already, longest, errors.Join(errs...)
}

// evictAll drops the parameters on every daemon: wasLoaded when any had
// them, the bytes freed in all.
func (c *Client) evictAll(ctx context.Context, circuitID string) (bool, uint64, error) {
	var mu sync.Mutex
	was, freed := false, uint64(0)
	_, errs, err := c.each(ctx, func(ctx context.Context, _ string) error {
		resp, err := c.rpc.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: circuitID})
		if err == nil {
			mu.Lock()
			was = was || resp.GetWasLoaded()
			freed += resp.GetFreedBytes()
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		return false, 0, err
	}
	return was, freed, errors.Join(errs...)
}
