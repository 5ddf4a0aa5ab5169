package server

import (
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// statusDocument builds the GET /status document from the engine's
// snapshot, the one mapping of the status model to it: the field names are
// the engine's, and where the types are the same shape they convert
// directly, so a field added to one and not the other fails to compile.
// Slices are never nil, so the document lists [] rather than null for
// what is empty.
func statusDocument(st engine.Status) statusdoc.Status {
	d := statusdoc.Status{
		Uptime:        st.Uptime,
		Draining:      st.Draining,
		Memory:        statusdoc.Memory(st.Memory),
		Pipeline:      statusdoc.Pipeline(st.Pipeline),
		Queues:        make([]statusdoc.Queue, 0, len(st.Queues)),
		Jobs:          make([]statusdoc.Job, 0, len(st.Jobs)),
		Params:        make([]statusdoc.Param, 0, len(st.Params)),
		Counters:      statusdoc.Counters(st.Counters),
		Kinds:         append(make([]string, 0, len(st.Kinds)), st.Kinds...),
		Batching:      statusdoc.Batching(st.Batching),
		Limits:        statusdoc.Limits(st.Limits),
		ByKind:        make(map[string]statusdoc.KindCounters, len(st.ByKind)),
		RecentJobs:    make([]statusdoc.RecentJob, 0, len(st.RecentJobs)),
		Lanes:         make([]statusdoc.Lane, 0, len(st.Lanes)),
		GPUs:          make([]statusdoc.GPU, 0, len(st.Devices)),
		Urgent:        statusdoc.Urgent(st.Urgent),
		CPUArithmetic: statusArithmetic(),
	}
	for _, l := range st.Lanes {
		d.Lanes = append(d.Lanes, statusdoc.Lane{Name: l.Name, Backend: l.Backend, Reserved: l.Reserved, Job: l.Job,
			Finishing: l.Finishing, Proved: l.Proved, DeviceMemory: l.DeviceMemory, Abandoned: l.Abandoned})
	}
	for _, g := range st.Devices {
		d.GPUs = append(d.GPUs, statusdoc.GPU{Ordinal: g.Ordinal, Name: g.Name, TotalBytes: g.TotalBytes, FreeBytes: g.FreeBytes, Job: g.Job})
	}
	for _, q := range st.Queues {
		d.Queues = append(d.Queues, statusdoc.Queue(q))
	}
	for _, j := range st.Jobs {
		dj := statusdoc.Job{ID: j.ID, Kind: j.Kind, Circuit: j.Circuit, Priority: j.Priority, State: j.State.String(),
			Batch: j.Batch, BatchSize: j.BatchSize, Age: j.Age, Waiters: j.Waiters, OrphanedFor: j.OrphanedFor, Partitions: make([]statusdoc.Partition, 0, len(j.Partitions)),
			Stages: stages(j.Stages)}
		for _, p := range j.Partitions {
			dj.Partitions = append(dj.Partitions, statusdoc.Partition(p))
		}
		d.Jobs = append(d.Jobs, dj)
	}
	for _, p := range st.Params {
		d.Params = append(d.Params, statusdoc.Param{CircuitID: p.CircuitID, Tier: string(p.Tier), Bytes: p.Bytes, Refs: p.Refs,
			IdleFor: p.IdleFor, Official: p.Official, Test: p.Test, Loads: p.Loads, LastLoad: p.LastLoad, File: p.Params,
			Mapped: p.Mapped, MappedBytes: p.MappedBytes})
	}
	for k, c := range st.ByKind {
		d.ByKind[k] = statusdoc.KindCounters(c)
	}
	for _, r := range st.RecentJobs {
		st := stages(r.Stages)
		if st == nil {
			st = []statusdoc.Stage{}
		}
		d.RecentJobs = append(d.RecentJobs, statusdoc.RecentJob{ID: r.ID, Kind: r.Kind, Circuit: r.Circuit, Priority: r.Priority,
			State: r.State.String(), Batch: r.Batch, BatchSize: r.BatchSize, Partitions: r.Partitions, Submitted: r.Submitted, Finished: r.Finished,
			Timings: timings(r.Timings), Error: r.Error, Stages: st, StagesDropped: r.StagesDropped})
	}
	return d
}

func stages(recs []engine.StageRecord) []statusdoc.Stage {
	if len(recs) == 0 {
		return nil
	}
	out := make([]statusdoc.Stage, len(recs))
	for i, r := range recs {
		out[i] = statusdoc.Stage{Partition: r.Partition, Stage: r.Stage, Start: r.Start, Duration: r.Duration,
			Batch: r.Batch, Circuit: r.Circuit, Worker: r.Worker}
		for _, s := range r.Steps {
			out[i].Steps = append(out[i].Steps, statusdoc.StepTime(s))
		}
	}
	return out
}

func timings(t engine.Timings) statusdoc.Timings {
	out := statusdoc.Timings{QueueWait: t.QueueWait, SRSLoad: t.SRSLoad, Synthesis: t.Synthesis, Prove: t.Prove, Total: t.Total}
	for _, s := range t.ProveSteps {
		out.ProveSteps = append(out.ProveSteps, statusdoc.StepTotal(s))
	}
	return out
}
