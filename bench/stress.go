package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// Rate is one entry of a stress mix: arrivals of a proof type per second.
type Rate struct {
	Kind      proofkind.Kind `json:"type"`
	PerSecond float64        `json:"per_second"`
	Text      string         `json:"text"` // as given, e.g. "2/m"
}

// ErrBadMix: a --mix value that ParseMix rejects.
var ErrBadMix = errors.New("bad stress mix")

// ParseMix parses "porep=2/m,test=1/s": proof types with arrival rates.
// A rate needs its unit (/s, /m or /min, /h), so "2" cannot be mistaken
// for two a minute when it would mean two a second.
func ParseMix(s string) ([]Rate, error) {
	var out []Rate
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, rate, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("%w: %q: want TYPE=RATE, e.g. porep=2/m", ErrBadMix, item)
		}
		t, err := proofkind.Parse(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadMix, err)
		}
		if slices.ContainsFunc(out, func(r Rate) bool { return r.Kind == t }) {
			return nil, fmt.Errorf("%w: %s given twice", ErrBadMix, t)
		}
		num, unit, ok := strings.Cut(strings.TrimSpace(rate), "/")
		if !ok {
			return nil, fmt.Errorf("%w: rate %q needs a unit: %s/s, %s/m or %s/h", ErrBadMix, rate, rate, rate, rate)
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v <= 0 || v > 1e6 {
			return nil, fmt.Errorf("%w: rate %q: want a positive number", ErrBadMix, rate)
		}
		switch unit {
		case "s", "sec":
		case "m", "min":
			v /= 60
		case "h", "hour":
			v /= 3600
		default:
			return nil, fmt.Errorf("%w: rate %q: unit must be s, m (min) or h", ErrBadMix, rate)
		}
		out = append(out, Rate{Kind: t, PerSecond: v, Text: strings.TrimSpace(rate)})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: empty", ErrBadMix)
	}
	return out, nil
}

// Arrivals is the arrival process of a stress run.
type Arrivals string

// Arrival processes.
const (
	// Poisson: exponential gaps with the given mean rate, independent per
	// proof type, drawn from a seeded generator (the same seed gives the
	// same schedule).
	Poisson Arrivals = "poisson"
	// Fixed: one arrival every 1/rate per type, the first at time 0.
	Fixed Arrivals = "fixed"
)

// ParseArrivals parses "poisson" or "fixed".
func ParseArrivals(s string) (Arrivals, error) {
	switch a := Arrivals(strings.ToLower(s)); a {
	case Poisson, Fixed:
		return a, nil
	}
	return "", fmt.Errorf("unknown arrival process %q (poisson or fixed)", s)
}

// Arrival is one planned submission.
type Arrival struct {
	At   time.Duration  `json:"at_ns"`
	Kind proofkind.Kind `json:"type"`
}

// Schedule plans the arrivals in [0, d), in time order.
func Schedule(mix []Rate, d time.Duration, a Arrivals, seed uint64) []Arrival {
	var out []Arrival
	for i, r := range mix {
		if r.PerSecond <= 0 {
			continue
		}
		mean := float64(time.Second) / r.PerSecond
		switch a {
		case Fixed:
			for k := 0; ; k++ {
				at := time.Duration(float64(k) * mean)
				if at >= d {
					break
				}
				out = append(out, Arrival{At: at, Kind: r.Kind})
			}
		default:
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			for t := rng.ExpFloat64() * mean; t < float64(d); t += rng.ExpFloat64() * mean {
				out = append(out, Arrival{At: time.Duration(t), Kind: r.Kind})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Arrival) int { return cmp.Compare(x.At, y.At) })
	return out
}

// StressOptions configure a stress run.
type StressOptions struct {
	Duration time.Duration // arrivals happen in [0, Duration)
	// Drain bounds the wait for outstanding jobs after the last arrival;
	// jobs still not final then are cancelled (and accounted as such).
	Drain    time.Duration
	Arrivals Arrivals
	Seed     uint64
	RunID    string
	// Status, when set, is sampled for the memory budget and read for the
	// per-kind counters.
	Status *StatusClient
	// Sample is how often memory is sampled (default 1 s).
	Sample time.Duration
}

// KindStats are one proof type's (or all types') outcomes in a stress run.
// Submitted = Rejected + Completed + Failed + Cancelled + Lost.
type KindStats struct {
	Kind           string `json:"type"` // the kind's name, or "all"
	Planned        int    `json:"planned"`
	Submitted      int    `json:"submitted"`
	Rejected       int    `json:"rejected"`
	Completed      int    `json:"completed"`
	Failed         int    `json:"failed"`
	Cancelled      int    `json:"cancelled"`
	DrainCancelled int    `json:"drain_cancelled"` // part of Cancelled
	Lost           int    `json:"lost"`
	// Moved counts the jobs a daemon refused or lost that went on to
	// another daemon (each is also counted by its final outcome).
	Moved int `json:"moved"`
	// Latency is the client's submit-to-result time of completed jobs;
	// QueueWait and Total are the daemon's.
	Latency   Dist `json:"latency"`
	QueueWait Dist `json:"queue_wait"`
	Total     Dist `json:"total"`
}

// Accounted reports whether every submitted job has an outcome.
func (k *KindStats) Accounted() bool {
	return k.Submitted == k.Rejected+k.Completed+k.Failed+k.Cancelled+k.Lost
}

// MemoryReport is the daemon's memory during a stress run.
type MemoryReport struct {
	// PeakRSS is the largest process_resident_memory_bytes sampled from
	// the daemon's metrics (0 when the daemon exposes none).
	PeakRSS    uint64 `json:"peak_rss_bytes"`
	RSSSamples int    `json:"rss_samples"`
	// From /status (when a status address was given): the budget's total,
	// its peak since the daemon started, and the largest use sampled
	// during the run.
	StatusRead    bool  `json:"status_read"`
	BudgetTotal   int64 `json:"budget_total_bytes,omitempty"`
	BudgetPeak    int64 `json:"budget_peak_bytes,omitempty"`
	BudgetUsedMax int64 `json:"budget_used_max_bytes,omitempty"`
}

// CounterCheck compares the daemon's job counters before and after the
// run with what the run saw. Other clients of the same daemon make them
// differ, so a mismatch is reported, not fatal.
type CounterCheck struct {
	CompletedDelta uint64 `json:"completed_delta"`
	FailedDelta    uint64 `json:"failed_delta"`
	Consistent     bool   `json:"consistent"`
}

// StressReport is a stress run.
type StressReport struct {
	RunID    string        `json:"run_id"`
	Mix      []Rate        `json:"mix"`
	Arrivals Arrivals      `json:"arrivals"`
	Seed     uint64        `json:"seed"`
	Duration time.Duration `json:"duration_ns"`
	Drain    time.Duration `json:"drain_ns"`
	// LastArrival is when the last job was submitted; Elapsed is the
	// whole run, drain included.
	LastArrival time.Duration `json:"last_arrival_ns"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	Interrupted bool          `json:"interrupted,omitempty"`
	Kinds       []KindStats   `json:"kinds"`
	All         KindStats     `json:"all"`
	LostJobs    []string      `json:"lost_jobs,omitempty"`
	Memory      MemoryReport  `json:"memory"`
	Counters    CounterCheck  `json:"daemon_counters"`
	// Daemons is the run's spread over the client's daemons.
	Daemons []DaemonStats `json:"daemons"`
	Results []Result      `json:"results"`
}

// StressProgress is a snapshot of a running stress run.
type StressProgress struct {
	Elapsed   time.Duration
	Planned   int
	Submitted int
	Final     int
	Completed int
	Failed    int // not completed, for any reason
	InFlight  int
	PeakRSS   uint64
	Draining  bool
}

// Stress is an open-loop load generator: jobs arrive on a schedule fixed
// in advance, whatever the daemon's progress, for a bounded time.
type Stress struct {
	c     *client.Client
	specs map[proofkind.Kind]*Spec
	mix   []Rate
	opt   StressOptions
	plan  []Arrival

	start                               time.Time
	startNs                             atomic.Int64 // start, for Progress
	submitted, final, completed, failed atomic.Int64
	peakRSS, rssSamples                 atomic.Uint64
	budgetUsedMax                       atomic.Int64
	draining                            atomic.Bool

	mu         sync.Mutex
	daemonPeak map[string]uint64 // resident memory per daemon
}

// NewStress plans a run; specs must hold a Spec for every type in mix.
func NewStress(c *client.Client, specs map[proofkind.Kind]*Spec, mix []Rate, opt StressOptions) (*Stress, error) {
	if opt.Duration <= 0 {
		return nil, fmt.Errorf("stress: duration must be positive")
	}
	if opt.Arrivals == "" {
		opt.Arrivals = Poisson
	}
	if opt.Sample <= 0 {
		opt.Sample = time.Second
	}
	if opt.RunID == "" {
		opt.RunID = NewRunID("bench-stress")
	}
	for _, r := range mix {
		if specs[r.Kind] == nil {
			return nil, fmt.Errorf("stress: no request for proof type %s", r.Kind)
		}
	}
	return &Stress{c: c, specs: specs, mix: mix, opt: opt, plan: Schedule(mix, opt.Duration, opt.Arrivals, opt.Seed)}, nil
}

// Plan is the arrival schedule.
func (s *Stress) Plan() []Arrival { return s.plan }

// Progress is a snapshot, safe to call while Run runs.
func (s *Stress) Progress() StressProgress {
	p := StressProgress{
		Planned: len(s.plan), Submitted: int(s.submitted.Load()), Final: int(s.final.Load()),
		Completed: int(s.completed.Load()), Failed: int(s.failed.Load()), PeakRSS: s.peakRSS.Load(), Draining: s.draining.Load(),
	}
	if ns := s.startNs.Load(); ns != 0 {
		p.Elapsed = time.Since(time.Unix(0, ns))
	}
	p.InFlight = p.Submitted - p.Final
	return p
}

// Run submits the planned jobs at their times, awaits each, drains, and
// accounts for every job. each is called (serialised) as jobs end. A
// cancelled ctx stops the arrivals and cancels the outstanding jobs.
func (s *Stress) Run(ctx context.Context, each func(Result)) (*StressReport, error) {
	rep := &StressReport{RunID: s.opt.RunID, Mix: s.mix, Arrivals: s.opt.Arrivals, Seed: s.opt.Seed, Duration: s.opt.Duration, Drain: s.opt.Drain}
	before, err := s.c.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("stress: GetStatus: %w", err)
	}
	sampleCtx, stopSampling := context.WithCancel(context.Background())
	samplerDone := make(chan struct{})
	go func() { defer close(samplerDone); s.sample(sampleCtx) }()

	s.start = time.Now()
	s.startNs.Store(s.start.UnixNano())
	// Jobs wait for their results under awaitCtx, which ends when the
	// drain time is up (or the caller gives up).
	awaitCtx, stopAwaits := context.WithCancel(context.Background())
	defer stopAwaits()
	stopOnCaller := context.AfterFunc(ctx, stopAwaits)
	defer stopOnCaller()

	results := make([]Result, 0, len(s.plan))
	var mu sync.Mutex
	var wg sync.WaitGroup
	timer := time.NewTimer(0)
	<-timer.C
arrivals:
	for i, a := range s.plan {
		if wait := time.Until(s.start.Add(a.At)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				rep.Interrupted = true
				break arrivals
			}
		} else if ctx.Err() != nil {
			rep.Interrupted = true
			break
		}
		rep.LastArrival = time.Since(s.start)
		s.submitted.Add(1)
		id := fmt.Sprintf("%s-%s-%d", s.opt.RunID, a.Kind, i)
		wg.Go(func() {
			r := s.one(ctx, awaitCtx, s.specs[a.Kind], i, id)
			s.final.Add(1)
			if r.OK() {
				s.completed.Add(1)
			} else if r.Status != StatusError {
				s.failed.Add(1)
			}
			mu.Lock()
			results = append(results, r)
			if each != nil && r.Status != StatusError {
				each(r)
			}
			mu.Unlock()
		})
	}
	s.draining.Store(true)
	drainTimer := time.AfterFunc(s.opt.Drain, stopAwaits)
	wg.Wait()
	drainTimer.Stop()

	// Jobs without a final status: cancel them and ask once more, so each
	// ends either cancelled (accounted) or lost (reported).
	for i := range results {
		r := &results[i]
		if r.Status != StatusError {
			continue
		}
		s.settle(r)
		if each != nil {
			each(*r)
		}
	}
	rep.Elapsed = time.Since(s.start)
	stopSampling()
	<-samplerDone

	SortByIndex(results)
	rep.Results = results
	byType := map[proofkind.Kind]*KindStats{}
	for _, r := range s.mix {
		byType[r.Kind] = &KindStats{Kind: r.Kind.String()}
	}
	for _, a := range s.plan {
		byType[a.Kind].Planned++
	}
	lat := map[proofkind.Kind][3][]time.Duration{}
	for _, r := range results {
		k := byType[r.Kind]
		k.Submitted++
		if len(r.Moved) > 0 {
			k.Moved++
		}
		switch {
		case r.Status == StatusRejected:
			k.Rejected++
		case r.OK():
			k.Completed++
			l := lat[r.Kind]
			l[0], l[1], l[2] = append(l[0], r.Wall), append(l[1], r.QueueWait), append(l[2], r.Total)
			lat[r.Kind] = l
		case r.Status == StatusCancelled:
			k.Cancelled++
			if r.DrainCancelled {
				k.DrainCancelled++
			}
		case r.Status == StatusLost || r.Status == StatusError:
			k.Lost++
			rep.LostJobs = append(rep.LostJobs, r.RequestID)
		default:
			k.Failed++
		}
	}
	var all [3][]time.Duration
	rep.All.Kind = "all"
	for _, r := range s.mix {
		k := byType[r.Kind]
		l := lat[r.Kind]
		k.Latency, k.QueueWait, k.Total = NewDist(l[0]), NewDist(l[1]), NewDist(l[2])
		for i := range all {
			all[i] = append(all[i], l[i]...)
		}
		rep.Kinds = append(rep.Kinds, *k)
		a := &rep.All
		a.Planned += k.Planned
		a.Submitted += k.Submitted
		a.Rejected += k.Rejected
		a.Completed += k.Completed
		a.Failed += k.Failed
		a.Cancelled += k.Cancelled
		a.DrainCancelled += k.DrainCancelled
		a.Lost += k.Lost
		a.Moved += k.Moved
	}
	rep.All.Latency, rep.All.QueueWait, rep.All.Total = NewDist(all[0]), NewDist(all[1]), NewDist(all[2])

	rep.Daemons = Spread(s.c, results)
	s.mu.Lock()
	for i := range rep.Daemons {
		rep.Daemons[i].PeakRSS = s.daemonPeak[rep.Daemons[i].Addr]
	}
	s.mu.Unlock()
	rep.Memory = MemoryReport{PeakRSS: s.peakRSS.Load(), RSSSamples: int(s.rssSamples.Load()), BudgetUsedMax: s.budgetUsedMax.Load()}
	fin, ctxCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ctxCancel()
	if s.opt.Status != nil {
		if st, _, err := s.opt.Status.Status(fin); err == nil {
			rep.Memory.StatusRead = true
			rep.Memory.BudgetTotal, rep.Memory.BudgetPeak = st.Memory.TotalBytes, st.Memory.PeakBytes
			rep.Memory.BudgetUsedMax = max(rep.Memory.BudgetUsedMax, st.Memory.UsedBytes)
		}
	}
	if after, err := s.c.Status(fin); err == nil {
		c := &rep.Counters
		c.CompletedDelta = after.GetTotalProofsCompleted() - before.GetTotalProofsCompleted()
		c.FailedDelta = after.GetTotalProofsFailed() - before.GetTotalProofsFailed()
		c.Consistent = c.CompletedDelta == uint64(rep.All.Completed) && c.FailedDelta == uint64(rep.All.Failed)
	}
	return rep, nil
}

// one submits a job and waits for its result. A job whose wait is cut
// (drain over, connection trouble) comes back with StatusError and its job
// id, for settle. With several daemons, a job whose daemon stopped or
// forgot it (Unavailable, NotFound) is submitted again, to another daemon
// if one is ready, and recorded as moved.
func (s *Stress) one(ctx, awaitCtx context.Context, spec *Spec, index int, id string) Result {
	r := Result{Index: index, Kind: spec.Kind(), RequestID: id, Start: time.Now()}
	sub, err := s.c.Submit(ctx, spec.Request(id))
	place(s.c, &r, id)
	if err != nil {
		r.End = time.Now()
		r.Wall = r.End.Sub(r.Start)
		r.Status, r.Error = StatusRejected, err.Error()
		// A draining daemon's refusal (client.ErrDraining says so in its
		// text) made no job: it stays rejected.
		if !client.IsDraining(err) && (ctx.Err() != nil || status.Code(err) == codes.Unavailable || status.Code(err) == codes.DeadlineExceeded) {
			// The request may have reached the daemon: find out in settle.
			r.Status, r.JobID = StatusError, id
		}
		return r
	}
	r.JobID, r.accepted = sub.GetJobId(), true
	resubmits := 0
	for attempt := 0; ; attempt++ {
		resp, err := s.c.RPC().AwaitProof(awaitCtx, &cuzkv1.AwaitProofRequest{JobId: r.JobID})
		if err == nil {
			r.End = time.Now()
			r.Wall = r.End.Sub(r.Start)
			r.fill(resp)
			if r.Status == cuzkv1.AwaitProofResponse_TIMEOUT.String() || r.Status == cuzkv1.AwaitProofResponse_UNKNOWN.String() {
				continue // not final: wait again
			}
			return r
		}
		code := status.Code(err)
		if s.c.Several() && awaitCtx.Err() == nil && (code == codes.Unavailable || code == codes.NotFound) && resubmits < len(s.c.Daemons()) {
			resubmits++
			lost := r.Daemon
			sub, serr := s.c.Submit(ctx, spec.Request(id))
			if serr != nil {
				// No daemon took it again: it stays the lost job it is.
				r.Status, r.Error = StatusError, fmt.Sprintf("%v; submitting it again: %v", err, serr)
				return r
			}
			r.Moved = append(r.Moved, lost)
			r.JobID = sub.GetJobId()
			place(s.c, &r, r.JobID)
			attempt = -1
			continue
		}
		if awaitCtx.Err() != nil || attempt >= 5 {
			r.Status, r.Error = StatusError, err.Error()
			return r
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
}

// settle gives a job without a final status one last chance: cancel it,
// then wait briefly for its final state. A request that never became a job
// counts as rejected; a job whose final state cannot be learnt is lost.
func (s *Stress) settle(r *Result) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cause := r.Error
	_, _ = s.c.Cancel(ctx, r.JobID)
	resp, err := s.c.RPC().AwaitProof(ctx, &cuzkv1.AwaitProofRequest{JobId: r.JobID, TimeoutMs: 10_000})
	switch {
	case err == nil && resp.GetStatus() != cuzkv1.AwaitProofResponse_TIMEOUT && resp.GetStatus() != cuzkv1.AwaitProofResponse_UNKNOWN:
		r.End = time.Now()
		r.Wall = r.End.Sub(r.Start)
		r.fill(resp)
		if r.Status == StatusCancelled {
			r.DrainCancelled = true
			r.Error = "cancelled by the stress run after its drain time (" + cause + ")"
		}
	case status.Code(err) == codes.NotFound && !r.accepted:
		r.Status = StatusRejected // the submission never made a job
	default:
		r.Status = StatusLost
		if err != nil {
			r.Error = fmt.Sprintf("%s; then: %v", cause, err)
		}
	}
}

// sample reads the daemon's resident memory (metrics) and budget
// (/status) until ctx ends.
func (s *Stress) sample(ctx context.Context) {
	t := time.NewTicker(s.opt.Sample)
	defer t.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		for _, d := range s.c.Daemons() {
			text, err := s.c.MetricsOf(rctx, d.Addr)
			if err != nil {
				continue
			}
			if v, ok := MetricValue(text, ResidentMetric); ok {
				s.rssSamples.Add(1)
				s.mu.Lock()
				if s.daemonPeak == nil {
					s.daemonPeak = map[string]uint64{}
				}
				s.daemonPeak[d.Addr] = max(s.daemonPeak[d.Addr], uint64(v))
				s.mu.Unlock()
				for {
					old := s.peakRSS.Load()
					if uint64(v) <= old || s.peakRSS.CompareAndSwap(old, uint64(v)) {
						break
					}
				}
			}
		}
		if s.opt.Status != nil {
			if st, _, err := s.opt.Status.Status(rctx); err == nil {
				for {
					old := s.budgetUsedMax.Load()
					if st.Memory.UsedBytes <= old || s.budgetUsedMax.CompareAndSwap(old, st.Memory.UsedBytes) {
						break
					}
				}
			}
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
