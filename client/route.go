package client

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
)

// Full method names of the calls the router treats specially.
var (
	methodSubmit = "/" + cuzkv1.ProvingEngine_ServiceDesc.ServiceName + "/SubmitProof"
	methodProve  = "/" + cuzkv1.ProvingEngine_ServiceDesc.ServiceName + "/Prove"
	methodAwait  = "/" + cuzkv1.ProvingEngine_ServiceDesc.ServiceName + "/AwaitProof"
	methodCancel = "/" + cuzkv1.ProvingEngine_ServiceDesc.ServiceName + "/CancelProof"
)

// newJob kinds of a route.
const (
	jobNone = iota
	jobSubmit
	jobProve
)

type routeKey struct{}

// route is what one call tells the picker (through its context) and what
// the picker tells back: where it went.
type route struct {
	pin     string   // only this daemon
	prefer  string   // this daemon if it is ready (the request id was placed there)
	exclude []string // not these (they refused the request)
	newJob  int
	kind    string // queue name of a new job
	prio    cuzkv1.Priority

	mu     sync.Mutex
	picked string
}

func (r *route) setPicked(addr string) {
	r.mu.Lock()
	r.picked = addr
	r.mu.Unlock()
}

func (r *route) pickedAddr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.picked
}

func (r *route) excluded(addr string) bool { return slices.Contains(r.exclude, addr) }

type pinKey struct{}

// OnDaemon returns a context whose calls, on a client of several daemons,
// go to the daemon at addr (as Daemons lists it) and fail Unavailable
// when it is not connected. A client of one daemon ignores it.
func OnDaemon(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, pinKey{}, addr)
}

func pinOf(ctx context.Context) string {
	s, _ := ctx.Value(pinKey{}).(string)
	return s
}

// intercept routes the unary calls of a client of several daemons:
//
//   - Prove and SubmitProof go to the least-loaded ready daemon (the one
//     that accepted the same request id before, if it is ready, since
//     each daemon deduplicates request ids on its own). One that answers
//     Unavailable (it stopped, or is shutting down) or ResourceExhausted
//     (too many pending jobs) is left out and the request goes to the
//     next; where the job went is remembered by job and request id.
//   - AwaitProof and CancelProof go to the daemon holding the job; an id
//     the client did not place is looked for on every daemon.
//   - Anything else goes to the least-loaded daemon, or to OnDaemon's.
func (f *fleet) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	call := func(ctx context.Context, r *route, reply any) error {
		return invoker(context.WithValue(ctx, routeKey{}, r), method, req, reply, cc, opts...)
	}
	pin := pinOf(ctx)
	switch method {
	case methodSubmit, methodProve:
		var sub *cuzkv1.SubmitProofRequest
		r := &route{pin: pin, newJob: jobSubmit}
		if method == methodProve {
			sub, r.newJob = req.(*cuzkv1.ProveRequest).GetSubmit(), jobProve
		} else {
			sub = req.(*cuzkv1.SubmitProofRequest)
		}
		r.kind, r.prio = queueName(sub.GetProofKind()), jobPriority(sub)
		return f.place(ctx, r, sub.GetRequestId(), reply, call)
	case methodAwait, methodCancel:
		if pin != "" {
			return call(ctx, &route{pin: pin}, reply)
		}
		var id string
		if method == methodAwait {
			id = req.(*cuzkv1.AwaitProofRequest).GetJobId()
		} else {
			id = req.(*cuzkv1.CancelProofRequest).GetJobId()
		}
		if pl, ok := f.jobs.get(id); ok {
			return call(ctx, &route{pin: pl.Daemon}, reply)
		}
		return f.find(ctx, method, id, reply, call)
	}
	return call(ctx, &route{pin: pin}, reply)
}

// place sends a new job and records where it went.
func (f *fleet) place(ctx context.Context, r *route, requestID string, reply any, call func(context.Context, *route, any) error) error {
	if r.pin == "" {
		if pl, ok := f.jobs.get(requestID); ok {
			r.prefer = pl.Daemon
		}
	}
	var tried []string
	var lastErr error
	for {
		r.setPicked("")
		err := call(ctx, r, reply)
		addr := r.pickedAddr()
		if addr == "" {
			// The picker found no daemon left to try: the last daemon's
			// answer says more than "none left".
			if lastErr != nil {
				return lastErr
			}
			return err
		}
		jobID := requestID
		switch m := reply.(type) {
		case *cuzkv1.SubmitProofResponse:
			jobID = cmp.Or(m.GetJobId(), jobID)
		case *cuzkv1.ProveResponse:
			jobID = cmp.Or(m.GetResult().GetJobId(), jobID)
		}
		code := status.Code(err)
		if err == nil || r.pin != "" || ctx.Err() != nil || (code != codes.Unavailable && code != codes.ResourceExhausted) {
			pl := Placement{Daemon: addr, Tried: tried}
			f.jobs.put(jobID, pl)
			if requestID != jobID {
				f.jobs.put(requestID, pl)
			}
			return err
		}
		tried = append(tried, addr)
		r.exclude, r.prefer, lastErr = tried, "", err
	}
}

// find sends a call about a job the client did not place to every daemon
// in turn. AwaitProof stops at the first daemon that knows the job (and
// remembers it); CancelProof goes to all, since a request id may have
// made a job on more than one daemon.
func (f *fleet) find(ctx context.Context, method, id string, reply any, call func(context.Context, *route, any) error) error {
	addrs, err := f.addrs(ctx)
	if err != nil {
		return status.FromContextError(err).Err()
	}
	var errs []error
	var unreachable error
	anyOK := false
	for _, a := range addrs {
		if method == methodAwait {
			err := call(ctx, &route{pin: a}, reply)
			switch status.Code(err) {
			case codes.NotFound:
				errs = append(errs, err)
				continue
			case codes.Unavailable:
				// The job may be there: say so if no other daemon has it.
				unreachable = cmp.Or(unreachable, err)
				continue
			case codes.OK:
				f.jobs.put(id, Placement{Daemon: a})
			}
			return err
		}
		one := &cuzkv1.CancelProofResponse{}
		if err := call(ctx, &route{pin: a}, one); err != nil {
			errs = append(errs, err)
			continue
		}
		anyOK = true
		if one.GetWasRunning() {
			reply.(*cuzkv1.CancelProofResponse).WasRunning = true
		}
	}
	if anyOK {
		return nil
	}
	if unreachable != nil {
		return unreachable
	}
	if len(errs) == 0 {
		return status.Errorf(codes.NotFound, "job %q: no cuzk daemon resolved", id)
	}
	// Keep a gRPC status: callers read its code.
	if method == methodAwait {
		return status.Errorf(codes.NotFound, "job %q is on none of %d cuzk daemons: %v", id, len(addrs), errors.Join(errs...))
	}
	return errs[0]
}
