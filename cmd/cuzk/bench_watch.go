package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// defaultProgressEvery is how often single, batch and stress say where
// their jobs stand: a 2 KiB proof takes about 20 s on 2 cores, a 32 GiB
// one an hour, and either way a silent terminal looks hung.
const defaultProgressEvery = 5 * time.Second

// progressFlags are --progress and --quiet of the commands that wait on
// proofs.
type progressFlags struct {
	every time.Duration
	quiet bool
}

func addProgressFlags(fs *flag.FlagSet) *progressFlags {
	p := &progressFlags{}
	fs.DurationVar(&p.every, "progress", defaultProgressEvery, "progress line interval on stderr when it is not a terminal (a terminal gets one line redrawn every second)")
	fs.BoolVar(&p.quiet, "quiet", false, "no progress lines (for scripts): only the result")
	return p
}

// start reports status on stderr until stop, unless --quiet or
// --progress 0 turned the lines off. status is polled every second (or
// every --progress when shorter: the time in a state is measured that
// finely) and printed every --progress.
func (p *progressFlags) start(ctx context.Context, stderr io.Writer, status func(context.Context) string) (prog *bench.Progress, stop func()) {
	if p.quiet || p.every <= 0 {
		prog = bench.StartProgress(stderr, false, 0, nil)
		return prog, prog.Stop
	}
	ctx, cancel := context.WithCancel(ctx)
	var mu sync.Mutex
	latest := ""
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(min(time.Second, p.every))
		defer t.Stop()
		for {
			line := status(ctx)
			mu.Lock()
			latest = line
			mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	prog = bench.StartProgress(stderr, isTerminal(stderr), p.every, func() string {
		mu.Lock()
		defer mu.Unlock()
		return latest
	})
	return prog, func() {
		cancel()
		<-done
		prog.Stop()
	}
}

// jobWatch says where a run's jobs stand, for the progress lines: from the
// daemon's /status when the status address is known (each job's state,
// its partitions' stages and the time in them), otherwise from GetStatus's
// queue of the kind. It remembers when each job's state last changed, so a
// line gives the time in the state, not only since submission.
type jobWatch struct {
	c    *client.Client
	sc   *bench.StatusClient // nil: GetStatus only
	kind string              // the proof kind, as GetStatus's queues name it
	from time.Time           // when the watched jobs were submitted (at most)

	mu    sync.Mutex
	since map[string]stateSince // by job id
}

type stateSince struct {
	state string
	at    time.Time
}

func newJobWatch(c *client.Client, sc *bench.StatusClient, kind string) *jobWatch {
	return &jobWatch{c: c, sc: sc, kind: kind, from: time.Now(), since: map[string]stateSince{}}
}

// describe is one line about the jobs whose ids match: the job of id
// (match exact) or those of a run (ids starting with prefix).
func (w *jobWatch) describe(ctx context.Context, match func(jobID string) bool, label func(jobID string) string) string {
	if w.sc == nil {
		return w.fromQueues(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, _, err := w.sc.Status(ctx)
	if err != nil {
		return "status not readable: " + err.Error()
	}
	now := time.Now()
	var parts []string
	for i := range st.Jobs {
		j := &st.Jobs[i]
		if !match(j.ID) {
			continue
		}
		state, detail := jobState(j)
		// A job first seen waiting has waited since it was submitted; one
		// seen running has run at least as long as its partitions have
		// been in their stages.
		var before time.Duration
		if j.State == "planning" || j.State == "queued" {
			before = j.Age
		}
		for _, p := range j.Partitions {
			before = max(before, p.InState)
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)%s", label(j.ID), state, w.inState(j.ID, state, now, before), detail))
	}
	w.forgetExcept(st.Jobs, match)
	prefix := ""
	if st.Draining {
		prefix = "daemon DRAINING (finishing its jobs, refusing new ones); "
	}
	if len(parts) == 0 {
		return prefix + "submitted; not among the daemon's jobs yet, or its result is on the way"
	}
	return prefix + strings.Join(parts, "; ")
}

// fromQueues is what GetStatus tells: the kind's queue. The job is among
// its counts; when it is the only one there, its state is known exactly.
func (w *jobWatch) fromQueues(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	st, err := w.c.Status(ctx)
	if err != nil {
		return "daemon status not readable: " + err.Error()
	}
	var pending, running uint32
	for _, q := range st.GetQueues() {
		if q.GetProofKind() == w.kind {
			pending, running = q.GetPending(), q.GetInProgress()
		}
	}
	state := fmt.Sprintf("%s queue: %d queued, %d running", w.kind, pending, running)
	if pending+running == 1 {
		state = "queued"
		if running == 1 {
			state = "running"
		}
		now := time.Now()
		state = fmt.Sprintf("%s (%s)", state, w.inState("", state, now, now.Sub(w.from)))
	}
	if st.GetDraining() {
		state = "daemon DRAINING; " + state
	}
	return state + " (--status-addr: partitions and stages)"
}

// inState is how long job id has been in state, as far as this watcher
// has seen: at least before (what the daemon's own figures show), and on
// a change no longer than since the previous state was seen to begin.
func (w *jobWatch) inState(id, state string, now time.Time, before time.Duration) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.since[id]
	switch {
	case !ok:
		s = stateSince{state: state, at: now.Add(-before)}
		w.since[id] = s
	case s.state != state:
		s = stateSince{state: state, at: maxTime(s.at, now.Add(-before))}
		w.since[id] = s
	}
	return roundDuration(now.Sub(s.at))
}

// forgetExcept drops the jobs that left the daemon's active list.
func (w *jobWatch) forgetExcept(jobs []statusdoc.Job, match func(string) bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	live := map[string]bool{"": true}
	for _, j := range jobs {
		if match(j.ID) {
			live[j.ID] = true
		}
	}
	for id := range w.since {
		if !live[id] {
			delete(w.since, id)
		}
	}
}

// partitionStage names a partition state for people.
var partitionStage = map[string]string{
	"queued":       "waiting for synthesis",
	"synthesizing": "synthesis",
	"synthesized":  "synthesized, waiting for the prover",
	"proving":      "proving",
	"finishing":    "proving (finish)",
}

// jobState is a job's state in words and the detail that goes after the
// time in it: the partitions at work, each with its stage and the time in
// that stage.
func jobState(j *statusdoc.Job) (state, detail string) {
	switch j.State {
	case "planning":
		return "planning (reading the request)", ""
	case "queued":
		return "queued", ""
	case "running":
	default:
		return j.State, ""
	}
	n := len(j.Partitions)
	done := 0
	var active []string
	for _, p := range j.Partitions {
		switch p.State {
		case "done":
			done++
		case "synthesizing", "proving", "finishing":
			active = append(active, fmt.Sprintf("partition %d of %d %s %s", p.Index+1, n, partitionStage[p.State], roundDuration(p.InState)))
		case "synthesized":
			active = append(active, fmt.Sprintf("partition %d of %d %s", p.Index+1, n, partitionStage[p.State]))
		}
	}
	if n > 0 && done == n {
		return "self-check (verifying the proof)", ""
	}
	if len(active) == 0 {
		return "running", fmt.Sprintf(": %d of %d partitions done, the next waiting for synthesis", done, n)
	}
	return "running", fmt.Sprintf(": %s; %d of %d done", strings.Join(active, ", "), done, n)
}

// roundDuration is d to the second above a minute, to a tenth below.
func roundDuration(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

// jobCounts is the daemon's jobs by state, for a run of many jobs (bench
// stress): "3 queued, 2 running (partitions: 1 synthesis, 2 proving), 1
// self-check".
func jobCounts(st *statusdoc.Status) string {
	byState := map[string]int{}
	stages := map[string]int{}
	for i := range st.Jobs {
		j := &st.Jobs[i]
		state, _ := jobState(j)
		state, _, _ = strings.Cut(state, " (")
		byState[state]++
		if state != "running" {
			continue
		}
		for _, p := range j.Partitions {
			if stage, ok := partitionStage[p.State]; ok && p.State != "queued" {
				stage, _, _ = strings.Cut(stage, ",")
				stages[stage]++
			}
		}
	}
	var out []string
	for _, s := range []string{"planning", "queued", "running", "self-check"} {
		if byState[s] == 0 {
			continue
		}
		line := fmt.Sprintf("%d %s", byState[s], s)
		if s == "running" && len(stages) > 0 {
			var ps []string
			for _, stage := range []string{"synthesis", "synthesized", "proving", "proving (finish)"} {
				if stages[stage] > 0 {
					ps = append(ps, fmt.Sprintf("%d %s", stages[stage], stage))
				}
			}
			line += " (partitions: " + strings.Join(ps, ", ") + ")"
		}
		out = append(out, line)
	}
	if len(out) == 0 {
		return "no jobs"
	}
	return strings.Join(out, ", ")
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
