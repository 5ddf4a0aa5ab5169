package client

import (
	"cmp"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/balancer/base"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// BalancerName is the gRPC load-balancing policy of a client of several
// daemons: each Prove and SubmitProof goes to the ready daemon with the
// least work ahead of it (see load), and calls about a job go to the
// daemon that holds it.
const BalancerName = "cuzk_least_loaded"

// serviceConfig selects the policy and gRPC's client-side health checking
// of the ProvingEngine service: a daemon that is shutting down reports
// NOT_SERVING and gets no new work while it drains. (A daemon without the
// health service counts as healthy.)
const serviceConfig = `{"loadBalancingConfig":[{"` + BalancerName + `":{}}],"healthCheckConfig":{"serviceName":"cuzk.v1.ProvingEngine"}}`

// Registering a policy by name is how gRPC finds it from a service
// config; the registry is gRPC's, written once here like round_robin's.
func init() { balancer.Register(lbBuilder{}) }

type lbBuilder struct{}

func (lbBuilder) Name() string { return BalancerName }

// Build wraps gRPC's base balancer (one sub-connection per address, the
// picker rebuilt whenever the set of ready ones changes) with a picker
// builder of its own, so that each connection has its own state.
func (lbBuilder) Build(cc balancer.ClientConn, opts balancer.BuildOptions) balancer.Balancer {
	pb := &pickerBuilder{producers: map[balancer.SubConn]func(){}}
	b := &lb{Balancer: base.NewBalancerBuilder(BalancerName, pb, base.Config{HealthCheck: true}).Build(&watchCC{ClientConn: cc, pb: pb}, opts), pb: pb, stop: make(chan struct{})}
	go b.reresolve(cc)
	return b
}

// ResolveEvery is how often a client of several daemons asks its resolver
// to look again. gRPC's DNS resolver otherwise re-resolves only when a
// connection fails, so a daemon added to the name while the others are
// healthy would never be seen. (The list resolver ignores it.)
const ResolveEvery = 30 * time.Second

func (b *lb) reresolve(cc balancer.ClientConn) {
	t := time.NewTicker(ResolveEvery)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			cc.ResolveNow(resolver.ResolveNowOptions{})
		}
	}
}

// watchCC lets the fleet see every sub-connection's state (the base
// balancer shows the picker builder only the ready ones): the picker
// waits for a daemon that is still connecting rather than send all of a
// first burst to the first daemon to connect.
type watchCC struct {
	balancer.ClientConn
	pb *pickerBuilder
}

func (w *watchCC) NewSubConn(addrs []resolver.Address, opts balancer.NewSubConnOptions) (balancer.SubConn, error) {
	if inner := opts.StateListener; inner != nil && len(addrs) == 1 && w.pb.fleet != nil {
		d := w.pb.fleet.daemon(addrs[0].Addr)
		opts.StateListener = func(s balancer.SubConnState) {
			// Before the base balancer's listener, which publishes the
			// picker that reads this.
			d.setConn(s.ConnectivityState)
			inner(s)
		}
	}
	// The deprecation warns that a SubConn will hold one address; the base
	// balancer makes one per address already, and gRPC has no other way
	// for a balancer to make one.
	//lint:ignore SA1019 one address per SubConn, as the warning asks
	sc, err := w.ClientConn.NewSubConn(addrs, opts)
	if err != nil && len(addrs) == 1 && w.pb.fleet != nil {
		// No connection will be tried: do not wait for it.
		w.pb.fleet.daemon(addrs[0].Addr).setConn(connectivity.TransientFailure)
	}
	return sc, err
}

type fleetKey struct{}

type lb struct {
	balancer.Balancer
	pb   *pickerBuilder
	stop chan struct{} // ends reresolve
}

// UpdateClientConnState takes the fleet from the resolver state (a client
// without one, such as a connection configured with this policy by name
// only, gets a private fleet) before the base balancer builds the picker.
func (b *lb) UpdateClientConnState(s balancer.ClientConnState) error {
	f, _ := s.ResolverState.Attributes.Value(fleetKey{}).(*fleet)
	if f == nil {
		f = b.pb.fleet
		if f == nil {
			f = newFleet()
		}
	}
	b.pb.fleet = f
	addrs := make([]string, 0, len(s.ResolverState.Addresses))
	for _, a := range s.ResolverState.Addresses {
		addrs = append(addrs, a.Addr)
	}
	f.setAddrs(addrs)
	return b.Balancer.UpdateClientConnState(s)
}

// Close does not wait for reresolve: gRPC may hold the connection's lock
// that a ResolveNow in progress needs.
func (b *lb) Close() {
	close(b.stop)
	b.Balancer.Close()
	b.pb.closeAll()
}

// pickerBuilder builds pickers over the ready sub-connections and keeps a
// GetStatus poller (a producer) on each. gRPC calls it from the
// balancer's serialised context only.
type pickerBuilder struct {
	fleet     *fleet
	producers map[balancer.SubConn]func()
}

func (pb *pickerBuilder) Build(info base.PickerBuildInfo) balancer.Picker {
	if pb.fleet == nil {
		pb.fleet = newFleet()
	}
	ready := map[string]bool{}
	p := &picker{fleet: pb.fleet}
	for sc, sci := range info.ReadySCs {
		d := pb.fleet.daemon(sci.Address.Addr)
		ready[d.addr] = true
		p.ready = append(p.ready, readySC{sc: sc, d: d})
		if pb.producers[sc] == nil {
			_, closeFn := sc.GetOrBuildProducer(d)
			pb.producers[sc] = closeFn
		}
	}
	for sc, closeFn := range pb.producers {
		if _, ok := info.ReadySCs[sc]; !ok {
			// gRPC has closed the poller already if the connection changed
			// state; this drops the reference in every other case.
			closeFn()
			delete(pb.producers, sc)
		}
	}
	pb.fleet.setReady(ready)
	if len(p.ready) == 0 {
		return base.NewErrPicker(balancer.ErrNoSubConnAvailable)
	}
	return p
}

func (pb *pickerBuilder) closeAll() {
	for sc, closeFn := range pb.producers {
		closeFn()
		delete(pb.producers, sc)
	}
	if pb.fleet != nil {
		pb.fleet.setReady(nil)
	}
}

type readySC struct {
	sc balancer.SubConn
	d  *daemon
}

type picker struct {
	fleet *fleet
	ready []readySC
	next  atomic.Uint64 // where the scan starts, so that ties rotate
}

// Pick routes one call. A call about a job (route.pin) goes to the daemon
// holding it, or fails Unavailable when that daemon is not ready; a new
// job (Prove, SubmitProof) goes to the ready daemon with the least load
// that has not refused it yet; anything else to the least loaded daemon.
func (p *picker) Pick(info balancer.PickInfo) (balancer.PickResult, error) {
	r, _ := info.Ctx.Value(routeKey{}).(*route)
	if r == nil {
		r = &route{}
	}
	if r.pin != "" {
		for _, s := range p.ready {
			if s.d.addr == r.pin {
				r.setPicked(s.d.addr)
				return balancer.PickResult{SubConn: s.sc}, nil
			}
		}
		if p.fleet.connecting(r.pin) {
			return balancer.PickResult{}, balancer.ErrNoSubConnAvailable // wait for it
		}
		return balancer.PickResult{}, status.Errorf(codes.Unavailable, "cuzk daemon %s is not connected", r.pin)
	}
	if r.newJob != 0 && p.fleet.firstConnect(r.exclude) {
		// Wait until every daemon has connected once (or failed to): the
		// picker is rebuilt on each change.
		return balancer.PickResult{}, balancer.ErrNoSubConnAvailable
	}
	var best *readySC
	var bestLoad load
	start := p.next.Add(1)
	for i := range p.ready {
		s := &p.ready[(int(start%uint64(len(p.ready)))+i)%len(p.ready)]
		if r.excluded(s.d.addr) {
			continue
		}
		l := s.d.load(r.kind, r.prio)
		if s.d.addr == r.prefer && !l.draining {
			best = s
			break
		}
		if best == nil || l.less(bestLoad) {
			best, bestLoad = s, l
		}
	}
	if best == nil {
		return balancer.PickResult{}, status.Errorf(codes.Unavailable, "no other cuzk daemon is ready (tried %v)", r.exclude)
	}
	d := best.d
	r.setPicked(d.addr)
	res := balancer.PickResult{SubConn: best.sc}
	if r.newJob != 0 {
		d.add(r.kind, 1)
		kind, prove := r.kind, r.newJob == jobProve
		res.Done = func(di balancer.DoneInfo) {
			// A Prove holds its job for the whole call, so the job has
			// left the daemon when the call ends; a SubmitProof that
			// failed made no job. A submitted job stays counted until
			// the next report shows it.
			if prove || di.Err != nil {
				d.add(kind, -1)
			}
		}
	}
	return res, nil
}

// load is what the picker compares daemons by.
type load struct {
	// draining: the last report says the daemon is shutting down, so it
	// refuses new jobs (Unavailable, cuzkv1.DrainingMessage). It is
	// chosen only when every other daemon drains too; its health service
	// reports NOT_SERVING as well, which takes it out of the picker once
	// gRPC's health check sees it, but a report can come first.
	draining bool
	// unserved: the last report lists queues but none of the job's kind,
	// so the daemon does not serve it (a daemon without test circuits, a
	// PoRep-only box); it is chosen only when no daemon serves the kind.
	unserved bool
	// ahead is the work in front of the job: every running job, plus the
	// queued jobs of kinds whose default priority is at least the job's
	// (the queue runs CRITICAL > HIGH > NORMAL > LOW; GetStatus reports
	// queues per kind, not per priority), plus the jobs this client sent
	// since the last report.
	ahead int
	// tight: the memory budget has less than an eighth left, so a new job
	// may wait for memory even with an empty queue.
	tight bool
	// routed breaks the remaining ties: fewer jobs sent so far first.
	routed uint64
}

func (a load) less(b load) bool {
	if a.draining != b.draining {
		return !a.draining
	}
	if a.unserved != b.unserved {
		return !a.unserved
	}
	if c := cmp.Compare(a.ahead, b.ahead); c != 0 {
		return c < 0
	}
	if a.tight != b.tight {
		return !a.tight
	}
	return a.routed < b.routed
}

// loadOf computes a daemon's load for a job of queue kind ("" when
// unknown) and priority prio from its last report (nil before the first)
// and the jobs routed to it since.
func loadOf(st *cuzkv1.GetStatusResponse, added map[string]int, kind string, prio cuzkv1.Priority, routed uint64) load {
	l := load{routed: routed, draining: st.GetDraining()}
	served := false
	for _, q := range st.GetQueues() {
		name := q.GetProofKind()
		served = served || name == kind
		l.ahead += int(q.GetInProgress())
		if kind == "" || queuePriority(name) >= prio {
			l.ahead += int(q.GetPending())
		}
	}
	l.unserved = kind != "" && len(st.GetQueues()) > 0 && !served
	for name, n := range added {
		if kind == "" || queuePriority(name) >= prio {
			l.ahead += n
		}
	}
	l.ahead = max(l.ahead, 0)
	if limit := st.GetPinnedMemoryLimitBytes(); limit > 0 {
		used := min(st.GetPinnedMemoryBytes(), limit)
		l.tight = limit-used < limit/8
	}
	return l
}

// queueName is the daemon's GetStatus queue of a wire kind: the kind's
// descriptor name ("" for a kind this build does not describe).
func queueName(k cuzkv1.ProofKind) string {
	if d, ok := proofkind.Lookup(proofkind.Kind(k)); ok {
		return d.Name
	}
	return ""
}

// queuePriority is the default priority of a queue's kind, which is the
// priority Curio's requests carry (NORMAL for a queue of a kind this
// build does not describe).
func queuePriority(name string) cuzkv1.Priority {
	d, _ := proofkind.Builtin().Parse(name)
	return cuzkv1.Priority(d.EffectivePriority(proofkind.PriorityUnspecified))
}

// jobPriority is the priority the daemon gives a request: the kind's
// descriptor's policy (proofkind.Descriptor.EffectivePriority).
func jobPriority(req *cuzkv1.SubmitProofRequest) cuzkv1.Priority {
	d, _ := proofkind.Lookup(proofkind.Kind(req.GetProofKind()))
	return cuzkv1.Priority(d.EffectivePriority(proofkind.Priority(req.GetPriority())))
}
