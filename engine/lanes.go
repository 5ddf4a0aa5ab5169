package engine

// Lanes: the prover slots, the reserved lane for urgent work and the gate
// that pauses ordinary work while urgent work runs (doc.go, Lanes).

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Lane is one prover slot: a goroutine that runs its backend's Start on one
// item at a time and a finisher of its own that runs Finish. The daemon
// gives one lane per GPU (they share the CUDA backend, which spreads each
// call over every device), or one CPU lane.
type Lane struct {
	// Name tells lanes apart in worker names and status ("gpu0"); empty
	// for a single lane ("prover", "finisher").
	Name    string
	Backend prover.Backend
	// DeviceMemory is the memory of the device the lane proves on, in
	// bytes; 0 for a CPU lane. When every general lane is a device lane,
	// a job whose partition needs more device memory than the largest
	// one has (srs.Sizes.DeviceBytes) is refused with ErrExceedsBudget
	// instead of failing on the device and being redone on the CPU.
	DeviceMemory int64
}

// DeviceStatus is one accelerator as the daemon's device query reports it
// (Options.Devices), with the job its lane is proving.
type DeviceStatus struct {
	Ordinal    int
	Name       string
	TotalBytes uint64
	FreeBytes  uint64
	// Lane is the name of the lane that proves on the device ("" if
	// none); Job and Kind are that lane's current Start.
	Lane string
	Job  string
	Kind string
}

// ReservedLaneName names the reserved lane's workers ("prover reserved",
// "finisher reserved", "synthesis reserved").
const ReservedLaneName = "reserved"

// urgentBudgetPrio is the budget priority of urgent items: above every job
// priority, so they are served first and may use the reserve.
const urgentBudgetPrio = int(proofkind.PriorityCritical) + 1

// lane is a Lane at work. Its fields other than the constants are guarded
// by Engine.mu.
type lane struct {
	name      string
	backend   prover.Backend
	reserved  bool
	deviceMem int64
	finCh     chan *finishing // closed by the lane's prover when it stops

	starting  *item // in Backend.Start
	finishing int   // items sent to the finisher and not finished
	proved    uint64
}

func (l *lane) worker(role string) string {
	if l.name == "" {
		return role
	}
	return role + " " + l.name
}

// newLanes builds the general lanes of opt and, with cfg.ReservedLane, the
// reserved one last.
func newLanes(opt Options, cfg Config) []*lane {
	var out []*lane
	if len(opt.Lanes) == 0 {
		out = append(out, &lane{backend: opt.Backend})
	}
	for _, l := range opt.Lanes {
		out = append(out, &lane{name: l.Name, backend: l.Backend, deviceMem: l.DeviceMemory})
	}
	if cfg.ReservedLane {
		be := opt.UrgentBackend
		if be == nil {
			be = out[0].backend
		}
		out = append(out, &lane{name: ReservedLaneName, backend: be, reserved: true})
	}
	for _, l := range out {
		l.finCh = make(chan *finishing, 1)
	}
	return out
}

// reservedIdleLocked says whether a reserved lane exists and is free to
// start an item now.
func (e *Engine) reservedIdleLocked() bool {
	l := e.lanes[len(e.lanes)-1]
	return l.reserved && l.starting == nil
}

// deviceLimit is the most device memory a partition may need: the largest
// device lane's memory when every general lane is a device lane, else 0
// (no limit: a CPU lane can prove anything that fits the host budget).
func (e *Engine) deviceLimit() int64 {
	var most int64
	for _, l := range e.lanes {
		if l.reserved {
			continue
		}
		if l.deviceMem <= 0 {
			return 0
		}
		most = max(most, l.deviceMem)
	}
	return most
}

// urgent says whether a job of priority prio whose circuit has domain rows
// takes the reserved lane and pauses ordinary work.
func (e *Engine) urgent(prio proofkind.Priority, domain int) bool {
	return e.cfg.ReservedLane && prio >= proofkind.PriorityHigh && domain > 0 && domain <= e.cfg.UrgentMaxDomain
}

// preempts says whether ordinary work gives way to urgent work.
func (e *Engine) preempts() bool { return e.cfg.ReservedLane && !e.cfg.NoPreempt }

// budgetPrio is the priority of b's memory requests.
func (b *batch) budgetPrio() int {
	if b.urgent {
		return urgentBudgetPrio
	}
	return int(b.prio)
}

// synthYield is what the synthesis of p, a part of it, calls every
// r1cs.YieldRows rows: it stops the synthesis (errPartDropped, or the
// item's context error) once the part is dropped or the item cancelled,
// and pauses ordinary work while urgent work runs (urgent work never
// waits).
func (e *Engine) synthYield(it *item, p *itemPart) func() error {
	wait := e.preempts() && !it.batch.urgent
	return func() error {
		if p.stop.Load() {
			return errPartDropped
		}
		if err := it.ctx.Err(); err != nil {
			return err
		}
		if wait {
			return e.gate.wait(it.ctx)
		}
		return nil
	}
}

// errPartDropped stops the synthesis of a part whose job ended while
// other jobs of its batch still need the item.
var errPartDropped = errors.New("engine: partition dropped: its job ended")

// pickReadyLocked removes the best synthesised item l may prove: the
// reserved lane takes only urgent items; a general lane takes every other
// item, and an urgent one only while the reserved lane is busy.
func (e *Engine) pickReadyLocked(l *lane) *item {
	best := -1
	for i, it := range e.readyQ {
		if it.batch.urgent != l.reserved && (l.reserved || e.reservedIdleLocked()) {
			continue
		}
		if best < 0 || it.less(e.readyQ[best]) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	it := e.readyQ[best]
	e.readyQ = slices.Delete(e.readyQ, best, best+1)
	e.stage.takenByProver()
	it.where = inProver
	l.starting = it
	e.wakeSynthLocked()
	if l.reserved {
		// General lanes skipped urgent items while this lane was free;
		// now they may take them.
		e.wakeProverLocked()
	}
	return it
}

func (e *Engine) proverWorker(l *lane) {
	defer e.workers.Done()
	// The finisher runs until this closes, so nothing sent is ever lost.
	defer close(l.finCh)
	pick := func() *item { return e.pickReadyLocked(l) }
	for {
		it := e.nextLocked(pick, func() chan struct{} { return e.proveWake })
		if it == nil {
			return
		}
		var parts []*itemPart
		var pas []*r1cs.ProvingAssignment
		for _, p := range it.parts {
			if !p.dropped && p.pa != nil {
				parts = append(parts, p)
				pas = append(pas, p.pa)
				p.job.parts[p.index].enter(partProving, time.Now())
			}
		}
		e.mu.Unlock()
		if f := e.startProof(l, it, parts, pas); f != nil {
			select {
			case l.finCh <- f:
			case <-e.baseCtx.Done():
				e.mu.Lock()
				l.finishing--
				e.stage.endFinish()
				e.retireLocked(it)
				e.mu.Unlock()
				return
			}
		}
	}
}

// finisher runs Finish for one item of l at a time, so l's Start of the
// next item overlaps with it. It runs until l's prover closes finCh; once
// the engine has stopped it retires what it receives without finishing it.
func (e *Engine) finisher(l *lane) {
	defer e.workers.Done()
	for f := range l.finCh {
		if e.baseCtx.Err() != nil {
			e.mu.Lock()
			l.finishing--
			e.stage.endFinish()
			e.retireLocked(f.it)
			e.mu.Unlock()
			continue
		}
		e.finish(l, f)
	}
}

// gate pauses ordinary work while urgent work runs: from the moment an
// urgent item holds its memory until it retires. Ordinary synthesis,
// Start and Finish call wait at their yield points.
type gate struct {
	active atomic.Int32 // urgent items between enter and leave

	mu     sync.Mutex
	resume chan struct{} // closed when active drops to zero

	waiting atomic.Int32  // ordinary workers paused now
	pauses  atomic.Uint64 // times ordinary work paused
	paused  atomic.Int64  // total time ordinary work was paused, ns
}

func (g *gate) enter() {
	g.mu.Lock()
	if g.active.Load() == 0 {
		g.resume = make(chan struct{})
	}
	g.active.Add(1)
	g.mu.Unlock()
}

func (g *gate) leave() {
	g.mu.Lock()
	if g.active.Add(-1) == 0 {
		close(g.resume)
	}
	g.mu.Unlock()
}

// wait returns at once while no urgent work runs (one atomic load: it is
// called every few milliseconds of ordinary work); otherwise it blocks
// until none does, or returns ctx's error when ctx ends first.
func (g *gate) wait(ctx context.Context) error {
	if g.active.Load() == 0 {
		return nil
	}
	t := time.Now()
	g.waiting.Add(1)
	defer func() {
		g.waiting.Add(-1)
		g.paused.Add(int64(time.Since(t)))
	}()
	g.pauses.Add(1)
	for {
		g.mu.Lock()
		if g.active.Load() == 0 {
			g.mu.Unlock()
			return nil
		}
		ch := g.resume
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
