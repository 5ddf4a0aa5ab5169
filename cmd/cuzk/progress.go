package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// phase is where a long command stands: its phase and, where the phase
// counts units, Done of Total (seal.Progress has the same shape).
type phase struct {
	Phase       string
	Done, Total int64
}

// newPhaseProgress returns a progress hook that prints a line at every
// phase change and at least every `every` after it: with the phase's share
// done and its time left at the rate so far where the phase counts units,
// with the time spent in it where it does not (the trees report no
// progress of their own). A 512 MiB seal or update spends minutes in one phase. stop
// ends the heartbeat.
func newPhaseProgress(w io.Writer, what string, every time.Duration) (progress func(phase), stop func()) {
	return startPhaseProgress(w, what, every, phase{})
}

// newQuietProgress is newPhaseProgress for a command of one phase that
// reports nothing inside it: silent for the first interval (most runs end
// sooner), then a heartbeat with the time spent.
func newQuietProgress(w io.Writer, what, phaseName string, every time.Duration) (stop func()) {
	_, stop = startPhaseProgress(w, what, every, phase{Phase: phaseName})
	return stop
}

func startPhaseProgress(w io.Writer, what string, every time.Duration, first phase) (progress func(phase), stop func()) {
	now := time.Now()
	sp := &phaseProgress{w: w, what: what, every: every, start: now}
	if first.Phase != "" {
		sp.cur, sp.phaseAt, sp.lastAt = first, now, now
	}
	done := make(chan struct{})
	ticker := time.NewTicker(every / 5)
	go func() {
		defer ticker.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-ticker.C:
				sp.beat(now)
			}
		}
	}()
	return func(p phase) { sp.update(p, time.Now()) }, func() { close(done) }
}

// phaseProgress is newPhaseProgress's printer, its clock passed in.
type phaseProgress struct {
	w     io.Writer
	what  string
	every time.Duration
	start time.Time

	mu              sync.Mutex
	cur             phase
	phaseAt, lastAt time.Time
}

// update takes a report: a new phase is printed at once, progress inside
// one at most every sp.every.
func (sp *phaseProgress) update(p phase, now time.Time) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if p.Phase != sp.cur.Phase {
		sp.phaseAt = now
	} else if now.Sub(sp.lastAt) < sp.every {
		sp.cur.Done = max(sp.cur.Done, p.Done)
		return
	} else {
		p.Done = max(p.Done, sp.cur.Done) // reports from several workers overtake each other
	}
	sp.cur = p
	sp.print(now)
}

// beat prints the current phase again when nothing was printed for
// sp.every.
func (sp *phaseProgress) beat(now time.Time) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.cur.Phase != "" && now.Sub(sp.lastAt) >= sp.every {
		sp.print(now)
	}
}

func (sp *phaseProgress) print(now time.Time) {
	c := sp.cur
	line := fmt.Sprintf("[%6.1fs] %s: %s", now.Sub(sp.start).Seconds(), sp.what, c.Phase)
	switch {
	case c.Total > 0:
		line += fmt.Sprintf(" %3.0f%% (%d of %d)", 100*float64(c.Done)/float64(c.Total), c.Done, c.Total)
		if c.Done > 0 && c.Done < c.Total {
			left := time.Duration(float64(now.Sub(sp.phaseAt)) * float64(c.Total-c.Done) / float64(c.Done))
			line += ", about " + left.Round(time.Second).String() + " left in this phase"
		}
	case now.Sub(sp.phaseAt) >= time.Second:
		line += fmt.Sprintf(" (%s so far)", now.Sub(sp.phaseAt).Round(time.Second))
	}
	fmt.Fprintln(sp.w, line)
	sp.lastAt = now
}
