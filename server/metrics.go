package server

import (
	"bytes"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server/history"
)

// Metrics is the daemon's Prometheus registry. It implements
// engine.Observer (pass it to engine.New) for job and batch events and
// engine.StageObserver for each pipeline stage of each partition; gauges
// (queues, memory, parameters, pipeline) are read from the engine's Status
// at scrape time once New has attached it.
//
// Names follow Prometheus' conventions (promtool check metrics passes):
// a counter ends in _total and is one family, labelled by proof_kind where
// it counts jobs, so the daemon-wide count is a sum over kinds. The Rust
// cuzk exported cuzk_proofs_completed_total (no label) beside
// cuzk_proofs_completed{proof_kind} (a counter without _total); both are
// cuzk_proofs_completed_total{proof_kind} here (docs/operations.md,
// "Metrics", has the mapping). cuzk_uptime_seconds, cuzk_queue_depth,
// cuzk_proof_duration_seconds, cuzk_running_jobs and cuzk_gpu_workers
// keep the Rust names.
type Metrics struct {
	reg *prometheus.Registry

	completed, failed, cancelled *prometheus.CounterVec
	duration                     *prometheus.SummaryVec
	stages                       *prometheus.HistogramVec
	pipelineStages               *prometheus.HistogramVec
	batchSize                    *prometheus.HistogramVec
	gpuRetries                   *prometheus.CounterVec

	// history is the last hour the status page charts, fed by the same
	// events (and by the server's sampler).
	history *history.History
}

// NewMetrics returns a registry with the job metrics and the Go runtime
// and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg:       prometheus.NewRegistry(),
		history:   history.New(time.Now),
		completed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_proofs_completed_total", Help: "Proofs completed, by proof kind"}, []string{"proof_kind"}),
		failed:    prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_proofs_failed_total", Help: "Proofs failed, by proof kind"}, []string{"proof_kind"}),
		cancelled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cuzk_proofs_cancelled_total", Help: "Proofs cancelled, by proof kind"}, []string{"proof_kind"}),
		duration: prometheus.NewSummaryVec(prometheus.SummaryOpts{
			Name: "cuzk_proof_duration_seconds", Help: "Proof duration (submit to completion)",
		}, []string{"proof_kind"}),
		stages: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cuzk_stage_duration_seconds",
			Help:    "Per-job time by stage: queue, srs_load, synthesis, prove, total (completed jobs)",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 16), // 1 ms .. ~15 min
		}, []string{"proof_kind", "stage"}),
		pipelineStages: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "cuzk_pipeline_stage_duration_seconds",
			Help: "Per-partition time of each pipeline stage: srs_load, synthesis, prove, finish; self_check per job",
			// 100 µs .. ~15 min: test circuits take milliseconds, 32 GiB
			// PoRep partitions minutes.
			Buckets: prometheus.ExponentialBuckets(0.0001, 2.5, 18),
		}, []string{"circuit_id", "stage"}),
		batchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "cuzk_batch_size", Help: "Jobs per batch admitted to the pipeline",
			Buckets: []float64{1, 2, 3, 4, 6, 8, 12, 16},
		}, []string{"circuit_id"}),
		gpuRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cuzk_gpu_proof_retries_total",
			Help: "GPU proofs redone on the CPU: reason device_error (the device call failed) or bad_proof (the CPU self-check rejected it)",
		}, []string{"reason"}),
	}
	// Both reasons exist from the start, so a dashboard sees 0, not a gap.
	for _, r := range []string{"device_error", "bad_proof"} {
		m.gpuRetries.WithLabelValues(r)
	}
	m.reg.MustRegister(m.completed, m.failed, m.cancelled,
		m.duration, m.stages, m.pipelineStages, m.batchSize, m.gpuRetries,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// serving starts the per-kind job counters of each kind served at 0: a
// counter that appears only with its first event reads as "No data" in a
// dashboard (a healthy daemon's failures), and rate() misses the first
// event after the series appears.
func (m *Metrics) serving(ds []proofkind.Descriptor) {
	for _, d := range ds {
		for _, c := range []*prometheus.CounterVec{m.completed, m.failed, m.cancelled} {
			c.WithLabelValues(d.MetricLabel())
		}
	}
}

// Registry is the registry /metrics serves.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// JobFinished implements engine.Observer.
func (m *Metrics) JobFinished(r engine.JobReport) {
	kind := r.Kind.MetricLabel()
	switch r.State {
	case engine.StateCompleted:
		m.completed.WithLabelValues(kind).Inc()
		m.history.Completed(r.Kind.Name) // the name the page shows everywhere, not the label
		m.duration.WithLabelValues(kind).Observe(r.Timings.Total.Seconds())
		for stage, d := range map[string]float64{
			"queue": r.Timings.QueueWait.Seconds(), "srs_load": r.Timings.SRSLoad.Seconds(),
			"synthesis": r.Timings.Synthesis.Seconds(), "prove": r.Timings.Prove.Seconds(), "total": r.Timings.Total.Seconds(),
		} {
			m.stages.WithLabelValues(kind, stage).Observe(d)
		}
	case engine.StateFailed:
		m.failed.WithLabelValues(kind).Inc()
	case engine.StateCancelled:
		m.cancelled.WithLabelValues(kind).Inc()
	}
}

// StageTimed implements engine.StageObserver. self_check has no item, so
// its circuit_id is empty.
func (m *Metrics) StageTimed(r engine.StageRecord) {
	m.pipelineStages.WithLabelValues(r.Circuit, r.Stage).Observe(r.Duration.Seconds())
	m.history.Stage(r.Stage, r.Duration)
}

// History is the last hour the status page charts.
func (m *Metrics) History() *history.History { return m.history }

// GPURetry counts one GPU proof redone on the CPU (prover/checked's
// OnRetry; reason is its checked.Reason).
func (m *Metrics) GPURetry(reason string) { m.gpuRetries.WithLabelValues(reason).Inc() }

// BatchFormed implements engine.Observer.
func (m *Metrics) BatchFormed(circuitID string, jobs int) {
	m.batchSize.WithLabelValues(circuitID).Observe(float64(jobs))
}

// Text renders every metric in the Prometheus text format (GetMetrics).
func (m *Metrics) Text() (string, error) {
	mfs, err := m.reg.Gather()
	if err != nil {
		return "", fmt.Errorf("gathering metrics: %w", err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// statusCollector exports the engine's Status as gauges.
type statusCollector struct {
	eng *engine.Engine
	// label maps a kind's name (the queues') to its proof_kind label, so
	// the queue gauges and the job counters label a kind alike.
	label func(name string) string

	uptime, queueDepth, running, gpuWorkers        *prometheus.Desc
	draining                                       *prometheus.Desc
	pauses, pausedSeconds, urgentActive            *prometheus.Desc
	pending, inProgress                            *prometheus.Desc
	memTotal, memUsed, memPeak, memParams, memWait *prometheus.Desc
	memMapped, rssAnon, rssFile                    *prometheus.Desc
	pipeline                                       *prometheus.Desc
	srsBytes, srsRefs                              *prometheus.Desc
}

func newStatusCollector(eng *engine.Engine) *statusCollector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	descs := eng.Descriptors()
	return &statusCollector{
		eng: eng,
		label: func(name string) string {
			if d, err := descs.Parse(name); err == nil {
				return d.MetricLabel()
			}
			return name
		},
		uptime:        d("cuzk_uptime_seconds", "Daemon uptime"),
		draining:      d("cuzk_draining", "1 while the daemon shuts down: it finishes its jobs and refuses new ones"),
		queueDepth:    d("cuzk_queue_depth", "Jobs queued and not started"),
		running:       d("cuzk_running_jobs", "Jobs running"),
		gpuWorkers:    d("cuzk_gpu_workers", "GPU prover lanes (0: proving on the CPU)"),
		pauses:        d("cuzk_preempt_pauses_total", "Times ordinary work paused at a yield point for urgent work"),
		pausedSeconds: d("cuzk_preempt_paused_seconds_total", "Time ordinary workers spent paused for urgent work, summed over workers"),
		urgentActive:  d("cuzk_urgent_active", "Urgent items holding memory now (ordinary work pauses while above 0)"),
		pending:       d("cuzk_queue_pending", "Jobs queued by proof kind", "proof_kind"),
		inProgress:    d("cuzk_queue_in_progress", "Jobs running by proof kind", "proof_kind"),
		memTotal:      d("cuzk_memory_budget_bytes", "Memory budget"),
		memUsed:       d("cuzk_memory_used_bytes", "Memory reserved from the budget"),
		memPeak:       d("cuzk_memory_peak_bytes", "Highest memory reserved since start"),
		memParams:     d("cuzk_memory_params_bytes", "Memory held by resident parameters"),
		memMapped:     d("cuzk_memory_mapped_params_bytes", "Size of mapped parameter files (file-backed page cache, outside the budget)"),
		rssAnon:       d("cuzk_process_resident_anon_bytes", "Anonymous resident memory of the daemon (RssAnon)"),
		rssFile:       d("cuzk_process_resident_file_bytes", "File-backed resident memory of the daemon (RssFile: mapped parameters)"),
		memWait:       d("cuzk_memory_waiters", "Requests waiting for memory"),
		pipeline:      d("cuzk_pipeline_partitions", "Partitions in each pipeline stage", "stage"),
		srsBytes:      d("cuzk_srs_bytes", "Parameter set size", "circuit_id", "tier"),
		srsRefs:       d("cuzk_srs_refs", "Partitions holding a parameter set", "circuit_id"),
	}
}

func (c *statusCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.uptime, c.draining, c.queueDepth, c.running, c.gpuWorkers, c.pauses, c.pausedSeconds, c.urgentActive, c.pending, c.inProgress,
		c.memTotal, c.memUsed, c.memPeak, c.memParams, c.memWait, c.memMapped, c.rssAnon, c.rssFile, c.pipeline, c.srsBytes, c.srsRefs} {
		ch <- d
	}
}

func (c *statusCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.eng.Status()
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	g(c.uptime, st.Uptime.Seconds())
	draining := 0.0
	if st.Draining {
		draining = 1
	}
	g(c.draining, draining)
	depth, running := 0, 0
	for _, q := range st.Queues {
		depth += q.Pending
		running += q.InProgress
		g(c.pending, float64(q.Pending), c.label(q.Kind))
		g(c.inProgress, float64(q.InProgress), c.label(q.Kind))
	}
	g(c.queueDepth, float64(depth))
	g(c.running, float64(running))
	gpuLanes := 0
	for _, l := range st.Lanes {
		if l.DeviceMemory > 0 {
			gpuLanes++
		}
	}
	g(c.gpuWorkers, float64(gpuLanes))
	ch <- prometheus.MustNewConstMetric(c.pauses, prometheus.CounterValue, float64(st.Urgent.Pauses))
	ch <- prometheus.MustNewConstMetric(c.pausedSeconds, prometheus.CounterValue, st.Urgent.PausedTime.Seconds())
	g(c.urgentActive, float64(st.Urgent.Active))
	g(c.memTotal, float64(st.Memory.TotalBytes))
	g(c.memUsed, float64(st.Memory.UsedBytes))
	g(c.memPeak, float64(st.Memory.PeakBytes))
	g(c.memParams, float64(st.Memory.ParamsBytes))
	g(c.memMapped, float64(st.Memory.MappedBytes))
	g(c.rssAnon, float64(st.Memory.ProcessAnonBytes))
	g(c.rssFile, float64(st.Memory.ProcessFileBytes))
	g(c.memWait, float64(st.Memory.Waiting))
	p := st.Pipeline
	for stage, n := range map[string]int{"synthesis_queued": p.SynthesisQueued, "synthesizing": p.Synthesizing,
		"ready": p.Ready, "proving": p.Proving, "finishing": p.Finishing} {
		g(c.pipeline, float64(n), stage)
	}
	for _, e := range st.Params {
		g(c.srsBytes, float64(e.Bytes), e.CircuitID, string(e.Tier))
		g(c.srsRefs, float64(e.Refs), e.CircuitID)
	}
}
