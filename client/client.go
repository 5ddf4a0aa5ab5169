package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// Errors a *JobError matches with errors.Is.
var (
	// ErrFailed is returned (as a *JobError) when the job failed.
	ErrFailed = errors.New("proof failed")
	// ErrCancelled is returned (as a *JobError) when the job was cancelled.
	ErrCancelled = errors.New("proof cancelled")
	// ErrTimeout is returned (as a *JobError) when an await ran out of time
	// before the job was final.
	ErrTimeout = errors.New("await timed out")
	// ErrNotFinal is returned (as a *JobError) when a result is neither
	// completed with a proof nor failed, cancelled or timed out.
	ErrNotFinal = errors.New("job not final")
	// ErrDraining is returned (wrapping the daemon's Unavailable status)
	// when the daemon refused a new job because it is shutting down: it
	// finishes what it holds and takes nothing new, so send the request to
	// another daemon. IsDraining also recognises the bare status.
	ErrDraining = errors.New("cuzk daemon is draining (shutting down, taking no new jobs): send the request to another daemon")
)

// IsDraining reports whether err is a draining daemon's refusal of a new
// job: ErrDraining, or the status it wraps (Unavailable with
// cuzkv1.DrainingMessage) as the generated client returns it.
func IsDraining(err error) bool {
	if errors.Is(err, ErrDraining) {
		return true
	}
	var se interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &se) {
		return false
	}
	st := se.GRPCStatus()
	return st.Code() == codes.Unavailable && st.Message() == cuzkv1.DrainingMessage
}

// IsUnreachable reports whether err, from a call a running daemon always
// answers (GetStatus), says the daemon could not be reached: gRPC
// Unavailable (nothing listens at the address, a refused or broken
// connection) other than a draining refusal. A job's Unavailable (aborted
// at a shutdown) comes from a daemon that was reached.
func IsUnreachable(err error) bool {
	var se interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &se) || IsDraining(err) {
		return false
	}
	return se.GRPCStatus().Code() == codes.Unavailable
}

// drainErr names a draining refusal for what it is; the gRPC status stays
// in the chain, so status.Code still reads Unavailable.
func (c *Client) drainErr(err error) error {
	if err == nil || errors.Is(err, ErrDraining) || !IsDraining(err) {
		return err
	}
	if c.fleet != nil {
		// The balancer sent the request on to every other daemon first.
		return fmt.Errorf("cuzk client: no daemon took the request, the last one: %w: %w", ErrDraining, err)
	}
	return fmt.Errorf("cuzk client: %s: %w: %w", c.addr, ErrDraining, err)
}

// JobError says why a job produced no proof.
type JobError struct {
	JobID   string
	Status  cuzkv1.AwaitProofResponse_Status
	Message string
}

func (e *JobError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("cuzk job %s: %s: %s", e.JobID, e.Status, e.Message)
	}
	return fmt.Sprintf("cuzk job %s: %s", e.JobID, e.Status)
}

// Is matches the sentinel of the status.
func (e *JobError) Is(target error) bool {
	switch e.Status {
	case cuzkv1.AwaitProofResponse_FAILED:
		return target == ErrFailed
	case cuzkv1.AwaitProofResponse_CANCELLED:
		return target == ErrCancelled
	case cuzkv1.AwaitProofResponse_TIMEOUT:
		return target == ErrTimeout
	}
	return target == ErrNotFinal
}

// ResultError is nil for a COMPLETED result with a proof and a *JobError
// otherwise.
func ResultError(r *cuzkv1.AwaitProofResponse) error {
	if r.GetStatus() == cuzkv1.AwaitProofResponse_COMPLETED && len(r.GetProof()) > 0 {
		return nil
	}
	msg := r.GetErrorMessage()
	if r.GetStatus() == cuzkv1.AwaitProofResponse_COMPLETED {
		msg = "completed without proof bytes"
	}
	return &JobError{JobID: r.GetJobId(), Status: r.GetStatus(), Message: msg}
}

// Client talks to one daemon, or balances over several (DialDaemons). It
// is safe for concurrent use.
type Client struct {
	conn  *grpc.ClientConn
	rpc   cuzkv1.ProvingEngineClient
	addr  string // the one daemon's address
	fleet *fleet // several daemons: see DialResolver
}

// Target turns a daemon address ("unix:///path.sock" or "host:port") into
// a gRPC target.
func Target(addr string) string {
	if strings.HasPrefix(addr, "unix://") || strings.Contains(addr, ":///") {
		return addr
	}
	return "passthrough:///" + addr
}

// Dial connects to addr lazily (the first call connects). opts come after
// the defaults (insecure transport, 256 MiB messages). A comma-separated
// list of addresses, or a "dns:///host:port" name, balances over several
// daemons (DialDaemons); one address talks to that daemon alone, with
// gRPC's default pick_first.
func Dial(addr string, opts ...grpc.DialOption) (*Client, error) {
	if addrs, ok := several(addr); ok {
		return DialDaemons(addrs, opts...)
	}
	conn, err := grpc.NewClient(Target(addr), append(defaultDialOptions(), opts...)...)
	if err != nil {
		return nil, fmt.Errorf("cuzk client: %w", err)
	}
	return &Client{conn: conn, rpc: cuzkv1.NewProvingEngineClient(conn), addr: addr}, nil
}

// defaultDialOptions are what every dial starts from (callers' options
// come after and win): plaintext unless credentials are given (DialWith),
// and messages up to cuzkv1.MaxMessageSize both ways (a WindowPoSt partition of
// 2,349 sectors is about 58 MB).
func defaultDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cuzkv1.MaxMessageSize), grpc.MaxCallSendMsgSize(cuzkv1.MaxMessageSize)),
	}
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Conn is the underlying connection (for health checks, reflection).
func (c *Client) Conn() *grpc.ClientConn { return c.conn }

// RPC is the generated client.
func (c *Client) RPC() cuzkv1.ProvingEngineClient { return c.rpc }

// Prove submits req and waits for the result in one call. The response is
// returned whatever its status; the error is non-nil when no proof came
// back (an RPC error, ErrDraining among them, or a *JobError).
func (c *Client) Prove(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	resp, err := c.rpc.Prove(ctx, &cuzkv1.ProveRequest{Submit: req})
	if err != nil {
		return nil, c.drainErr(err)
	}
	return resp.GetResult(), ResultError(resp.GetResult())
}

// Submit queues req and returns the job id and queue position. A draining
// daemon's refusal is an ErrDraining.
func (c *Client) Submit(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.SubmitProofResponse, error) {
	resp, err := c.rpc.SubmitProof(ctx, req)
	return resp, c.drainErr(err)
}

// Await waits for a job; timeout 0 waits until it is final. Like Prove it
// returns a *JobError when there is no proof (ErrTimeout when the wait ran
// out).
func (c *Client) Await(ctx context.Context, jobID string, timeout time.Duration) (*cuzkv1.AwaitProofResponse, error) {
	resp, err := c.rpc.AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: jobID, TimeoutMs: uint64(timeout / time.Millisecond)})
	if err != nil {
		return nil, err
	}
	return resp, ResultError(resp)
}

// Cancel cancels a job; wasRunning says it had left the queue.
func (c *Client) Cancel(ctx context.Context, jobID string) (wasRunning bool, err error) {
	resp, err := c.rpc.CancelProof(ctx, &cuzkv1.CancelProofRequest{JobId: jobID})
	return resp.GetWasRunning(), err
}

// Status returns the daemon's status; for several daemons, the sum of
// those that answer (SumStatus).
func (c *Client) Status(ctx context.Context) (*cuzkv1.GetStatusResponse, error) {
	if c.fleet != nil {
		return c.statusAll(ctx)
	}
	return c.rpc.GetStatus(ctx, &cuzkv1.GetStatusRequest{})
}

// Metrics returns the daemon's metrics in Prometheus text format
// (ErrSeveralDaemons for several daemons: see MetricsOf).
func (c *Client) Metrics(ctx context.Context) (string, error) {
	if c.fleet != nil {
		return "", fmt.Errorf("cuzk client: metrics: %w", ErrSeveralDaemons)
	}
	resp, err := c.rpc.GetMetrics(ctx, &cuzkv1.GetMetricsRequest{})
	return resp.GetPrometheusText(), err
}

// Preload loads a circuit's parameters; already says they were resident.
// For several daemons it loads them on each: already when all had them,
// loadTime the longest.
func (c *Client) Preload(ctx context.Context, circuitID string) (already bool, loadTime time.Duration, err error) {
	if c.fleet != nil {
		return c.preloadAll(ctx, circuitID)
	}
	resp, err := c.rpc.PreloadSRS(ctx, &cuzkv1.PreloadSrsRequest{CircuitId: circuitID})
	return resp.GetAlreadyLoaded(), time.Duration(resp.GetLoadTimeMs()) * time.Millisecond, err
}

// Evict drops a circuit's parameters from memory (on every daemon, for
// several: wasLoaded when any had them, freedBytes summed).
func (c *Client) Evict(ctx context.Context, circuitID string) (wasLoaded bool, freedBytes uint64, err error) {
	if c.fleet != nil {
		return c.evictAll(ctx, circuitID)
	}
	resp, err := c.rpc.EvictSRS(ctx, &cuzkv1.EvictSrsRequest{CircuitId: circuitID})
	return resp.GetWasLoaded(), resp.GetFreedBytes(), err
}

// TestRequest builds a request for the daemon's test circuit with 2^logRows
// rows; options is the JSON options object (engine/testkind.Options), or
// nil.
func TestRequest(requestID string, logRows int, options []byte) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{
		RequestId:       requestID,
		ProofKind:       cuzkv1.ProofKind(proofkind.Test),
		RegisteredProof: uint64(logRows),
		SectorSize:      1 << logRows,
		VanillaProof:    options,
	}
}
