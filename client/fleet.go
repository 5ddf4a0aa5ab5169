package client

import (
	"context"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/connectivity"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

// PollInterval is how often a client of several daemons asks each
// connected daemon for its GetStatus load report. Between reports the
// client counts the jobs it routes itself (see the balancer).
const PollInterval = 2 * time.Second

// pollTimeout bounds one GetStatus poll (Curio uses 5 s for the same call).
const pollTimeout = 5 * time.Second

// maxPlacements bounds the client's memory of where jobs live; the oldest
// entry goes first. A job the client forgot is looked for on every daemon.
const maxPlacements = 1 << 16

// fleet is what a client of several daemons knows about them: the
// addresses the resolver gave, which are connected and healthy, their
// last load reports, and where each job it submitted lives. The Client
// owns it; the balancer (which gRPC builds and rebuilds per connection)
// finds it in the resolver state's attributes.
type fleet struct {
	mu      sync.Mutex
	order   []string // resolver order
	daemons map[string]*daemon
	// resolved is closed when the resolver first produced addresses.
	resolved     chan struct{}
	resolvedOnce sync.Once

	jobs placements
}

func newFleet() *fleet {
	return &fleet{daemons: map[string]*daemon{}, resolved: make(chan struct{}), jobs: placements{m: map[string]Placement{}}}
}

// setAddrs is the balancer's report of the resolver's addresses.
// Daemons that left the list are forgotten (their jobs' placements stay).
func (f *fleet) setAddrs(addrs []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.order = f.order[:0]
	keep := map[string]bool{}
	for _, a := range addrs {
		if keep[a] {
			continue
		}
		keep[a] = true
		f.order = append(f.order, a)
		if f.daemons[a] == nil {
			f.daemons[a] = &daemon{addr: a}
		}
	}
	for a := range f.daemons {
		if !keep[a] {
			delete(f.daemons, a)
		}
	}
	if len(addrs) > 0 {
		f.resolvedOnce.Do(func() { close(f.resolved) })
	}
}

// daemon returns the entry of addr, creating one for an address the
// resolver did not (yet) report.
func (f *fleet) daemon(addr string) *daemon {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.daemons[addr]
	if d == nil {
		d = &daemon{addr: addr}
		f.daemons[addr] = d
		f.order = append(f.order, addr)
	}
	return d
}

// setReady marks exactly the daemons in ready as connected and healthy.
func (f *fleet) setReady(ready map[string]bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for a, d := range f.daemons {
		d.mu.Lock()
		d.ready = ready[a]
		d.mu.Unlock()
	}
}

// connecting reports whether a call pinned to the daemon at addr should
// wait for the next picker rather than fail: the daemon is connecting, has
// not finished its first attempt, or is ready in a picker not yet
// published.
func (f *fleet) connecting(addr string) bool {
	f.mu.Lock()
	d := f.daemons[addr]
	f.mu.Unlock()
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// Not yet settled: a sub-connection starts Idle and only then turns
	// Connecting, so a call made right after dialling (bench evict over
	// every daemon) must wait for the first attempt, not fail at once.
	// Ready: the state is recorded before the base balancer publishes the
	// picker that includes it, so a picker without it is about to be
	// replaced.
	return d.conn == connectivity.Connecting || d.conn == connectivity.Ready || !d.settled
}

// firstConnect reports whether a daemon not in exclude has not yet
// finished its first connection attempt (it has been neither ready nor
// failed).
func (f *fleet) firstConnect(exclude []string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for a, d := range f.daemons {
		d.mu.Lock()
		first := !d.settled
		d.mu.Unlock()
		if first && !slices.Contains(exclude, a) {
			return true
		}
	}
	return false
}

// addrs is the daemons in resolver order, waiting (until ctx ends) for the
// first resolution.
func (f *fleet) addrs(ctx context.Context) ([]string, error) {
	select {
	case <-f.resolved:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.order), nil
}

// states is a snapshot of every daemon, in resolver order.
func (f *fleet) states() []DaemonState {
	f.mu.Lock()
	ds := make([]*daemon, 0, len(f.order))
	for _, a := range f.order {
		ds = append(ds, f.daemons[a])
	}
	f.mu.Unlock()
	out := make([]DaemonState, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.state())
	}
	return out
}

// daemon is one daemon of a fleet. It is also the gRPC producer builder of
// its poller: gRPC builds one producer per connected sub-connection, and
// the producer's RPCs go over that sub-connection only.
type daemon struct {
	addr string

	mu      sync.Mutex
	ready   bool               // in the picker: connected and healthy
	conn    connectivity.State // the sub-connection's state
	settled bool               // it has been ready or failed at least once
	report  *cuzkv1.GetStatusResponse
	polled  time.Time
	pollErr error
	// added counts, per queue name, the jobs routed here since the last
	// report (less the Prove calls that finished since): the load the
	// report cannot show yet, so that a burst of picks between two polls
	// does not all land on the daemon that looked idlest.
	added  map[string]int
	routed uint64
}

// DaemonState is one daemon of a client as the client last saw it.
type DaemonState struct {
	// Addr is the daemon's address as the resolver gave it (for a list,
	// as written; for a DNS name, ip:port).
	Addr string
	// Ready: connected and, where the daemon serves gRPC health checking,
	// SERVING. Only ready daemons are given new jobs.
	Ready bool
	// Status is the last GetStatus load report (nil before the first);
	// Polled is when it came and PollError why the last poll failed.
	Status    *cuzkv1.GetStatusResponse
	Polled    time.Time
	PollError string
	// Routed counts the Prove and SubmitProof calls sent to it.
	Routed uint64
}

func (d *daemon) state() DaemonState {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := DaemonState{Addr: d.addr, Ready: d.ready, Status: d.report, Polled: d.polled, Routed: d.routed}
	if d.pollErr != nil {
		s.PollError = d.pollErr.Error()
	}
	return s
}

func (d *daemon) setConn(s connectivity.State) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conn = s
	d.settled = d.settled || s == connectivity.Ready || s == connectivity.TransientFailure
}

// Build starts polling GetStatus over the sub-connection cci (a
// grpc.ClientConnInterface bound to it); gRPC closes the producer when the
// sub-connection changes state.
func (d *daemon) Build(cci any) (balancer.Producer, func()) {
	rpc := cuzkv1.NewProvingEngineClient(cci.(grpc.ClientConnInterface))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.poll(ctx, rpc)
	}()
	return d, func() {
		cancel()
		<-done
	}
}

// poll reads the daemon's load at once and then every PollInterval until
// ctx ends.
func (d *daemon) poll(ctx context.Context, rpc cuzkv1.ProvingEngineClient) {
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for {
		pctx, cancel := context.WithTimeout(ctx, pollTimeout)
		st, err := rpc.GetStatus(pctx, &cuzkv1.GetStatusRequest{})
		cancel()
		if ctx.Err() != nil {
			return
		}
		d.mu.Lock()
		d.pollErr = err
		if err == nil {
			d.report, d.polled = st, time.Now()
			clear(d.added)
		}
		d.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// load is the daemon's load for a job of queue kind and priority prio,
// for the picker to compare.
func (d *daemon) load(kind string, prio cuzkv1.Priority) load {
	d.mu.Lock()
	defer d.mu.Unlock()
	return loadOf(d.report, d.added, kind, prio, d.routed)
}

// add counts n jobs of queue kind as routed here (n < 0: finished).
func (d *daemon) add(kind string, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.added == nil {
		d.added = map[string]int{}
	}
	d.added[kind] += n
	if n > 0 {
		d.routed += uint64(n)
	}
}

// Placement is where a job lives.
type Placement struct {
	// Daemon is the address of the daemon that accepted (or last answered
	// for) the job; AwaitProof and CancelProof go there.
	Daemon string
	// Tried lists the daemons that refused the request first (unavailable,
	// or too many pending jobs), in order; the request was sent on to the
	// next daemon with the same request id.
	Tried []string
}

// placements is a bounded map from job and request ids to placements.
type placements struct {
	mu   sync.Mutex
	m    map[string]Placement
	fifo []string
}

func (p *placements) put(id string, pl Placement) {
	if id == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.m[id]; !ok {
		p.fifo = append(p.fifo, id)
		if len(p.fifo) > maxPlacements {
			delete(p.m, p.fifo[0])
			p.fifo = p.fifo[1:]
		}
	}
	p.m[id] = pl
}

func (p *placements) get(id string) (Placement, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl, ok := p.m[id]
	return pl, ok
}
