package server

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// service implements cuzkv1.ProvingEngineServer over the engine.
type service struct {
	cuzkv1.UnimplementedProvingEngineServer
	s *Server
}

// DecodeRequest turns a SubmitProofRequest into an engine request. The
// proof kind and the priority are carried over as they are: the engine
// rejects kinds it serves not, and runs an unknown priority as NORMAL.
func DecodeRequest(r *cuzkv1.SubmitProofRequest) *engine.Request {
	return &engine.Request{
		RequestID:       r.GetRequestId(),
		Kind:            proofkind.Kind(r.GetProofKind()),
		Priority:        proofkind.Priority(r.GetPriority()),
		SectorSize:      r.GetSectorSize(),
		RegisteredProof: r.GetRegisteredProof(),
		VanillaProof:    r.GetVanillaProof(),
		VanillaProofs:   r.GetVanillaProofs(),
		SectorNumber:    r.GetSectorNumber(),
		MinerID:         r.GetMinerId(),
		Randomness:      r.GetRandomness(),
		PartitionIndex:  r.GetPartitionIndex(),
		CommROld:        r.GetCommROld(),
		CommRNew:        r.GetCommRNew(),
		CommDNew:        r.GetCommDNew(),
	}
}

// EncodeRequest is DecodeRequest's inverse, for in-process callers that
// send an engine request over the wire (cuzk bench's built-in requests):
// the byte fields are shared, not copied.
func EncodeRequest(r *engine.Request) *cuzkv1.SubmitProofRequest {
	return &cuzkv1.SubmitProofRequest{
		RequestId:       r.RequestID,
		ProofKind:       cuzkv1.ProofKind(r.Kind),
		Priority:        cuzkv1.Priority(r.Priority),
		SectorSize:      r.SectorSize,
		RegisteredProof: r.RegisteredProof,
		VanillaProof:    r.VanillaProof,
		VanillaProofs:   r.VanillaProofs,
		SectorNumber:    r.SectorNumber,
		MinerId:         r.MinerID,
		Randomness:      r.Randomness,
		PartitionIndex:  r.PartitionIndex,
		CommROld:        r.CommROld,
		CommRNew:        r.CommRNew,
		CommDNew:        r.CommDNew,
	}
}

// ms rounds a duration up to whole milliseconds (see the package doc).
func ms(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return uint64((d + time.Millisecond - 1) / time.Millisecond)
}

// ns is a duration in whole nanoseconds, 0 for a negative one.
func ns(d time.Duration) uint64 { return uint64(max(d, 0)) }

// encodeResult builds an AwaitProofResponse; timings only for COMPLETED.
func encodeResult(r engine.Result) *cuzkv1.AwaitProofResponse {
	out := &cuzkv1.AwaitProofResponse{JobId: r.JobID}
	switch r.State {
	case engine.StateCompleted:
		out.Status = cuzkv1.AwaitProofResponse_COMPLETED
		out.Proof = r.Proof
		out.QueueWaitMs = ms(r.Timings.QueueWait)
		out.SrsLoadMs = ms(r.Timings.SRSLoad)
		out.SynthesisMs = ms(r.Timings.Synthesis)
		out.GpuComputeMs = ms(r.Timings.Prove)
		out.TotalMs = ms(r.Timings.Total)
		for _, st := range r.Timings.ProveSteps {
			out.ProveSteps = append(out.ProveSteps, &cuzkv1.ProveStep{Step: st.Step, SumNs: ns(st.Sum), MaxNs: ns(st.Max)})
		}
	case engine.StateFailed:
		out.Status = cuzkv1.AwaitProofResponse_FAILED
		if r.Err != nil {
			out.ErrorMessage = clip(r.Err.Error(), maxMessageLen)
		} else {
			out.ErrorMessage = "failed"
		}
	case engine.StateCancelled:
		out.Status = cuzkv1.AwaitProofResponse_CANCELLED
	case engine.StateTimeout:
		out.Status = cuzkv1.AwaitProofResponse_TIMEOUT
	default:
		out.Status = cuzkv1.AwaitProofResponse_UNKNOWN
	}
	return out
}

func (v *service) SubmitProof(ctx context.Context, req *cuzkv1.SubmitProofRequest) (*cuzkv1.SubmitProofResponse, error) {
	if err := checkID("request_id", req.GetRequestId()); err != nil {
		return nil, err
	}
	ns := jobNamespace(ctx)
	er := DecodeRequest(req)
	er.IDPrefix = ns
	res, err := v.s.eng.Submit(ctx, er)
	if err != nil {
		return nil, statusError(err)
	}
	return &cuzkv1.SubmitProofResponse{JobId: strings.TrimPrefix(res.JobID, ns), QueuePosition: uint32(res.QueuePosition)}, nil
}

func (v *service) AwaitProof(ctx context.Context, req *cuzkv1.AwaitProofRequest) (*cuzkv1.AwaitProofResponse, error) {
	if err := checkID("job_id", req.GetJobId()); err != nil {
		return nil, err
	}
	ns := jobNamespace(ctx)
	r, err := v.s.eng.Await(ctx, ns+req.GetJobId(), awaitTimeout(req.GetTimeoutMs()))
	if err != nil {
		return nil, statusError(err)
	}
	if r.State == engine.StateFailed && errors.Is(r.Err, engine.ErrShuttingDown) {
		// As in Prove: the job did not fail on its merits, the daemon went
		// away under it; Unavailable tells a client to submit it elsewhere.
		return nil, statusError(r.Err)
	}
	r.JobID = strings.TrimPrefix(r.JobID, ns)
	return encodeResult(r), nil
}

func (v *service) Prove(ctx context.Context, req *cuzkv1.ProveRequest) (*cuzkv1.ProveResponse, error) {
	if req.GetSubmit() == nil {
		return nil, status.Error(codes.InvalidArgument, "missing submit field")
	}
	if err := checkID("request_id", req.GetSubmit().GetRequestId()); err != nil {
		return nil, err
	}
	ns := jobNamespace(ctx)
	er := DecodeRequest(req.GetSubmit())
	er.IDPrefix = ns
	r, err := v.s.eng.Prove(ctx, er)
	if err != nil {
		return nil, statusError(err)
	}
	r.JobID = strings.TrimPrefix(r.JobID, ns)
	if r.State == engine.StateFailed && errors.Is(r.Err, engine.ErrShuttingDown) {
		return nil, statusError(r.Err)
	}
	return &cuzkv1.ProveResponse{Result: encodeResult(r)}, nil
}

func (v *service) CancelProof(ctx context.Context, req *cuzkv1.CancelProofRequest) (*cuzkv1.CancelProofResponse, error) {
	if err := checkID("job_id", req.GetJobId()); err != nil {
		return nil, err
	}
	was, err := v.s.eng.Cancel(jobNamespace(ctx) + req.GetJobId())
	if err != nil && !errors.Is(err, engine.ErrJobNotFound) {
		return nil, statusError(err)
	}
	return &cuzkv1.CancelProofResponse{WasRunning: was}, nil
}

func (v *service) GetStatus(context.Context, *cuzkv1.GetStatusRequest) (*cuzkv1.GetStatusResponse, error) {
	st := v.s.eng.Status()
	out := &cuzkv1.GetStatusResponse{
		TotalProofsCompleted:   st.Counters.Completed,
		TotalProofsFailed:      st.Counters.Failed,
		UptimeSeconds:          uint64(st.Uptime / time.Second),
		PinnedMemoryBytes:      uint64(st.Memory.UsedBytes),
		PinnedMemoryLimitBytes: uint64(st.Memory.TotalBytes),
		CpuArithmetic:          cpuArithmetic(),
		Draining:               st.Draining,
	}
	for _, p := range st.Params {
		// Only resident parameters are loaded; warm (evicted) and loading
		// entries hold no decoded parameters (GET /status lists them all).
		if !p.Resident() {
			continue
		}
		out.LoadedSrs = append(out.LoadedSrs, &cuzkv1.SRSStatus{
			CircuitId: p.CircuitID, Tier: cuzkv1.SRSStatus_HOT, SizeBytes: uint64(p.Bytes), RefCount: uint32(p.Refs),
		})
	}
	for _, q := range st.Queues {
		out.Queues = append(out.Queues, &cuzkv1.QueueStatus{ProofKind: q.Kind, Pending: uint32(q.Pending), InProgress: uint32(q.InProgress)})
	}
	// From the CUDA runtime through the engine's device query (empty when
	// proving on the CPU; the daemon logs why at start).
	for _, g := range st.Devices {
		out.Gpus = append(out.Gpus, &cuzkv1.GPUStatus{Ordinal: uint32(g.Ordinal), Name: g.Name, VramTotalBytes: g.TotalBytes,
			VramFreeBytes: g.FreeBytes, CurrentJobId: g.Job, CurrentProofKind: g.Kind})
	}
	return out, nil
}

func (v *service) GetMetrics(context.Context, *cuzkv1.GetMetricsRequest) (*cuzkv1.GetMetricsResponse, error) {
	text, err := v.s.metrics.Text()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &cuzkv1.GetMetricsResponse{PrometheusText: text}, nil
}

func (v *service) PreloadSRS(ctx context.Context, req *cuzkv1.PreloadSrsRequest) (*cuzkv1.PreloadSrsResponse, error) {
	if err := checkCircuitID(req.GetCircuitId()); err != nil {
		return nil, err
	}
	already, d, err := v.s.eng.PreloadParams(ctx, req.GetCircuitId())
	if err != nil {
		return nil, statusError(err)
	}
	return &cuzkv1.PreloadSrsResponse{AlreadyLoaded: already, LoadTimeMs: ms(d)}, nil
}

func (v *service) EvictSRS(_ context.Context, req *cuzkv1.EvictSrsRequest) (*cuzkv1.EvictSrsResponse, error) {
	if err := checkCircuitID(req.GetCircuitId()); err != nil {
		return nil, err
	}
	was, freed, err := v.s.eng.EvictParams(req.GetCircuitId())
	if err != nil {
		return nil, statusError(err)
	}
	return &cuzkv1.EvictSrsResponse{WasLoaded: was, FreedBytes: uint64(freed)}, nil
}

// awaitTimeout is AwaitProof's timeout_ms as a duration. 0 means no limit,
// and so does any value too large for a time.Duration (about 292 years),
// instead of overflowing into a negative or tiny timeout.
func awaitTimeout(ms uint64) time.Duration {
	if ms > uint64(math.MaxInt64/int64(time.Millisecond)) {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}
