package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/internal/testserver"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/srs"
)

// paramDir holds the parameters of test-k10 and test-k12 only, linked from the
// machine's cache (testkit.RunWithTestParams).
var paramDir string

func TestMain(m *testing.M) { os.Exit(testkit.RunWithTestParams(m, &paramDir, 10, 12)) }

type daemon struct {
	c      *client.Client
	srv    *server.Server
	hl     net.Listener // the HTTP status listener
	eng    *engine.Engine
	budget *budget.Budget
	params *srs.Manager
	http   string // base URL of the status listener
	addr   string // the gRPC address, for more connections (client.Dial)
}

// startDaemon serves an engine with the test kind on a unix socket or a
// loopback TCP port, with an HTTP status listener.
func startDaemon(t *testing.T, network string, cfg engine.Config, total int64) *daemon {
	t.Helper()
	if total == 0 {
		total = 4 << 30
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	metrics := server.NewMetrics()
	te := testkit.NewEngine(t, testkit.EngineOptions{Config: cfg, Locator: srs.Chain(srs.FilecoinLocator(paramDir), testkind.Locator(paramDir)),
		Budget: total, Log: log, Observer: metrics})
	eng, b, params := te.Engine, te.Budget, te.Params
	srv := server.New(eng, server.WithLogger(log), server.WithMetrics(metrics))
	addr := serve(t, srv, network)
	hl := serveHTTP(t, srv)
	c := dial(t, addr)
	return &daemon{c: c, srv: srv, hl: hl, eng: eng, budget: b, params: params, http: "http://" + hl.Addr().String(), addr: addr}
}

// serve serves srv's gRPC on network ("unix": a socket in a short
// temporary directory; otherwise a loopback TCP port) and returns its
// address. srv is shut down when the test ends, after the clients dial
// registers later are closed.
func serve(t *testing.T, srv *server.Server, network string) string {
	t.Helper()
	addr := "127.0.0.1:0"
	if network == "unix" {
		addr = "unix://" + filepath.Join(testserver.SocketDir(t), "cuzk.sock")
	}
	return testserver.Serve(t, srv, addr).Addr
}

// serveHTTP serves srv's status page on a loopback TCP port (stopped by
// serve's shutdown).
func serveHTTP(t *testing.T, srv *server.Server) net.Listener {
	t.Helper()
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeHTTP(hl)
	return hl
}

// dial is a client of addr, closed when the test ends.
func dial(t *testing.T, addr string) *client.Client {
	t.Helper()
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func opts(o testkind.Options) []byte {
	b, _ := json.Marshal(o)
	return b
}

func verify(t *testing.T, k int, proof []byte, partitions int) {
	t.Helper()
	if len(proof) != partitions*groth16.ProofSize {
		t.Fatalf("proof is %d bytes, want %d", len(proof), partitions*groth16.ProofSize)
	}
	vk, err := groth16.ReadVerifyingKeyFile(filepath.Join(paramDir, testkind.FileBase(k)+".vk"))
	if err != nil {
		t.Fatal(err)
	}
	pvk, _ := groth16.Prepare(vk)
	proofs, err := groth16.DecodeProofs(proof)
	if err != nil {
		t.Fatal(err)
	}
	for i := range proofs {
		if ok, err := groth16.Verify(pvk, &proofs[i], testkind.PublicInputs(k)); !ok || err != nil {
			t.Fatalf("partition %d does not verify: %v", i, err)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitWithin(t, what, 20*time.Second, cond)
}

// waitWithin is waitFor with its own limit, for conditions that wait on
// real proofs.
func waitWithin(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (d *daemon) waitIdle(t *testing.T) {
	t.Helper()
	waitFor(t, "budget back to idle", func() bool { return d.budget.Used() == d.params.HotBytes() })
}

func code(err error) codes.Code { return status.Code(err) }

func TestProve(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			d := startDaemon(t, network, engine.Config{}, 0)
			ctx := context.Background()
			res, err := d.c.Prove(ctx, client.TestRequest("first", 10, opts(testkind.Options{Partitions: 2})))
			if err != nil {
				t.Fatal(err)
			}
			verify(t, 10, res.GetProof(), 2)
			if res.GetJobId() != "first" || res.GetQueueWaitMs() == 0 || res.GetSrsLoadMs() == 0 || res.GetSynthesisMs() == 0 ||
				res.GetGpuComputeMs() == 0 || res.GetTotalMs() == 0 {
				t.Fatalf("timing fields not all set: %v", res)
			}
			res2, err := d.c.Prove(ctx, client.TestRequest("second", 10, opts(testkind.Options{Partitions: 2})))
			if err != nil {
				t.Fatal(err)
			}
			if res2.GetSrsLoadMs() != 0 {
				t.Fatalf("second proof srs_load_ms = %d, want 0", res2.GetSrsLoadMs())
			}
			verify(t, 10, res2.GetProof(), 2)
			// A request without an id gets a generated one.
			res3, err := d.c.Prove(ctx, client.TestRequest("", 10, nil))
			if err != nil || len(res3.GetJobId()) != 36 {
				t.Fatalf("anonymous request: %v %q", err, res3.GetJobId())
			}
			d.waitIdle(t)
		})
	}
}

func TestBadInput(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{}, 0)
	ctx := context.Background()
	wrongSize := client.TestRequest("", 10, nil)
	wrongSize.SectorSize = 2048
	for _, tc := range []struct {
		name string
		req  *cuzkv1.SubmitProofRequest
		code codes.Code
		msg  string
	}{
		{"missing submit", nil, codes.InvalidArgument, "missing submit field"},
		{"unknown kind", &cuzkv1.SubmitProofRequest{ProofKind: 7}, codes.InvalidArgument, "invalid proof_kind: 7 (no such kind; this daemon serves test)"},
		{"unspecified kind", &cuzkv1.SubmitProofRequest{}, codes.InvalidArgument, "invalid proof_kind: 0"},
		{"unserved kind", &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT}, codes.InvalidArgument, "invalid proof_kind: 1 (porep-c2, not served here; this daemon serves test)"},
		{"malformed wrapper", client.TestRequest("", 10, []byte(`{"partitions":`)), codes.InvalidArgument, "vanilla_proof"},
		{"wrong sector size", wrongSize, codes.InvalidArgument, "sector_size 2048"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.req == nil {
				_, err = d.c.RPC().Prove(ctx, &cuzkv1.ProveRequest{})
			} else {
				_, err = d.c.Prove(ctx, tc.req)
			}
			if code(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.code, tc.msg)
			}
			if tc.req != nil {
				_, err = d.c.Submit(ctx, tc.req)
				if code(err) != tc.code {
					t.Fatalf("submit: %v", err)
				}
			}
		})
	}
	if _, err := d.c.Prove(ctx, client.TestRequest("", 10, nil)); err != nil {
		t.Fatalf("daemon stopped serving after bad input: %v", err)
	}
	// A missing parameter file fails the job, naming the file: the
	// request itself was fine.
	res, err := d.c.Prove(ctx, client.TestRequest("", 11, nil))
	if !errors.Is(err, client.ErrFailed) || res.GetStatus() != cuzkv1.AwaitProofResponse_FAILED ||
		!strings.Contains(res.GetErrorMessage(), "parameter file not found") || !strings.Contains(res.GetErrorMessage(), testkind.FileBase(11)+".params") {
		t.Fatalf("missing params: %v %v", err, res)
	}
	// A failing proof is a FAILED result, not an RPC error.
	res, err = d.c.Prove(ctx, client.TestRequest("selfcheck", 10, opts(testkind.Options{CorruptInputs: true})))
	if !errors.Is(err, client.ErrFailed) || res.GetStatus() != cuzkv1.AwaitProofResponse_FAILED ||
		!strings.Contains(res.GetErrorMessage(), "self-check failed") || len(res.GetProof()) != 0 || res.GetTotalMs() != 0 {
		t.Fatalf("self-check failure: %v %v", err, res)
	}
}

func TestSubmitAwaitCancel(t *testing.T) {
	d := startDaemon(t, "tcp", engine.Config{SynthesisWorkers: 1}, 0)
	ctx := context.Background()
	sub, err := d.c.Submit(ctx, client.TestRequest("running", 10, opts(testkind.Options{Partitions: 4, SynthesisDelayMS: 150})))
	if err != nil || sub.GetJobId() != "running" || sub.GetQueuePosition() != 0 {
		t.Fatalf("%v %v", sub, err)
	}
	sub2, err := d.c.Submit(ctx, client.TestRequest("pending", 10, nil))
	if err != nil || sub2.GetQueuePosition() != 0 {
		// "running" has left the queue when "pending" arrives, or not.
		if err != nil || sub2.GetQueuePosition() > 1 {
			t.Fatalf("%v %v", sub2, err)
		}
	}
	waitFor(t, "running job in synthesis", func() bool { return d.eng.Status().Pipeline.Synthesizing == 1 })

	res, err := d.c.Await(ctx, "running", 30*time.Millisecond)
	if !errors.Is(err, client.ErrTimeout) || res.GetStatus() != cuzkv1.AwaitProofResponse_TIMEOUT {
		t.Fatalf("await timeout: %v %v", res, err)
	}
	if was, err := d.c.Cancel(ctx, "pending"); err != nil || was {
		t.Fatalf("cancel pending: %v %v", was, err)
	}
	if was, err := d.c.Cancel(ctx, "running"); err != nil || !was {
		t.Fatalf("cancel running: %v %v", was, err)
	}
	for _, id := range []string{"pending", "running"} {
		res, err := d.c.Await(ctx, id, 0)
		if !errors.Is(err, client.ErrCancelled) || res.GetStatus() != cuzkv1.AwaitProofResponse_CANCELLED {
			t.Fatalf("%s: %v %v", id, res, err)
		}
	}
	if was, err := d.c.Cancel(ctx, "never-seen"); err != nil || was {
		t.Fatalf("cancel unknown: %v %v", was, err)
	}
	if _, err := d.c.Await(ctx, "never-seen", 0); code(err) != codes.NotFound {
		t.Fatalf("await unknown: %v", err)
	}
	d.waitIdle(t)
}

func TestDuplicateRequestID(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{}, 0)
	req := client.TestRequest("porep-1000-7", 10, opts(testkind.Options{SynthesisDelayMS: 200}))
	var wg sync.WaitGroup
	proofs := make([][]byte, 3)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := d.c.Prove(context.Background(), req)
			if err != nil {
				t.Error(err)
				return
			}
			proofs[i] = res.GetProof()
		}()
	}
	wg.Wait()
	for i := range proofs {
		if string(proofs[i]) != string(proofs[0]) || len(proofs[i]) == 0 {
			t.Fatalf("callers got different proofs")
		}
	}
	st, err := d.c.Status(context.Background())
	if err != nil || st.GetTotalProofsCompleted() != 1 {
		t.Fatalf("executions: %v %v", st.GetTotalProofsCompleted(), err)
	}
	// Reusing the id for a different request while it runs is refused.
	if _, err := d.c.Submit(context.Background(), client.TestRequest("busy", 10, opts(testkind.Options{SynthesisDelayMS: 300}))); err != nil {
		t.Fatal(err)
	}
	if _, err := d.c.Submit(context.Background(), client.TestRequest("busy", 10, nil)); code(err) != codes.AlreadyExists {
		t.Fatalf("conflicting id: %v", err)
	}
}

// TestClientDisconnectCancelsJob: with orphan_grace = 0, a job whose
// client goes away mid-proof is cancelled at once.
func TestClientDisconnectCancelsJob(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{SynthesisWorkers: 1, OrphanGrace: -1}, 0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := d.c.Prove(ctx, client.TestRequest("vanishing", 10, opts(testkind.Options{Partitions: 20, SynthesisDelayMS: 100})))
		errc <- err
	}()
	waitFor(t, "job running", func() bool {
		js := d.eng.Status().Jobs
		return len(js) == 1 && js[0].State == engine.StateRunning
	})
	cancel() // the client goes away mid-proof
	if err := <-errc; code(err) != codes.Canceled {
		t.Fatalf("prove: %v", err)
	}
	waitFor(t, "job cancelled", func() bool {
		res, err := d.c.Await(context.Background(), "vanishing", 10*time.Millisecond)
		return err != nil && res.GetStatus() == cuzkv1.AwaitProofResponse_CANCELLED
	})
	d.waitIdle(t)
}

// TestRetryAfterClientTimeout is Curio's client at its ProveTimeout: the
// Prove call's deadline passes mid-proof, and the client closes its
// connection; the job runs on (orphan_grace), /status shows it orphaned,
// and the retried task's Prove with the same request id, on a new
// connection, attaches to it and gets the proof. An AwaitProof or a
// SubmitProof with the request id attaches the same way, and a Prove
// retry also after the job ended.
func TestRetryAfterClientTimeout(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{SynthesisWorkers: 1, OrphanGrace: time.Minute}, 0)
	for _, retry := range []string{"prove", "await", "submit"} {
		t.Run(retry, func(t *testing.T) {
			id := "porep-1000-" + retry
			req := client.TestRequest(id, 10, opts(testkind.Options{Partitions: 6, SynthesisDelayMS: 100}))
			first, err := client.Dial(d.addr)
			if err != nil {
				t.Fatal(err)
			}
			// The ProveTimeout, short of the job's 6 × 100 ms of synthesis.
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			if _, err := first.Prove(ctx, req); code(err) != codes.DeadlineExceeded {
				t.Fatalf("prove: %v", err)
			}
			first.Close()
			var doc statusdoc.Status
			waitFor(t, "job orphaned", func() bool {
				doc = getStatusDoc(t, d)
				return len(doc.Jobs) == 1 && doc.Jobs[0].Waiters == 0 && doc.Jobs[0].OrphanedFor > 0
			})
			if doc.Jobs[0].State != "running" {
				t.Fatalf("orphaned job %+v", doc.Jobs[0])
			}

			second, err := client.Dial(d.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer second.Close()
			var res *cuzkv1.AwaitProofResponse
			switch retry {
			case "prove":
				res, err = second.Prove(context.Background(), req)
			case "await":
				res, err = second.Await(context.Background(), id, 0)
			case "submit":
				var sub *cuzkv1.SubmitProofResponse
				if sub, err = second.Submit(context.Background(), req); err != nil || sub.GetJobId() != id {
					t.Fatalf("submit retry: %v %v", sub, err)
				}
				res, err = second.Await(context.Background(), id, 0)
			}
			if err != nil || res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED || res.GetJobId() != id {
				t.Fatalf("retry: %v %v", res, err)
			}
			verify(t, 10, res.GetProof(), 6)
			c := getStatusDoc(t, d).Counters
			if c.Orphaned == 0 || c.Reclaimed == 0 || c.Cancelled != 0 {
				t.Fatalf("counters %+v", c)
			}
		})
	}
	if c := getStatusDoc(t, d).Counters; c.Completed != 3 || c.Orphaned != 3 || c.Reclaimed != 3 || c.Attached != 2 {
		t.Fatalf("counters %+v: want each job proved once, orphaned and reclaimed once (the Prove and SubmitProof retries attached)", c)
	}

	// A job that ends while nobody waits keeps its result for the retry.
	req := client.TestRequest("porep-1000-late", 10, opts(testkind.Options{SynthesisDelayMS: 300}))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := d.c.Prove(ctx, req); errc <- err }()
	waitFor(t, "job running", func() bool {
		js := d.eng.Status().Jobs
		return len(js) == 1 && js[0].State == engine.StateRunning
	})
	cancel()
	<-errc
	waitFor(t, "job completed", func() bool { return getStatusDoc(t, d).Counters.Completed == 4 })
	res, err := d.c.Prove(context.Background(), req)
	if err != nil || res.GetStatus() != cuzkv1.AwaitProofResponse_COMPLETED {
		t.Fatalf("retry after the job ended: %v %v", res, err)
	}
	verify(t, 10, res.GetProof(), 1)
	if c := getStatusDoc(t, d).Counters; c.Completed != 4 {
		t.Fatalf("the retry proved again: %+v", c)
	}
	d.waitIdle(t)
}

func TestPriorityAndBatchingOverGRPC(t *testing.T) {
	t.Run("critical next", func(t *testing.T) {
		d := startDaemon(t, "tcp", engine.Config{SynthesisWorkers: 1, Lookahead: 1}, 0)
		if _, _, err := d.c.Preload(context.Background(), "test-k12"); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var order []string
		var wg sync.WaitGroup
		prove := func(id string, prio cuzkv1.Priority) {
			req := client.TestRequest(id, 12, nil)
			req.Priority = prio
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := d.c.Prove(context.Background(), req); err != nil {
					t.Error(err)
				}
				mu.Lock()
				order = append(order, id)
				mu.Unlock()
			}()
		}
		prove("A", cuzkv1.Priority_NORMAL)
		waitFor(t, "A proving", func() bool { return d.eng.Status().Pipeline.Proving == 1 })
		prove("B", cuzkv1.Priority_NORMAL)
		waitFor(t, "B queued", func() bool { return len(d.eng.Status().Jobs) == 2 })
		prove("C", cuzkv1.Priority_NORMAL)
		waitFor(t, "B and C synthesised", func() bool { p := d.eng.Status().Pipeline; return p.Proving == 1 && p.Ready == 2 })
		prove("D", cuzkv1.Priority_CRITICAL)
		wg.Wait()
		if strings.Join(order, "") != "ADBC" {
			t.Fatalf("completion order %v, want A D B C", order)
		}
	})
	t.Run("batch of two", func(t *testing.T) {
		d := startDaemon(t, "unix", engine.Config{MaxBatchSize: 2, MaxBatchWait: time.Minute}, 0)
		var wg sync.WaitGroup
		for _, id := range []string{"s1", "s2"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := d.c.Prove(context.Background(), client.TestRequest(id, 10, opts(testkind.Options{Partitions: 2})))
				if err != nil {
					t.Error(err)
					return
				}
				verify(t, 10, res.GetProof(), 2)
			}()
		}
		wg.Wait()
		text, err := d.c.Metrics(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, `cuzk_batch_size_count{circuit_id="test-k10"} 1`) ||
			!strings.Contains(text, `cuzk_batch_size_sum{circuit_id="test-k10"} 2`) {
			t.Fatalf("not one batch of two:\n%s", grep(text, "cuzk_batch_size"))
		}
	})
	t.Run("lone job flushes", func(t *testing.T) {
		d := startDaemon(t, "unix", engine.Config{MaxBatchSize: 2, MaxBatchWait: 250 * time.Millisecond}, 0)
		res, err := d.c.Prove(context.Background(), client.TestRequest("alone", 10, nil))
		if err != nil {
			t.Fatal(err)
		}
		if res.GetQueueWaitMs() < 250 {
			t.Fatalf("queue_wait_ms %d, want ≥ 250", res.GetQueueWaitMs())
		}
	})
}

func TestConcurrentJobsWithinBudget(t *testing.T) {
	s, err := srs.ReadSizes(filepath.Join(paramDir, testkind.FileBase(10)+".params"))
	if err != nil {
		t.Fatal(err)
	}
	total := s.ParamsBytes() + 2*s.WorkingSet() + s.WorkingSet()/3
	d := startDaemon(t, "tcp", engine.Config{SynthesisWorkers: 4, Lookahead: 4, SynthesisConcurrency: 8}, total)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := d.c.Prove(context.Background(), client.TestRequest(fmt.Sprint("n", i), 10, opts(testkind.Options{SynthesisDelayMS: 30})))
			if err != nil {
				t.Error(err)
				return
			}
			verify(t, 10, res.GetProof(), 1)
		}()
	}
	wg.Wait()
	st := d.eng.Status()
	if st.Memory.PeakBytes > total || st.Memory.PeakBytes < s.ParamsBytes()+2*s.WorkingSet() {
		t.Fatalf("peak %d, budget %d, two working sets + params %d", st.Memory.PeakBytes, total, s.ParamsBytes()+2*s.WorkingSet())
	}
	d.waitIdle(t)
	if d.budget.Used() != s.ParamsBytes() {
		t.Fatalf("idle use %d, want %d", d.budget.Used(), s.ParamsBytes())
	}
}

func grep(text, sub string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestStatusMetricsPreloadEvict(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{}, 0)
	ctx := context.Background()
	if _, _, err := d.c.Preload(ctx, "porep-99g"); code(err) != codes.InvalidArgument {
		t.Fatalf("preload unknown: %v", err)
	}
	if _, _, err := d.c.Preload(ctx, "porep-2k"); code(err) != codes.FailedPrecondition {
		t.Fatalf("preload missing: %v", err)
	}
	already, lt, err := d.c.Preload(ctx, "test-k10")
	if err != nil || already || lt == 0 {
		t.Fatalf("preload: %v %v %v", already, lt, err)
	}
	if already, _, _ := d.c.Preload(ctx, "test-k10"); !already {
		t.Fatal("second preload not already_loaded")
	}
	if _, err := d.c.Prove(ctx, client.TestRequest("m", 10, nil)); err != nil {
		t.Fatal(err)
	}
	st, err := d.c.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, q := range st.GetQueues() {
		kinds[q.GetProofKind()] = true
	}
	for _, k := range []string{"porep-c2", "snap-update", "window-post", "winning-post", "test"} {
		if !kinds[k] {
			t.Errorf("queue %q missing from %v", k, kinds)
		}
	}
	s, _ := srs.ReadSizes(filepath.Join(paramDir, testkind.FileBase(10)+".params"))
	if len(st.GetLoadedSrs()) != 1 || st.GetLoadedSrs()[0].GetCircuitId() != "test-k10" ||
		st.GetLoadedSrs()[0].GetTier() != cuzkv1.SRSStatus_HOT || st.GetLoadedSrs()[0].GetSizeBytes() != uint64(s.ParamsBytes()) {
		t.Fatalf("loaded_srs %v", st.GetLoadedSrs())
	}
	if st.GetPinnedMemoryLimitBytes() != 4<<30 || st.GetTotalProofsCompleted() != 1 || len(st.GetGpus()) != 0 {
		t.Fatalf("status %v", st)
	}

	text, err := d.c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`cuzk_proofs_completed_total{proof_kind="test"} 1`, `cuzk_proofs_failed_total{proof_kind="test"} 0`, "cuzk_uptime_seconds",
		"cuzk_queue_depth 0", "cuzk_running_jobs 0", "cuzk_gpu_workers 0", `cuzk_proof_duration_seconds_count{proof_kind="test"} 1`,
		`cuzk_stage_duration_seconds_count{proof_kind="test",stage="synthesis"} 1`, `cuzk_stage_duration_seconds_bucket{proof_kind="test",stage="prove",le="+Inf"} 1`,
		`cuzk_pipeline_stage_duration_seconds_count{circuit_id="test-k10",stage="synthesis"} 1`,
		`cuzk_pipeline_stage_duration_seconds_count{circuit_id="",stage="self_check"} 1`,
		"cuzk_memory_budget_bytes 4.294967296e+09", `cuzk_srs_bytes{circuit_id="test-k10",tier="hot"}`, "go_goroutines",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}

	// HTTP: /status JSON, /metrics, pprof.
	resp, err := http.Get(d.http + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var js statusdoc.Status
	if err := json.NewDecoder(resp.Body).Decode(&js); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/status: %v %v", resp.Status, err)
	}
	resp.Body.Close()
	hot := 0
	for _, p := range js.Params {
		if p.Tier == string(srs.TierHot) {
			hot++
		}
	}
	if js.Counters.Completed != 1 || hot != 1 || js.Memory.TotalBytes != 4<<30 {
		t.Fatalf("/status %+v", js)
	}
	if len(js.RecentJobs) != 1 || js.RecentJobs[0].ID != "m" || js.RecentJobs[0].State != "completed" || len(js.RecentJobs[0].Stages) < 4 {
		t.Fatalf("/status recent_jobs %+v", js.RecentJobs)
	}
	resp, err = http.Get(d.http + "/metrics")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/metrics: %v %v", err, resp.Status)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "cuzk_memory_used_bytes") {
		t.Fatal("/metrics lacks the memory gauges")
	}

	was, freed, err := d.c.Evict(ctx, "test-k10")
	if err != nil || !was || freed != uint64(s.ParamsBytes()) {
		t.Fatalf("evict: %v %v %v", was, freed, err)
	}
	if was, _, err := d.c.Evict(ctx, "test-k10"); err != nil || was {
		t.Fatalf("evict again: %v %v", was, err)
	}
	if _, _, err := d.c.Evict(ctx, "nope"); code(err) != codes.InvalidArgument {
		t.Fatalf("evict unknown: %v", err)
	}
	if d.budget.Used() != 0 {
		t.Fatalf("budget %d after eviction", d.budget.Used())
	}
}

func TestHealthReflectionAndLargeMessages(t *testing.T) {
	d := startDaemon(t, "tcp", engine.Config{}, 0)
	ctx := context.Background()
	h, err := healthpb.NewHealthClient(d.c.Conn()).Check(ctx, &healthpb.HealthCheckRequest{Service: "cuzk.v1.ProvingEngine"})
	if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: %v %v", h, err)
	}
	rc, err := reflectionpb.NewServerReflectionClient(d.c.Conn()).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	rr, err := rc.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range rr.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if !strings.Contains(strings.Join(names, ","), "cuzk.v1.ProvingEngine") {
		t.Fatalf("reflection lists %v", names)
	}
	rc.CloseSend()
	// 20 MiB request: beyond gRPC's 4 MiB default, like a 32 GiB C1.
	big := append([]byte(`{"partitions":1}`), make([]byte, 20<<20)...)
	for i := 16; i < len(big); i++ {
		big[i] = ' '
	}
	if _, err := d.c.Prove(ctx, client.TestRequest("big", 10, big)); err != nil {
		t.Fatalf("20 MiB request: %v", err)
	}
}

// TestListenBusyPort: a TCP port in use is named as such, with what to
// look for.
func TestListenBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = server.Listen(l.Addr().String())
	if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), l.Addr().String()+" is in use by another program, another cuzk daemon perhaps") {
		t.Fatalf("Listen on a busy port: %v", err)
	}
}

func TestListenUnixSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzk")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "a", "b", "s.sock")
	// A missing directory is not made (it would be a system directory
	// such as /run/curio): the error names it and the fixes.
	_, err = server.Listen("unix://" + path)
	if !errors.Is(err, server.ErrNoSocketDir) || !strings.Contains(err.Error(), filepath.Dir(path)) || !strings.Contains(err.Error(), "install -d") {
		t.Fatalf("missing directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Listen created a directory: %v", err)
	}
	// Under /run it is what systemd's RuntimeDirectory makes.
	const runDir = "/run/cuzk-test-absent-5f0c"
	if _, err := server.Listen("unix://" + runDir + "/cuzk.sock"); !errors.Is(err, server.ErrNoSocketDir) || !strings.Contains(err.Error(), "RuntimeDirectory=cuzk-test-absent-5f0c") {
		t.Fatalf("missing directory under /run: %v", err)
	}
	if _, err := os.Stat(runDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Listen created %s: %v", runDir, err)
	}
	// A stale socket: bound, then its listener gone without unlinking.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	stale, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	stale.(*net.UnixListener).SetUnlinkOnClose(false)
	stale.Close()
	l, err := server.Listen("unix://" + path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != server.SocketMode || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v %v", st.Mode(), err)
	}
	// A live socket is not taken over.
	if _, err := server.Listen("unix://" + path); err == nil || !strings.Contains(err.Error(), "another process") {
		t.Fatalf("live socket: %v", err)
	}
	l.Close()
	// A regular file is never removed.
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := server.Listen("unix://" + file); err == nil {
		t.Fatal("listened over a regular file")
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("regular file removed")
	}
	if _, err := server.Listen("unix://relative.sock"); err == nil {
		t.Fatal("relative path accepted")
	}
}

// TestAwaitAbortedByShutdown: a job the daemon aborts because it is
// shutting down did not fail on its merits; AwaitProof (like Prove) says
// Unavailable, so a client submits it to another daemon instead of
// recording a failed proof.
func TestAwaitAbortedByShutdown(t *testing.T) {
	d := startDaemon(t, "unix", engine.Config{SynthesisWorkers: 1}, 0)
	ctx := context.Background()
	if _, err := d.c.Submit(ctx, client.TestRequest("slow", 10, opts(testkind.Options{Partitions: 2, SynthesisDelayMS: 1500}))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "job in synthesis", func() bool { return d.eng.Status().Pipeline.Synthesizing == 1 })
	done := make(chan error, 1)
	go func() {
		_, err := d.c.Await(ctx, "slow", 0)
		done <- err
	}()
	sctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_ = d.eng.Shutdown(sctx) // the deadline passes: the job is aborted
	select {
	case err := <-done:
		if code(err) != codes.Unavailable {
			t.Fatalf("await of an aborted job: %v, want Unavailable", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("await did not return after the shutdown")
	}
}

// getStatusDoc reads the daemon's GET /status document.
func getStatusDoc(t *testing.T, d *daemon) statusdoc.Status {
	t.Helper()
	resp, err := http.Get(d.http + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc statusdoc.Status
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/status: %v %v", resp.Status, err)
	}
	return doc
}
