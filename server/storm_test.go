package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/srs"
)

// endCounter is the daemon's metrics observer, also recording every final
// state the engine reports, by job id.
type endCounter struct {
	*server.Metrics
	mu   sync.Mutex
	ends map[string][]engine.State
}

func (c *endCounter) JobFinished(r engine.JobReport) {
	c.mu.Lock()
	c.ends[r.ID] = append(c.ends[r.ID], r.State)
	c.mu.Unlock()
	c.Metrics.JobFinished(r)
}

func (c *endCounter) of(id string) []engine.State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.ends[id])
}

func (c *endCounter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range c.ends {
		n += len(e)
	}
	return n
}

// stormDaemon is a daemon on a unix socket whose observer counts job ends.
type stormDaemon struct {
	addr   string
	srv    *server.Server
	eng    *engine.Engine
	budget *budget.Budget
	params *srs.Manager
	ends   *endCounter
	logs   *testkit.SyncBuffer
}

func startStormDaemon(t *testing.T, kinds []engine.Kind, loc srs.Locator, total int64, cfg engine.Config, trust bool) *stormDaemon {
	t.Helper()
	logs := &testkit.SyncBuffer{}
	log := testkit.Logger(t, logs)
	ends := &endCounter{Metrics: server.NewMetrics(), ends: map[string][]engine.State{}}
	te := testkit.NewEngine(t, testkit.EngineOptions{Config: cfg, Kinds: kinds, Locator: loc, Budget: total, TrustParams: trust, Log: log, Observer: ends})
	eng, b, params := te.Engine, te.Budget, te.Params
	srv := server.New(eng, server.WithLogger(log), server.WithMetrics(ends.Metrics))
	addr := serve(t, srv, "unix")
	return &stormDaemon{addr: addr, srv: srv, eng: eng, budget: b, params: params, ends: ends, logs: logs}
}

// accepted waits until the job is queued or running in the engine (past
// planning: the engine owns it and must end it), or has ended.
func (d *stormDaemon) accepted(id string) error {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		for _, j := range d.eng.Status().Jobs {
			if j.ID == id && (j.State == engine.StateQueued || j.State == engine.StateRunning) {
				return nil
			}
		}
		if len(d.ends.of(id)) > 0 {
			return nil
		}
	}
	return fmt.Errorf("%s never accepted", id)
}

// checkProof verifies a test circuit's proof (for client goroutines, which
// must not call t.Fatal).
func checkProof(k int, proof []byte, partitions int) error {
	if len(proof) != partitions*groth16.ProofSize {
		return fmt.Errorf("proof is %d bytes, want %d", len(proof), partitions*groth16.ProofSize)
	}
	vk, err := groth16.ReadVerifyingKeyFile(filepath.Join(paramDir, testkind.FileBase(k)+".vk"))
	if err != nil {
		return err
	}
	pvk, err := groth16.Prepare(vk)
	if err != nil {
		return err
	}
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		return err
	}
	for i := range proofs {
		if ok, err := groth16.Verify(pvk, &proofs[i], testkind.PublicInputs(k)); !ok || err != nil {
			return fmt.Errorf("partition %d does not verify: %v", i, err)
		}
	}
	return nil
}

// settleGoroutines waits until at most limit goroutines run, and returns
// the count.
func settleGoroutines(limit int, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		n := runtime.NumGoroutine()
		if n <= limit || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// stormClient is what one client of the storm does and what the job with
// its request id must end as (nil: it must never be accepted). A client
// with no id joins another client's job and is not counted.
type stormClient struct {
	id   string
	want []engine.State
	run  func(ctx context.Context) error
}

// TestFaultStorm: 32 clients, each on its own connection, prove at once
// against one daemon: some complete, some cancel their job, some cancel
// their call or drop their connection mid-Prove, some share a request id,
// some reuse an id for other content, some fail, some are malformed.
// Every accepted job ends exactly once, in a state its client's action
// allows; nothing else ends; afterwards no job is in flight, the budget
// holds nothing but resident parameters (and nothing once they are
// evicted), the intake is empty, and goroutines and heap are back to
// where they were before the storm.
func TestFaultStorm(t *testing.T) {
	d := startStormDaemon(t, []engine.Kind{engine.Builtin(proofkind.Test, testkind.New())}, testkind.Locator(paramDir), 4<<30,
		engine.Config{MaxBatchSize: 3, MaxBatchWait: 20 * time.Millisecond, SynthesisWorkers: 2}, false)
	ctl, err := client.Dial(d.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	// Warm up: parameters resident, a connection opened and closed, the
	// runtime's lazily started goroutines running.
	for _, k := range []int{10, 12} {
		c, err := client.Dial(d.addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Prove(context.Background(), client.TestRequest(fmt.Sprintf("warm-%d", k), k, nil)); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if _, err := ctl.Status(context.Background()); err != nil {
		t.Fatal(err)
	}
	g0 := settleGoroutines(0, 500*time.Millisecond)
	heap0 := heapAfterGC()
	ends0 := d.ends.total()

	const n = 32
	slow := opts(testkind.Options{Partitions: 2, SynthesisDelayMS: 300})
	completed := []engine.State{engine.StateCompleted}
	// A cancel races with the end of the job: either ends it, once.
	cancelled := []engine.State{engine.StateCancelled, engine.StateCompleted}
	var clients []stormClient
	var closers []func()
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for i := range n {
		id := fmt.Sprintf("storm-%d", i)
		k := 10 + 2*(i%2)
		conn, err := client.Dial(d.addr)
		if err != nil {
			t.Fatal(err)
		}
		closeOnce := sync.OnceFunc(func() { conn.Close() })
		closers = append(closers, closeOnce)
		var c stormClient
		switch i % 8 {
		case 0: // prove and wait
			c = stormClient{id, completed, func(ctx context.Context) error {
				res, err := conn.Prove(ctx, client.TestRequest(id, k, opts(testkind.Options{Partitions: 2})))
				if err != nil {
					return err
				}
				return checkProof(k, res.GetProof(), 2)
			}}
		case 1: // submit, then await
			c = stormClient{id, completed, func(ctx context.Context) error {
				if _, err := conn.Submit(ctx, client.TestRequest(id, k, opts(testkind.Options{SynthesisDelayMS: 50}))); err != nil {
					return err
				}
				res, err := conn.Await(ctx, id, 0)
				if err != nil {
					return err
				}
				return checkProof(k, res.GetProof(), 1)
			}}
		case 2: // submit, then cancel the job
			c = stormClient{id, cancelled, func(ctx context.Context) error {
				if _, err := conn.Submit(ctx, client.TestRequest(id, k, slow)); err != nil {
					return err
				}
				if err := d.accepted(id); err != nil {
					return err
				}
				if _, err := conn.Cancel(ctx, id); err != nil {
					return err
				}
				if _, err := conn.Await(ctx, id, 0); err != nil && !errors.Is(err, client.ErrCancelled) {
					return fmt.Errorf("after cancel: %w", err)
				}
				return nil
			}}
		case 3: // prove, then give up on the call
			c = stormClient{id, cancelled, func(ctx context.Context) error {
				cctx, cancel := context.WithCancel(ctx)
				acc := make(chan error, 1)
				go func() { acc <- d.accepted(id); cancel() }()
				_, err := conn.Prove(cctx, client.TestRequest(id, k, slow))
				if code(err) != codes.Canceled && err != nil {
					return err
				}
				return <-acc
			}}
		case 4: // prove, then drop the connection
			c = stormClient{id, cancelled, func(ctx context.Context) error {
				acc := make(chan error, 1)
				go func() { acc <- d.accepted(id); closeOnce() }()
				_, err := conn.Prove(ctx, client.TestRequest(id, k, slow))
				if err == nil {
					return errors.New("prove succeeded on a closed connection")
				}
				return <-acc
			}}
		case 5: // two callers, one request id, the same request
			c = stormClient{id, completed, func(ctx context.Context) error {
				req := client.TestRequest(id, k, opts(testkind.Options{SynthesisDelayMS: 100}))
				var wg sync.WaitGroup
				proofs := make([][]byte, 2)
				errs := make([]error, 2)
				for j := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := conn.Prove(ctx, req)
						proofs[j], errs[j] = res.GetProof(), err
					}()
				}
				wg.Wait()
				if err := errors.Join(errs...); err != nil {
					return err
				}
				if string(proofs[0]) != string(proofs[1]) {
					return errors.New("two callers of one request id got different proofs")
				}
				return nil
			}}
		case 6: // a failing job; the same id with other content is refused meanwhile
			c = stormClient{id, []engine.State{engine.StateFailed}, func(ctx context.Context) error {
				fail := 1
				if _, err := conn.Submit(ctx, client.TestRequest(id, k, opts(testkind.Options{Partitions: 2, SynthesisDelayMS: 100, FailPartition: &fail}))); err != nil {
					return err
				}
				_, err := conn.Submit(ctx, client.TestRequest(id, k, nil))
				if c := code(err); c != codes.AlreadyExists {
					// The first may have failed already: then the id is free
					// and the second runs as a job of its own, which the
					// final check would count as a second end.
					return fmt.Errorf("other content under a live id: %v", err)
				}
				if _, err := conn.Await(ctx, id, 0); !errors.Is(err, client.ErrFailed) || !strings.Contains(err.Error(), "partition 1: synthesis") {
					return fmt.Errorf("injected failure: %v", err)
				}
				return nil
			}}
		case 7: // malformed: never accepted
			c = stormClient{id, nil, func(ctx context.Context) error {
				req := client.TestRequest(id, k, nil)
				req.SectorSize++
				if _, err := conn.Prove(ctx, req); code(err) != codes.InvalidArgument {
					return fmt.Errorf("malformed request: %v", err)
				}
				return nil
			}}
		}
		clients = append(clients, c)
	}

	d.storm(t, ctl, clients, closers, stormBaseline{g0, heap0, ends0}, 2*time.Minute, []string{testkind.CircuitID(10), testkind.CircuitID(12)})
}

// stormBaseline is the daemon's state before a storm.
type stormBaseline struct {
	goroutines int
	heap       uint64
	ends       int
}

// storm runs the clients at once and checks the aftermath: every accepted
// job ended exactly once as its client's action allows, nothing else
// ended, no job is in flight, the intake is empty, the budget holds the
// resident parameters only and nothing once circuits are evicted, and,
// with every connection closed, goroutines and heap are back to base.
func (d *stormDaemon) storm(t *testing.T, ctl *client.Client, clients []stormClient, closers []func(), base stormBaseline, limit time.Duration, circuits []string) {
	t.Helper()
	n := len(clients)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = c.run(ctx)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("client %d (%s): %v", i, clients[i].id, err)
		}
	}
	// Jobs whose callers left keep running for the orphan grace (the
	// engine's default), so real proofs may still be in flight after the
	// clients return: wait for them within the storm's own limit.
	waitWithin(t, "no job in flight", time.Until(deadlineOf(ctx)), func() bool { return d.eng.Status().Limits.Pending == 0 })

	// Every accepted job ended exactly once, as its client's action allows.
	want := 0
	for _, c := range clients {
		if c.id == "" {
			continue
		}
		got := d.ends.of(c.id)
		switch {
		case c.want == nil && len(got) != 0:
			t.Errorf("%s was never accepted but ended %v", c.id, got)
		case c.want != nil && (len(got) != 1 || !slices.Contains(c.want, got[0])):
			t.Errorf("%s ended %v, want exactly one of %v", c.id, got, c.want)
		}
		if c.want != nil {
			want++
		}
	}
	if got := d.ends.total() - base.ends; got != want {
		t.Errorf("%d job ends for %d accepted jobs", got, want)
	}
	st := d.eng.Status()
	if c := st.Counters; int(c.Completed+c.Failed+c.Cancelled) != d.ends.total() {
		t.Errorf("counters %+v, %d ends observed", c, d.ends.total())
	}
	if st.Limits.IntakeBytes != 0 {
		t.Errorf("intake %d bytes after the storm", st.Limits.IntakeBytes)
	}

	// The budget holds the resident parameters only, then nothing.
	waitFor(t, "budget back to resident parameters", func() bool { return d.budget.Used() == d.params.HotBytes() })
	for _, id := range circuits {
		if _, _, err := ctl.Evict(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	if u := d.budget.Used(); u != 0 {
		t.Errorf("budget holds %d bytes with no job and no parameters", u)
	}

	// Connections closed, jobs done: goroutines and heap settle back.
	for _, c := range closers {
		c()
	}
	if g := settleGoroutines(base.goroutines+3, 10*time.Second); g > base.goroutines+3 {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the storm, %d before:\n%s", g, base.goroutines, buf[:runtime.Stack(buf, true)])
	}
	// Retained results (proofs, stage records) of a storm's jobs are a few
	// hundred KiB; parameters were evicted, so the heap may only shrink.
	if h := heapAfterGC(); h > base.heap+16<<20 {
		t.Errorf("heap %d MiB after the storm, %d MiB before", h>>20, base.heap>>20)
	}
}

// TestCorruptParamsFailsOnlyItsJobs: a parameter file found corrupt when
// a job first needs it (a point off the curve in h) fails that job with
// an error naming the file, the point and its byte offset; jobs of other
// circuits, before, during and after, complete; a later job of the
// corrupt circuit fails the same way (nothing is left half-loaded), and
// the budget returns to the resident parameters.
func TestCorruptParamsFailsOnlyItsJobs(t *testing.T) {
	dir := t.TempDir()
	for _, k := range []int{10, 12} {
		for _, ext := range []string{".params", ".vk", ".params.INSECURE-TEST-PARAMETERS"} {
			b, err := os.ReadFile(filepath.Join(paramDir, testkind.FileBase(k)+ext))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, testkind.FileBase(k)+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := filepath.Join(dir, testkind.FileBase(12)+".params")
	vk, err := groth16.ReadVerifyingKeyFile(filepath.Join(dir, testkind.FileBase(12)+".vk"))
	if err != nil {
		t.Fatal(err)
	}
	off := int64(len(vk.Bytes())) + 4 + 3*groth16.G1Uncompressed // h[3]
	f, err := os.OpenFile(bad, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var x [1]byte
	if _, err := f.ReadAt(x[:], off+20); err != nil {
		t.Fatal(err)
	}
	x[0] ^= 1
	if _, err := f.WriteAt(x[:], off+20); err != nil {
		t.Fatal(err)
	}
	f.Close()

	d := startStormDaemon(t, []engine.Kind{engine.Builtin(proofkind.Test, testkind.New())}, testkind.Locator(dir), 4<<30,
		engine.Config{SynthesisWorkers: 2}, false)
	c, err := client.Dial(d.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Prove(ctx, client.TestRequest("before", 10, nil)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("h[3] at byte %d", off)
	for round := range 2 {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := 10
				if i == 0 {
					k = 12
				}
				res, err := c.Prove(ctx, client.TestRequest(fmt.Sprintf("r%d-%d", round, i), k, opts(testkind.Options{SynthesisDelayMS: 50})))
				if err == nil {
					err = checkProof(k, res.GetProof(), 1)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		if err := errs[0]; !errors.Is(err, client.ErrFailed) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), want) {
			t.Errorf("round %d: job on the corrupt parameters: %v (want FAILED naming %s and %q)", round, err, bad, want)
		}
		for i, err := range errs[1:] {
			if err != nil {
				t.Errorf("round %d: job %d on good parameters: %v", round, i+1, err)
			}
		}
	}
	if _, err := c.Prove(ctx, client.TestRequest("after", 10, nil)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "budget back to resident parameters", func() bool { return d.budget.Used() == d.params.HotBytes() })
	for _, p := range d.params.Status() {
		if p.CircuitID == testkind.CircuitID(12) && p.Resident() {
			t.Fatal("the corrupt parameters are resident")
		}
	}
}

// TestGarbageBurstBoundedAndReturned: eight clients send 40 MiB of
// garbage at once to a daemon whose intake holds 128 MiB and plans one
// request at a time, for 2 s each. Requests beyond the intake are refused with
// RESOURCE_EXHAUSTED instead of being held, the rest are rejected as
// invalid, and once the daemon is idle the freed memory goes back to the
// operating system: the heap is back to where it was and little freed
// memory stays resident.
func TestGarbageBurstBoundedAndReturned(t *testing.T) {
	tk := testkind.New()
	slow := engine.PlannerFunc(func(ctx context.Context, req *engine.Request) (*engine.Plan, error) {
		select { // decoding a large request takes a while
		case <-time.After(2 * time.Second):
		case <-ctx.Done():
		}
		return tk.Plan(ctx, req)
	})
	d := startStormDaemon(t, []engine.Kind{engine.Builtin(proofkind.Test, slow)}, testkind.Locator(paramDir), 4<<30,
		engine.Config{MaxIntakeBytes: 128 << 20, PlanConcurrency: 1, ReturnMemory: true}, false)
	conns := make([]*client.Client, 8)
	for i := range conns {
		c, err := client.Dial(d.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Status(context.Background()); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	heap0 := heapAfterGC()
	var maxIntake int64
	stop := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		for {
			maxIntake = max(maxIntake, d.eng.Status().Limits.IntakeBytes)
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	codesSeen := make([]codes.Code, len(conns))
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := client.TestRequest(fmt.Sprintf("garbage-%d", i), 10, nil)
			req.VanillaProof = make([]byte, 40<<20)
			_, err := c.Submit(context.Background(), req)
			codesSeen[i] = code(err)
		}()
	}
	wg.Wait()
	close(stop)
	<-polled
	var refused, invalid int
	for i, c := range codesSeen {
		switch c {
		case codes.ResourceExhausted:
			refused++
		case codes.InvalidArgument:
			invalid++
		default:
			t.Errorf("garbage %d: %v", i, c)
		}
	}
	// Planning takes 2 s and one runs at a time, so requests pile up in
	// the intake: at most three of 40 MiB fit in 128 MiB.
	if refused == 0 || invalid == 0 || maxIntake > 128<<20 {
		t.Errorf("%d refused for the intake, %d rejected as invalid, intake peaked at %d MiB", refused, invalid, maxIntake>>20)
	}
	waitFor(t, "memory returned", func() bool {
		return strings.Contains(d.logs.String(), "freed memory returned to the operating system")
	})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d refused, %d invalid, intake peaked at %d MiB; heap %d MiB before, %d MiB after; freed but resident %d MiB",
		refused, invalid, maxIntake>>20, heap0>>20, ms.HeapAlloc>>20, (ms.HeapIdle-ms.HeapReleased)>>20)
	if ms.HeapAlloc > heap0+16<<20 {
		t.Errorf("heap %d MiB after the burst, %d MiB before", ms.HeapAlloc>>20, heap0>>20)
	}
	if kept := ms.HeapIdle - ms.HeapReleased; kept > 16<<20 {
		t.Errorf("%d MiB of freed heap still resident after the daemon went idle", kept>>20)
	}
}

func deadlineOf(ctx context.Context) time.Time {
	d, _ := ctx.Deadline()
	return d
}
