package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/prover"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/srs"
)

// laneBackend proves on the CPU. A Start of a circuit whose domain is held
// (hold) first waits until the test releases it, calling the prover.Yield
// of its context every millisecond meanwhile, as an ordinary Start does at
// its yield points.
type laneBackend struct {
	cpu.Backend
	name string

	mu      sync.Mutex
	holds   map[int]chan struct{} // domain → closed to let Start go on
	starts  []string              // "start <domain>" / "end <domain>", in order
	started chan int              // the domain of every Start, as it begins
	yields  atomic.Int64          // yields that returned
	// onStart, when set, runs at the beginning of every Start.
	onStart func(domain int)
}

func newLaneBackend(name string) *laneBackend {
	return &laneBackend{name: name, holds: map[int]chan struct{}{}, started: make(chan int, 64)}
}

func (b *laneBackend) Name() string { return b.name }

// hold makes Starts of 2^k rows wait until the returned function is called.
func (b *laneBackend) hold(k int) (release func()) {
	ch := make(chan struct{})
	b.mu.Lock()
	b.holds[1<<k] = ch
	b.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

func (b *laneBackend) event(s string) {
	b.mu.Lock()
	b.starts = append(b.starts, s)
	b.mu.Unlock()
}

func (b *laneBackend) events() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.starts...)
}

func (b *laneBackend) Start(ctx context.Context, p *groth16.Params, parts []*r1cs.ProvingAssignment, rnd []groth16.Randomness) (prover.Pending, error) {
	d := len(p.H) + 1
	b.event(fmt.Sprintf("start %d", d))
	defer b.event(fmt.Sprintf("end %d", d))
	b.started <- d
	if b.onStart != nil {
		b.onStart(d)
	}
	b.mu.Lock()
	ch := b.holds[d]
	b.mu.Unlock()
	if ch != nil {
		y := prover.YieldFrom(ctx)
		for done := false; !done; {
			if y != nil {
				if err := y(ctx); err != nil {
					return nil, err
				}
				b.yields.Add(1)
			}
			select {
			case <-ch:
				done = true
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
	return b.Backend.Start(ctx, p, parts, rnd)
}

func awaitStart(t *testing.T, b *laneBackend, k int) {
	t.Helper()
	select {
	case d := <-b.started:
		if d != 1<<k {
			t.Fatalf("Start of %d rows, want %d", d, 1<<k)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no Start of 2^%d rows", k)
	}
}

func preload(t *testing.T, r *rig, ks ...int) {
	t.Helper()
	for _, k := range ks {
		if _, _, err := r.params.Preload(context.Background(), testkind.CircuitID(k), 0); err != nil {
			t.Fatal(err)
		}
	}
}

func submitPrio(t *testing.T, r *rig, id string, k int, prio proofkind.Priority) {
	t.Helper()
	q := testReq(id, k, testkind.Options{})
	q.Priority = prio
	mustSubmit(t, r.eng, q)
}

func mustComplete(t *testing.T, r *rig, id string, k int) engine.Result {
	t.Helper()
	res := mustAwait(t, r.eng, id)
	if res.State != engine.StateCompleted {
		t.Fatalf("%s: %v %v", id, res.State, res.Err)
	}
	verifyProof(t, k, res.Proof, 1)
	return res
}

// TestReservedLaneOvertakesRunningStart: a CRITICAL job submitted while an
// ordinary job's Start runs is proved in the reserved lane before that
// Start ends, and the ordinary Start gives way at its yield points while
// it runs.
func TestReservedLaneOvertakesRunningStart(t *testing.T) {
	be := newLaneBackend("lane-test")
	r := newRigWith(t, engine.Config{SynthesisWorkers: 1, ReservedLane: true}, rigOptions{backend: be})
	preload(t, r, 10, 12)
	release := be.hold(12)
	defer release()
	var sawPause atomic.Bool
	be.onStart = func(d int) {
		if d != 1<<10 {
			return
		}
		// The ordinary Start yields every millisecond: it must be paused
		// by the time the urgent one starts.
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if r.eng.Status().Urgent.Paused == 1 {
				sawPause.Store(true)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}

	submitPrio(t, r, "normal", 12, proofkind.PriorityNormal)
	awaitStart(t, be, 12)
	submitPrio(t, r, "critical", 10, proofkind.PriorityCritical)
	mustComplete(t, r, "critical", 10)
	if j, ok := jobStatus(r.eng, "normal"); !ok || j.State != engine.StateRunning {
		t.Fatalf("ordinary job no longer running when the critical one completed: %+v", j)
	}
	if !sawPause.Load() {
		t.Error("the ordinary Start did not pause while the urgent item ran")
	}
	st := r.eng.Status()
	if st.Urgent.Pauses == 0 || st.Urgent.Active != 0 || st.Urgent.Paused != 0 {
		t.Errorf("urgent status after the critical job: %+v", st.Urgent)
	}
	if want := []string{"start 4096", "start 1024", "end 1024"}; strings.Join(be.events(), ",") != strings.Join(want, ",") {
		t.Errorf("backend events %v, want %v", be.events(), want)
	}
	release()
	mustComplete(t, r, "normal", 12)
	// The critical job went through the reserved lane's workers.
	workers := map[string]bool{}
	for _, j := range r.eng.Status().RecentJobs {
		if j.ID == "critical" {
			for _, s := range j.Stages {
				workers[s.Worker] = true
			}
		}
	}
	for _, w := range []string{"synthesis reserved", "prover reserved", "finisher reserved"} {
		if !workers[w] {
			t.Errorf("critical job's stages ran on %v, want %s among them", workers, w)
		}
	}
}

// holdKind plans one partition of holdCircuit against test-k12's
// parameters; the synthesis always fails at its end (errHeld), so the
// circuit needs no matching parameters.
type holdKind struct{ c *holdCircuit }

func (h holdKind) Plan(context.Context, *engine.Request) (*engine.Plan, error) {
	return &engine.Plan{CircuitID: testkind.CircuitID(12), Partitions: []engine.Partition{{Circuit: h.c, PublicInputs: testkind.PublicInputs(12)}}}, nil
}

var errHeld = errors.New("hold circuit: done")

// holdCircuit enforces rows trivial rows, counting them; just before its
// first yield point it signals ready and waits for proceed.
type holdCircuit struct {
	rows    int
	ready   chan struct{}
	proceed chan struct{}
	count   atomic.Int64
}

func (c *holdCircuit) Synthesize(cs *r1cs.CS) error {
	v := cs.Alloc(testkind.PublicInputs(12)[0])
	for i := range c.rows {
		if i == r1cs.YieldRows-10 {
			close(c.ready)
			<-c.proceed
		}
		cs.Enforce(func(a, b, cc *r1cs.LC) { a.Add(v); b.AddOne(); cc.Add(v) })
		c.count.Add(1)
	}
	return errHeld
}

// TestOrdinarySynthesisPauses: an ordinary synthesis that reaches a yield
// point while urgent work holds its memory stops there until the urgent
// item is done.
func TestOrdinarySynthesisPauses(t *testing.T) {
	hc := &holdCircuit{rows: 2 * r1cs.YieldRows, ready: make(chan struct{}), proceed: make(chan struct{})}
	be := newLaneBackend("lane-test")
	r := newRigWith(t, engine.Config{SynthesisWorkers: 1, ReservedLane: true},
		rigOptions{backend: be, kinds: []engine.Kind{engine.Builtin(proofkind.PoRep, holdKind{hc})}})
	preload(t, r, 10, 12)
	releaseUrgent := be.hold(10)
	defer releaseUrgent()
	defer func() {
		select {
		case <-hc.proceed:
		default:
			close(hc.proceed)
		}
	}()

	mustSubmit(t, r.eng, &engine.Request{RequestID: "ordinary", Kind: proofkind.PoRep})
	<-hc.ready
	submitPrio(t, r, "critical", 10, proofkind.PriorityCritical)
	awaitStart(t, be, 10) // the urgent item holds its memory and is in Start
	if st := r.eng.Status(); st.Urgent.Active != 1 || st.Lanes[len(st.Lanes)-1].Job != "critical" {
		t.Fatalf("urgent status %+v, lanes %+v", st.Urgent, st.Lanes)
	}
	close(hc.proceed)
	waitFor(t, "ordinary synthesis paused", 10*time.Second, func() bool { return r.eng.Status().Urgent.Paused == 1 })
	n := hc.count.Load()
	time.Sleep(30 * time.Millisecond)
	if got := hc.count.Load(); got != n || n != r1cs.YieldRows-1 {
		t.Fatalf("paused synthesis went from %d to %d rows; want it stopped at %d", n, got, r1cs.YieldRows-1)
	}
	releaseUrgent()
	mustComplete(t, r, "critical", 10)
	res := mustAwait(t, r.eng, "ordinary")
	if res.State != engine.StateFailed || !errors.Is(res.Err, errHeld) {
		t.Fatalf("ordinary job: %v %v", res.State, res.Err)
	}
	if got := hc.count.Load(); got != int64(hc.rows) {
		t.Fatalf("ordinary synthesis ran %d of %d rows after the pause", got, hc.rows)
	}
}

func paramsSizes(t *testing.T, k int) srs.Sizes {
	t.Helper()
	s, err := srs.ReadSizes(filepath.Join(paramDir, testkind.FileBase(k)+".params"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestUrgentReserve: ordinary work cannot take the memory reserved for
// the reserved lane, so a critical job runs at once while ordinary jobs
// fill the rest of the budget and wait for more; a job that fits only
// with the reserve is refused unless it is urgent.
func TestUrgentReserve(t *testing.T) {
	s10, s12 := paramsSizes(t, 10), paramsSizes(t, 12)
	reserve := s10.ParamsBytes() + s10.WorkingSet()
	normal := s12.ParamsBytes() + s12.WorkingSet()

	t.Run("critical runs while ordinary work waits for memory", func(t *testing.T) {
		be := newLaneBackend("lane-test")
		r := newRigWith(t, engine.Config{SynthesisWorkers: 2, Lookahead: 2, ReservedLane: true, UrgentReserve: reserve},
			rigOptions{backend: be, total: normal + reserve})
		if st := r.eng.Status(); st.Urgent.ReservedBytes != reserve || !st.Urgent.Enabled || st.Urgent.MaxDomain != engine.DefaultUrgentMaxDomain {
			t.Fatalf("urgent status %+v", st.Urgent)
		}
		preload(t, r, 12)
		release := be.hold(12)
		defer release()
		submitPrio(t, r, "n1", 12, proofkind.PriorityNormal)
		awaitStart(t, be, 12)
		submitPrio(t, r, "n2", 12, proofkind.PriorityNormal)
		waitFor(t, "n2 waiting for memory", 10*time.Second, func() bool { return r.eng.Status().Memory.Waiting == 1 })
		submitPrio(t, r, "critical", 10, proofkind.PriorityCritical)
		mustComplete(t, r, "critical", 10)
		if j, _ := jobStatus(r.eng, "n2"); j.State != engine.StateRunning || r.eng.Status().Memory.Waiting != 1 {
			t.Fatalf("n2 %v, waiting %d: it should still wait for ordinary memory", j.State, r.eng.Status().Memory.Waiting)
		}
		release()
		mustComplete(t, r, "n1", 12)
		mustComplete(t, r, "n2", 12)
		r.waitIdleBudget(t)
	})

	t.Run("admission", func(t *testing.T) {
		r := newRigWith(t, engine.Config{ReservedLane: true, UrgentReserve: reserve}, rigOptions{total: normal + reserve - 1})
		q := testReq("too-big", 12, testkind.Options{})
		_, err := r.eng.Submit(context.Background(), q)
		if !errors.Is(err, engine.ErrExceedsBudget) || !strings.Contains(err.Error(), "reserved for urgent work") {
			t.Fatalf("ordinary job needing the reserve: %v", err)
		}
		// The same circuit at CRITICAL is urgent (2^12 rows) and may use
		// the whole budget.
		submitPrio(t, r, "urgent", 12, proofkind.PriorityCritical)
		mustComplete(t, r, "urgent", 12)
	})
}

// TestLanesRunInParallel: each lane has its own Start, so two ordinary
// items are in Start at once, and the stage records name the lanes.
func TestLanesRunInParallel(t *testing.T) {
	be := newLaneBackend("fake-gpu")
	r := newRigWith(t, engine.Config{SynthesisWorkers: 2, Lookahead: 2},
		rigOptions{lanes: []engine.Lane{{Name: "gpu0", Backend: be}, {Name: "gpu1", Backend: be}}})
	preload(t, r, 12)
	release := be.hold(12)
	defer release()
	submitPrio(t, r, "a", 12, proofkind.PriorityNormal)
	submitPrio(t, r, "b", 12, proofkind.PriorityNormal)
	awaitStart(t, be, 12)
	awaitStart(t, be, 12)
	st := r.eng.Status()
	if len(st.Lanes) != 2 || st.Lanes[0].Job == "" || st.Lanes[1].Job == "" || st.Lanes[0].Backend != "fake-gpu" {
		t.Fatalf("lanes %+v, want both busy", st.Lanes)
	}
	release()
	mustComplete(t, r, "a", 12)
	mustComplete(t, r, "b", 12)
	st = r.eng.Status()
	if st.Lanes[0].Proved+st.Lanes[1].Proved != 2 {
		t.Fatalf("lanes %+v, want 2 items proved", st.Lanes)
	}
	workers := map[string]bool{}
	for _, j := range st.RecentJobs {
		for _, s := range j.Stages {
			workers[s.Worker] = true
		}
	}
	for _, w := range []string{"prover gpu0", "prover gpu1"} {
		if !workers[w] {
			t.Errorf("workers %v, want %s among them", workers, w)
		}
	}

	b := newRigWith(t, engine.Config{}, rigOptions{})
	for _, lanes := range [][]engine.Lane{
		{{Name: "x", Backend: be}, {Name: "x", Backend: be}},
		{{Name: "", Backend: be}},
		{{Name: engine.ReservedLaneName, Backend: be}},
		{{Name: "y"}},
	} {
		if _, err := engine.New(engine.Options{Lanes: lanes, Params: b.params, Budget: b.budget}); err == nil {
			t.Errorf("lanes %+v accepted", lanes)
		}
	}
}

// TestUrgentClassification: HIGH and CRITICAL jobs up to UrgentMaxDomain
// rows take the reserved lane; larger ones and NORMAL ones do not; without
// ReservedLane nothing is urgent.
func TestUrgentClassification(t *testing.T) {
	cases := []struct {
		id       string
		k        int
		prio     proofkind.Priority
		reserved bool
	}{
		{"high-small", 10, proofkind.PriorityHigh, true},
		{"critical-small", 10, proofkind.PriorityCritical, true},
		{"normal-small", 10, proofkind.PriorityNormal, false},
		{"high-big", 12, proofkind.PriorityHigh, false},
		{"critical-big", 12, proofkind.PriorityCritical, false},
	}
	for _, on := range []bool{true, false} {
		r := newRig(t, engine.Config{ReservedLane: on, UrgentMaxDomain: 1 << 11}, 0, 0)
		for _, c := range cases {
			submitPrio(t, r, c.id, c.k, c.prio)
			mustComplete(t, r, c.id, c.k)
		}
		for _, j := range r.eng.Status().RecentJobs {
			for _, s := range j.Stages {
				if s.Stage != "prove" {
					continue
				}
				want := "prover"
				for _, c := range cases {
					if c.id == j.ID && c.reserved && on {
						want = "prover reserved"
					}
				}
				if s.Worker != want {
					t.Errorf("reserved lane %v: %s proved by %q, want %q", on, j.ID, s.Worker, want)
				}
			}
		}
		if st := r.eng.Status(); len(st.Lanes) != map[bool]int{true: 2, false: 1}[on] || st.Urgent.Enabled != on {
			t.Errorf("reserved lane %v: lanes %+v, urgent %+v", on, st.Lanes, st.Urgent)
		}
	}
}

// TestDeviceLanes: with device lanes only, a circuit whose partition needs
// more device memory than the largest device has is refused at once; the
// device query reaches Status with the job of each device's lane.
func TestDeviceLanes(t *testing.T) {
	s10, s12 := paramsSizes(t, 10), paramsSizes(t, 12)
	mem := (s10.DeviceBytes() + s12.DeviceBytes()) / 2
	be := newLaneBackend("fake-gpu")
	devices := func() ([]engine.DeviceStatus, error) {
		return []engine.DeviceStatus{{Ordinal: 0, Name: "Fake GPU", TotalBytes: uint64(mem), FreeBytes: 1, Lane: "gpu0"}}, nil
	}
	e := testkit.NewEngine(t, testkit.EngineOptions{Lanes: []engine.Lane{{Name: "gpu0", Backend: be, DeviceMemory: mem}},
		Locator: testkind.Locator(paramDir), Devices: devices})
	_, err := e.Submit(context.Background(), testReq("big", 12, testkind.Options{}))
	if !errors.Is(err, engine.ErrExceedsBudget) || !strings.Contains(err.Error(), "device memory") {
		t.Fatalf("partition larger than the device: %v", err)
	}
	release := be.hold(10)
	defer release()
	if _, err := e.Submit(context.Background(), testReq("small", 10, testkind.Options{})); err != nil {
		t.Fatal(err)
	}
	awaitStart(t, be, 10)
	st := e.Status()
	if len(st.Devices) != 1 || st.Devices[0].Job != "small" || st.Devices[0].Kind != proofkind.Test.String() ||
		st.Devices[0].Name != "Fake GPU" || st.Memory.DeviceBytes != mem || st.Lanes[0].DeviceMemory != mem {
		t.Fatalf("devices %+v, memory %+v, lanes %+v", st.Devices, st.Memory, st.Lanes)
	}
	release()
	res, err := e.Await(context.Background(), "small", 0)
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("small: %v %v", err, res.State)
	}
	verifyProof(t, 10, res.Proof, 1)
}
