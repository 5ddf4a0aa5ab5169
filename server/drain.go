package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Calls at the shutdown deadline.
//
// At the deadline the engine aborts its unfinished jobs, which ends the
// Prove and AwaitProof calls waiting on them with Unavailable. Other calls
// may still be in flight then (a SubmitProof whose request is being
// planned, a PreloadSRS waiting for memory, a health Watch). Cutting them
// with grpc.Server.Stop gives their clients a transport error ("closing
// transport … graceful_stop"), which tells them nothing. So every call
// runs under a context the server ends at the deadline (callTracker), a
// call that then fails answers Unavailable with the shutdown reason, and
// Shutdown waits up to callsFlush for those answers to be written before
// it cuts what is left.

// callsFlush is how long Shutdown waits, after the deadline, for the calls
// it ended to return and their answers to be written; a handler that
// ignores its context is then cut.
const callsFlush = 2 * time.Second

// callTracker ends the contexts of the calls in flight at the shutdown
// deadline, with the reason.
type callTracker struct {
	ctx  context.Context // ended, with the reason as its cause, at the deadline
	end  context.CancelCauseFunc
	once sync.Once
}

func newCallTracker() *callTracker {
	ctx, end := context.WithCancelCause(context.Background())
	return &callTracker{ctx: ctx, end: end}
}

// errShutdownDeadline is the reason when the shutdown context says none.
var errShutdownDeadline = errors.New("the shutdown deadline passed")

// endCalls ends every call in flight, now and later, with reason.
func (c *callTracker) endCalls(reason error) {
	c.once.Do(func() { c.end(reason) })
}

// callContext is ctx, ended also when endCalls runs.
func (c *callTracker) callContext(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(c.ctx, func() { cancel(context.Cause(c.ctx)) })
	return ctx, func() { stop(); cancel(nil) }
}

// answer is the error a call that ended after endCalls returns: a call
// that failed because its context ended answers Unavailable with the
// reason, so the client knows to go elsewhere or retry later.
func (c *callTracker) answer(err error) error {
	if err == nil || c.ctx.Err() == nil {
		return err
	}
	if c := status.Code(err); c != codes.Canceled && c != codes.DeadlineExceeded {
		return err // its own answer (Unavailable from an aborted job among them)
	}
	return status.Error(codes.Unavailable, fmt.Sprintf("cuzk daemon shutting down: %v; the call was ended", context.Cause(c.ctx)))
}

func (c *callTracker) unary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	ctx, done := c.callContext(ctx)
	defer done()
	resp, err := h(ctx, req)
	if err = c.answer(err); err != nil {
		return nil, err
	}
	return resp, nil
}

func (c *callTracker) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	ctx, done := c.callContext(ss.Context())
	defer done()
	return c.answer(h(srv, &authedStream{ServerStream: ss, ctx: ctx}))
}

// shutdownReason is why calls still open at the deadline are ended: the
// cause the shutdown context carries (the daemon names the signal and its
// --shutdown-timeout), or errShutdownDeadline.
func shutdownReason(ctx context.Context) error {
	cause := context.Cause(ctx)
	if cause == nil || errors.Is(cause, context.DeadlineExceeded) || errors.Is(cause, context.Canceled) {
		return errShutdownDeadline
	}
	return cause
}
