package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// Result statuses besides the wire's COMPLETED, FAILED, CANCELLED, TIMEOUT
// and UNKNOWN.
const (
	StatusCompleted = "COMPLETED"
	StatusFailed    = "FAILED"
	StatusCancelled = "CANCELLED"
	// StatusRejected: the daemon refused the request (an RPC error on
	// submission); no job exists.
	StatusRejected = "REJECTED"
	// StatusError: a job may exist but no final status came back (the
	// connection broke, the daemon stopped).
	StatusError = "ERROR"
	// StatusLost: a stress run could not learn the job's final status, not
	// even after cancelling it.
	StatusLost = "LOST"
)

// DrainingNote is what a result refused by a draining daemon says.
const DrainingNote = "the daemon is draining (shutting down: it finishes its jobs and takes no new ones); send the request to another daemon"

// Result is one proof as the client saw it, with the daemon's timings.
// Daemon durations are whole milliseconds (the wire's resolution).
type Result struct {
	Index     int            `json:"index"`
	Kind      proofkind.Kind `json:"type"`
	RequestID string         `json:"request_id"`
	JobID     string         `json:"job_id,omitempty"`
	Status    string         `json:"status"`
	Error     string         `json:"error,omitempty"`
	Start     time.Time      `json:"start"`
	End       time.Time      `json:"end"`
	Wall      time.Duration  `json:"wall_ns"`
	QueueWait time.Duration  `json:"queue_wait_ns"`
	SRSLoad   time.Duration  `json:"srs_load_ns"`
	Synthesis time.Duration  `json:"synthesis_ns"`
	Prove     time.Duration  `json:"prove_ns"`
	Total     time.Duration  `json:"total_ns"`
	// ProveSteps are Prove's parts: the prover's steps (msm l, msm a,
	// msm b_g1, msm b_g2, h, msm h, assemble), each summed over the
	// job's partitions and the longest partition's, in nanoseconds (the
	// wire's AwaitProofResponse.prove_steps; absent from a daemon that
	// sends none: a GPU's, or one older than the field).
	ProveSteps []statusdoc.StepTotal `json:"prove_steps,omitempty"`
	// ProofBytes is the proof's length (192 bytes per partition).
	ProofBytes int    `json:"proof_bytes"`
	Proof      []byte `json:"-"`
	// DrainCancelled: a stress run cancelled the job when its drain time
	// ran out.
	DrainCancelled bool `json:"drain_cancelled,omitempty"`
	// Daemon is the address of the daemon that ran the job (or last
	// answered for it); Moved lists, in order, the daemons that refused or
	// lost it before (a client of several daemons sends it on).
	Daemon string   `json:"daemon,omitempty"`
	Moved  []string `json:"moved_from,omitempty"`

	accepted bool // SubmitProof returned a job id
}

// OK reports a completed proof.
func (r *Result) OK() bool { return r.Status == StatusCompleted }

// fill copies a final (or timed-out) response into r.
func (r *Result) fill(resp *cuzkv1.AwaitProofResponse) {
	ms := func(v uint64) time.Duration { return time.Duration(v) * time.Millisecond }
	if resp.GetJobId() != "" {
		r.JobID = resp.GetJobId()
	}
	r.Status = resp.GetStatus().String()
	r.Error = resp.GetErrorMessage()
	r.QueueWait, r.SRSLoad, r.Synthesis = ms(resp.GetQueueWaitMs()), ms(resp.GetSrsLoadMs()), ms(resp.GetSynthesisMs())
	r.Prove, r.Total = ms(resp.GetGpuComputeMs()), ms(resp.GetTotalMs())
	r.ProveSteps = nil
	for _, st := range resp.GetProveSteps() {
		r.ProveSteps = append(r.ProveSteps, statusdoc.StepTotal{Step: st.GetStep(), Sum: time.Duration(st.GetSumNs()), Max: time.Duration(st.GetMaxNs())})
	}
	r.Proof = resp.GetProof()
	r.ProofBytes = len(r.Proof)
	if r.Status == StatusCompleted && r.ProofBytes == 0 {
		r.Status, r.Error = StatusFailed, "completed without proof bytes"
	}
}

// NewRunID returns a short random id that prefixes a run's request ids, so
// runs never collide with each other's (the daemon deduplicates by id).
func NewRunID(prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// Prove sends one request through the Prove RPC and measures it.
func Prove(ctx context.Context, c *client.Client, spec *Spec, index int, requestID string) Result {
	r := Result{Index: index, Kind: spec.Kind(), RequestID: requestID, Start: time.Now()}
	resp, err := c.RPC().Prove(ctx, &cuzkv1.ProveRequest{Submit: spec.Request(requestID)})
	r.End = time.Now()
	r.Wall = r.End.Sub(r.Start)
	place(c, &r, requestID)
	if err != nil {
		r.Status, r.Error = StatusError, err.Error()
		if client.IsDraining(err) {
			// No job was made: say why in words, not only in gRPC's.
			r.Status, r.Error = StatusRejected, DrainingNote+" ("+err.Error()+")"
			return r
		}
		if ctx.Err() != nil {
			// The run was stopped: nobody comes back for the job, so cancel
			// it instead of leaving it to the daemon's orphan grace.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_, _ = c.Cancel(cctx, requestID)
			cancel()
		}
		return r
	}
	r.fill(resp.GetResult())
	return r
}

// BatchOptions configure RunBatch.
type BatchOptions struct {
	Count       int
	Concurrency int
	// RunID prefixes the request ids (RunID-0, RunID-1, ...); empty draws
	// one.
	RunID string
}

// BatchReport is a batch run.
type BatchReport struct {
	Spec        *Spec         `json:"spec"`
	Count       int           `json:"count"`
	Concurrency int           `json:"concurrency"`
	Start       time.Time     `json:"start"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	Results     []Result      `json:"results"` // in index order
	Summary     Summary       `json:"summary"`
	// Daemons is the run's spread over the client's daemons.
	Daemons []DaemonStats `json:"daemons"`
}

// RunBatch proves spec Count times with at most Concurrency requests in
// flight and calls each (serialised) as every proof returns.
func RunBatch(ctx context.Context, c *client.Client, spec *Spec, opt BatchOptions, each func(Result)) *BatchReport {
	opt.Count = max(opt.Count, 0)
	opt.Concurrency = min(max(opt.Concurrency, 1), max(opt.Count, 1))
	if opt.RunID == "" {
		opt.RunID = NewRunID("bench-batch")
	}
	rep := &BatchReport{Spec: spec, Count: opt.Count, Concurrency: opt.Concurrency, Start: time.Now(), Results: make([]Result, opt.Count)}
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range opt.Concurrency {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= opt.Count {
					return
				}
				var r Result
				if err := ctx.Err(); err != nil {
					r = Result{Index: i, Kind: spec.Kind(), RequestID: fmt.Sprintf("%s-%d", opt.RunID, i), Status: StatusError, Error: err.Error(), Start: time.Now(), End: time.Now()}
				} else {
					r = Prove(ctx, c, spec, i, fmt.Sprintf("%s-%d", opt.RunID, i))
				}
				mu.Lock()
				rep.Results[i] = r
				if each != nil {
					each(r)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	rep.Elapsed = time.Since(rep.Start)
	rep.Summary = Summarize(rep.Results, rep.Elapsed)
	rep.Daemons = Spread(c, rep.Results)
	return rep
}

// Summary aggregates the completed proofs of a run. The distributions
// cover completed proofs only.
type Summary struct {
	Requested int  `json:"requested"`
	Completed int  `json:"completed"`
	Failed    int  `json:"failed"` // every proof that did not complete
	Wall      Dist `json:"wall"`   // client: request sent to result received
	QueueWait Dist `json:"queue_wait"`
	SRSLoad   Dist `json:"srs_load"`
	Synthesis Dist `json:"synthesis"`
	Prove     Dist `json:"prove"`
	Total     Dist `json:"total"` // daemon: accepted to final
	// Client is completed proofs over the run's elapsed time (first
	// request to last result). Daemon is completed proofs over the time
	// the daemon held at least one of them: from the earliest acceptance
	// (a proof's end minus its daemon total) to the last end; it leaves
	// out client overhead before the first request reached the daemon.
	Client Throughput `json:"throughput_client"`
	Daemon Throughput `json:"throughput_daemon"`
}

// Summarize computes a Summary over results, which took elapsed.
func Summarize(results []Result, elapsed time.Duration) Summary {
	s := Summary{Requested: len(results)}
	var wall, queue, load, synth, prove, total []time.Duration
	var first, last time.Time
	for _, r := range results {
		if !r.OK() {
			s.Failed++
			continue
		}
		s.Completed++
		wall, queue, load = append(wall, r.Wall), append(queue, r.QueueWait), append(load, r.SRSLoad)
		synth, prove, total = append(synth, r.Synthesis), append(prove, r.Prove), append(total, r.Total)
		if accepted := r.End.Add(-r.Total); first.IsZero() || accepted.Before(first) {
			first = accepted
		}
		if r.End.After(last) {
			last = r.End
		}
	}
	s.Wall, s.QueueWait, s.SRSLoad = NewDist(wall), NewDist(queue), NewDist(load)
	s.Synthesis, s.Prove, s.Total = NewDist(synth), NewDist(prove), NewDist(total)
	s.Client = NewThroughput(s.Completed, elapsed)
	if s.Completed > 0 {
		s.Daemon = NewThroughput(s.Completed, last.Sub(first))
	}
	return s
}

// SortByIndex orders results by index.
func SortByIndex(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int { return a.Index - b.Index })
}
