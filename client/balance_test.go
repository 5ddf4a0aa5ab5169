package client_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/internal/testserver"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
)

// paramDir holds the parameters of test-k10 only, linked from the
// machine's cache (testkit.RunWithTestParams).
var paramDir string

func TestMain(m *testing.M) { os.Exit(testkit.RunWithTestParams(m, &paramDir, 10)) }

// testDaemon is an in-process daemon serving the test circuits on a unix
// socket.
type testDaemon struct {
	addr   string
	srv    *server.Server
	eng    *engine.Engine
	served *testserver.Served
}

func startDaemons(t *testing.T, n int) []*testDaemon {
	t.Helper()
	dir := testserver.SocketDir(t)
	var ds []*testDaemon
	for i := range n {
		ds = append(ds, serve(t, "unix://"+filepath.Join(dir, fmt.Sprintf("d%d.sock", i)), nil))
	}
	return ds
}

// serve starts a daemon on addr ("127.0.0.1:0" picks a port), checking
// callers with sec when given.
func serve(t *testing.T, addr string, sec *server.Security) *testDaemon {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	eng := testkit.NewEngine(t, testkit.EngineOptions{Config: engine.Config{SynthesisWorkers: 1}, Locator: testkind.Locator(paramDir),
		Budget: 2 << 30, Log: log}).Engine
	opts := []server.Option{server.WithLogger(log)}
	if sec != nil {
		auth, err := server.NewAuth(*sec, log)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, server.WithAuth(auth))
	}
	d := &testDaemon{srv: server.New(eng, opts...), eng: eng}
	d.served = testserver.Serve(t, d.srv, addr)
	d.addr = d.served.Addr
	return d
}

// stop shuts the daemon down, giving its jobs grace to finish; with no
// grace it aborts them at once and cuts the connections, as a daemon that
// is killed loses them.
func (d *testDaemon) stop(grace time.Duration) { d.served.Stop(grace) }

func addrs(ds []*testDaemon) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.addr)
	}
	return out
}

func testReq(id string, o testkind.Options) *cuzkv1.SubmitProofRequest {
	b, _ := json.Marshal(o)
	return client.TestRequest(id, 10, b)
}

// proveAll proves n requests at once and returns their errors by id.
func proveAll(c *client.Client, prefix string, n int, o testkind.Options) map[string]error {
	var mu sync.Mutex
	errs := map[string]error{}
	var wg sync.WaitGroup
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := c.Prove(ctx, testReq(id, o))
			if err == nil && len(res.GetProof()) != groth16.ProofSize*max(o.Partitions, 1) {
				err = fmt.Errorf("proof of %d bytes", len(res.GetProof()))
			}
			mu.Lock()
			errs[id] = err
			mu.Unlock()
		})
	}
	wg.Wait()
	return errs
}

// spread counts the jobs whose placement is each daemon.
func spread(t *testing.T, c *client.Client, ids map[string]error) map[string]int {
	t.Helper()
	n := map[string]int{}
	for id := range ids {
		pl, ok := c.Placement(id)
		if !ok {
			t.Fatalf("job %s has no placement", id)
		}
		n[pl.Daemon]++
	}
	return n
}

func completed(d *testDaemon) int { return int(d.eng.Status().Counters.Completed) }

// Three daemons on unix sockets share a burst of proofs, each daemon's
// own counters agree with where the client says each job went, and the
// client sums their status.
func TestSeveralDaemonsShareLoad(t *testing.T) {
	ds := startDaemons(t, 3)
	c, err := client.Dial(addrs(ds)[0] + "," + addrs(ds)[1] + "," + addrs(ds)[2])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 24
	errs := proveAll(c, "share", n, testkind.Options{SynthesisDelayMS: 50})
	for id, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	got := spread(t, c, errs)
	t.Logf("jobs per daemon: %v", got)
	for _, d := range ds {
		if got[d.addr] == 0 || got[d.addr] > n*6/10 {
			t.Errorf("daemon %s got %d of %d jobs: %v", d.addr, got[d.addr], n, got)
		}
		if completed(d) != got[d.addr] {
			t.Errorf("daemon %s completed %d jobs, the client placed %d there", d.addr, completed(d), got[d.addr])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.Status(ctx)
	if err != nil || st.GetTotalProofsCompleted() != n || st.GetPinnedMemoryLimitBytes() != 3*(2<<30) || len(st.GetLoadedSrs()) != 3 ||
		!slices.ContainsFunc(st.GetQueues(), func(q *cuzkv1.QueueStatus) bool { return q.GetProofKind() == "test" }) {
		t.Fatalf("summed status %v: %v", err, st)
	}
	for _, d := range ds {
		st, err := c.StatusOf(ctx, d.addr)
		if err != nil || int(st.GetTotalProofsCompleted()) != got[d.addr] {
			t.Fatalf("StatusOf(%s): %v %v", d.addr, err, st)
		}
	}
	if _, err := c.Metrics(ctx); err == nil {
		t.Fatal("Metrics of several daemons did not fail")
	}
	if text, err := c.MetricsOf(ctx, ds[1].addr); err != nil || len(text) == 0 {
		t.Fatalf("MetricsOf: %v", err)
	}
	// Parameters: every daemon has test-k10 loaded now; evict and preload
	// act on all of them.
	if already, _, err := c.Preload(ctx, testkind.CircuitID(10)); err != nil || !already {
		t.Fatalf("preload on daemons that have the parameters: %v %v", already, err)
	}
	if was, freed, err := c.Evict(ctx, testkind.CircuitID(10)); err != nil || !was || freed == 0 {
		t.Fatalf("evict: %v %d %v", was, freed, err)
	}
	if already, _, err := c.Preload(ctx, testkind.CircuitID(10)); err != nil || already {
		t.Fatalf("preload after evict: %v %v", already, err)
	}
	for _, d := range ds {
		if len(d.eng.Status().Params) == 0 || !d.eng.Status().Params[0].Resident() {
			t.Fatalf("daemon %s has no parameters after preload", d.addr)
		}
	}
	// Every daemon is ready and has been polled.
	deadline := time.Now().Add(10 * time.Second)
	for {
		states := c.Daemons()
		ok := len(states) == 3
		for i, s := range states {
			ok = ok && s.Addr == ds[i].addr && s.Ready && s.Status != nil && s.Routed == uint64(got[s.Addr])
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon states %+v", states)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A daemon stopped in the middle of a run loses no job: its Prove calls
// come back Unavailable and go to another daemon, it gets no new jobs,
// and the client's placements say where each job ended and where it was
// first. A job submitted to it (SubmitProof) is reported lost
// (Unavailable) and, submitted again, runs elsewhere.
func TestSeveralDaemonsOneStops(t *testing.T) {
	ds := startDaemons(t, 3)
	victim := ds[1]
	c, err := client.DialDaemons(addrs(ds))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	slow := testkind.Options{SynthesisDelayMS: 400, Partitions: 2}
	// A job submitted to the victim, awaited separately.
	held := testReq("held", testkind.Options{SynthesisDelayMS: 3000})
	if _, err := c.Submit(client.OnDaemon(ctx, victim.addr), held); err != nil {
		t.Fatal(err)
	}
	if pl, _ := c.Placement("held"); pl.Daemon != victim.addr {
		t.Fatalf("held placed %+v", pl)
	}
	const n = 12
	done := make(chan map[string]error)
	go func() { done <- proveAll(c, "run", n, slow) }()
	// Stop the victim while it holds jobs of the run: two if it gets
	// them (so that one finishing just before the stop still leaves one
	// to move), else one.
	start := time.Now()
	for {
		held := victim.eng.Status().Limits.Pending - 1 // less the held job
		if held >= 2 || (held >= 1 && time.Since(start) > 3*time.Second) {
			break
		}
		if time.Since(start) > time.Minute {
			t.Fatal("the victim never got a job of the run")
		}
		time.Sleep(10 * time.Millisecond)
	}
	victim.stop(0)
	finishedOnVictim := completed(victim)
	errs := <-done
	moved := 0
	for id, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		pl, _ := c.Placement(id)
		if slices.Contains(pl.Tried, victim.addr) {
			moved++
			if pl.Daemon == victim.addr {
				t.Errorf("%s: tried on the victim, then placed there: %+v", id, pl)
			}
		}
	}
	got := spread(t, c, errs)
	t.Logf("jobs per daemon: %v; %d moved off the stopped daemon, %d finished there before", got, moved, finishedOnVictim)
	if moved == 0 || got[victim.addr] != finishedOnVictim {
		t.Fatalf("%d jobs moved off the victim; placements %v, victim completed %d", moved, got, finishedOnVictim)
	}
	if completed(ds[0])+completed(ds[2])+finishedOnVictim != n {
		t.Fatalf("daemons completed %d + %d + %d, want %d", completed(ds[0]), completed(ds[2]), finishedOnVictim, n)
	}
	// New jobs avoid the stopped daemon.
	for id, err := range proveAll(c, "after", 4, testkind.Options{}) {
		if pl, _ := c.Placement(id); err != nil || pl.Daemon == victim.addr {
			t.Fatalf("%s after the stop: %v, %+v", id, err, pl)
		}
	}
	// The held job died with its daemon: Await says so, and the same
	// request submitted again runs on another daemon.
	if _, err := c.Await(ctx, "held", 0); status.Code(err) != codes.Unavailable {
		t.Fatalf("await of a job on the stopped daemon: %v", err)
	}
	held.VanillaProof = nil
	if _, err := c.Submit(ctx, held); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Await(ctx, "held", 0); err != nil {
		t.Fatal(err)
	}
	if pl, _ := c.Placement("held"); pl.Daemon == victim.addr || pl.Daemon == "" {
		t.Fatalf("held placed again on %+v", pl)
	}
	if states := c.Daemons(); states[1].Ready || !states[0].Ready || !states[2].Ready {
		t.Fatalf("states %+v", states)
	}
}

// One name with several records (a manual resolver standing in for DNS):
// the client balances over every record and follows the resolver when
// the records change.
func TestSeveralDaemonsBehindOneName(t *testing.T) {
	ds := startDaemons(t, 3)
	r := manual.NewBuilderWithScheme("fakedns")
	var st resolver.State
	for _, a := range addrs(ds) {
		st.Addresses = append(st.Addresses, resolver.Address{Addr: a})
	}
	r.InitialState(st)
	c, err := client.DialResolver("fakedns:///cuzk.example:9820", r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got := map[string]int{}
	for i := range 6 {
		id := fmt.Sprint("one-name-", i)
		if _, err := c.Prove(ctx, testReq(id, testkind.Options{})); err != nil {
			t.Fatal(err)
		}
		pl, _ := c.Placement(id)
		got[pl.Daemon]++
	}
	for _, d := range ds {
		if got[d.addr] == 0 {
			t.Fatalf("one proof after another did not reach every record: %v", got)
		}
	}
	// The name loses its first record.
	r.UpdateState(resolver.State{Addresses: st.Addresses[1:]})
	for deadline := time.Now().Add(10 * time.Second); len(c.Daemons()) != 2; {
		if time.Now().After(deadline) {
			t.Fatalf("daemons %+v", c.Daemons())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for id, err := range proveAll(c, "two-records", 4, testkind.Options{}) {
		if pl, _ := c.Placement(id); err != nil || pl.Daemon == ds[0].addr {
			t.Fatalf("%s: %v, %+v", id, err, pl)
		}
	}
}

// A job another client placed is found on whichever daemon holds it.
func TestSeveralDaemonsFindForeignJob(t *testing.T) {
	ds := startDaemons(t, 3)
	one, err := client.Dial(ds[2].addr)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := one.Submit(ctx, testReq("foreign", testkind.Options{SynthesisDelayMS: 100})); err != nil {
		t.Fatal(err)
	}
	c, err := client.DialDaemons(addrs(ds))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Await(ctx, "foreign", 0); err != nil {
		t.Fatal(err)
	}
	if pl, ok := c.Placement("foreign"); !ok || pl.Daemon != ds[2].addr {
		t.Fatalf("foreign job placed %+v %v", pl, ok)
	}
	if _, err := c.Await(ctx, "nowhere", 0); status.Code(err) != codes.NotFound {
		t.Fatalf("await of an unknown job: %v", err)
	}
	if was, err := c.Cancel(ctx, "nowhere"); err != nil || was {
		t.Fatalf("cancel of an unknown job: %v %v", was, err)
	}
}

// The client reads the daemon's queues by the kinds' descriptor names and
// priorities; a kind it does not describe has no queue.
func TestQueueNamesFromDescriptors(t *testing.T) {
	for _, d := range proofkind.Builtin().All() {
		if got := client.QueueName(cuzkv1.ProofKind(d.Kind)); got != d.Name {
			t.Errorf("%d: client queue %q, descriptor %q", d.Kind, got, d.Name)
		}
		if got, want := client.QueuePriority(d.Name), cuzkv1.Priority(d.DefaultPriority); got != want {
			t.Errorf("%s: client priority %v, descriptor %v", d.Name, got, want)
		}
	}
	if got := client.QueueName(77); got != "" {
		t.Errorf("kind 77: queue %q", got)
	}
}

// A list that mixes a plain unix socket with a TCP daemon that wants TLS
// and a token: each is dialled as it serves (credentials belong to the
// whole connection), and both get jobs.
func TestSeveralDaemonsTLSAndUnix(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile := testCertificates(t, dir)
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("balance-test 968681adb282baff0b85058cbcab2086\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := startDaemons(t, 1)[0]
	secured := serve(t, "127.0.0.1:0", &server.Security{CertFile: certFile, KeyFile: keyFile, TokenFile: tokens})
	list := plain.addr + "," + secured.addr
	// Without the token the TCP daemon refuses every call, so every job
	// goes to the unix socket.
	bare, err := client.DialWith(list, client.Credentials{CAFile: caFile})
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	for id, err := range proveAll(bare, "no-token", 3, testkind.Options{}) {
		if pl, _ := bare.Placement(id); err != nil || pl.Daemon != plain.addr || !slices.Equal(pl.Tried, []string{secured.addr}) && len(pl.Tried) != 0 {
			t.Fatalf("%s: %v, %+v", id, err, pl)
		}
	}
	c, err := client.DialWith(list, client.Credentials{CAFile: caFile, TokenFile: tokens})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	errs := proveAll(c, "tls", 6, testkind.Options{SynthesisDelayMS: 50})
	for id, err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
	}
	if got := spread(t, c, errs); got[plain.addr] == 0 || got[secured.addr] == 0 {
		t.Fatalf("jobs per daemon: %v", got)
	}
}

// testCertificates writes a CA and a server certificate for 127.0.0.1
// signed by it (PEM files, made fresh: no key is committed).
func testCertificates(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "balance-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "balance-test-daemon"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caTmpl, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return write("ca.crt", "CERTIFICATE", caDER), write("daemon.crt", "CERTIFICATE", der), write("daemon.key", "PRIVATE KEY", kder)
}

// TestSumStatusArithmetic: daemons' CPU arithmetic sums to the common one,
// "mixed" when they differ, nil when none reports it; a failed check on
// any daemon shows.
func TestSumStatusArithmetic(t *testing.T) {
	ifma := &cuzkv1.CPUArithmetic{Kind: "avx512-ifma"}
	scalar := &cuzkv1.CPUArithmetic{Kind: "scalar", Reason: "CUZK_NO_IFMA=1"}
	failed := &cuzkv1.CPUArithmetic{Kind: "scalar", Reason: "known-answer check failed: x", CheckFailed: true}
	for _, c := range []struct {
		in         []*cuzkv1.CPUArithmetic
		kind       string
		checkFails bool
	}{
		{nil, "", false},
		{[]*cuzkv1.CPUArithmetic{ifma, ifma}, "avx512-ifma", false},
		{[]*cuzkv1.CPUArithmetic{ifma, nil}, "avx512-ifma", false},
		{[]*cuzkv1.CPUArithmetic{ifma, scalar}, "mixed", false},
		{[]*cuzkv1.CPUArithmetic{scalar, failed}, "scalar", true},
	} {
		var reports []*cuzkv1.GetStatusResponse
		for _, a := range c.in {
			reports = append(reports, &cuzkv1.GetStatusResponse{CpuArithmetic: a})
		}
		got := client.SumStatus(reports...).GetCpuArithmetic()
		if got.GetKind() != c.kind || got.GetCheckFailed() != c.checkFails {
			t.Errorf("%v: summed to %v", c.in, got)
		}
	}
}

// TestDrainingDaemonGetsNoWork: a daemon that drains (shutting down while
// it finishes a long job) refuses new work with ErrDraining, says so in
// GetStatus, and a client of several daemons sends everything new to the
// other one, the request whose id was placed on the draining daemon too.
func TestDrainingDaemonGetsNoWork(t *testing.T) {
	ds := startDaemons(t, 2)
	drainer, other := ds[0], ds[1]
	c, err := client.DialDaemons(addrs(ds))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	direct, err := client.Dial(drainer.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Submit(client.OnDaemon(ctx, drainer.addr), testReq("held", testkind.Options{SynthesisDelayMS: 60_000})); err != nil {
		t.Fatal(err)
	}
	for drainer.eng.Status().Pipeline.Synthesizing != 1 {
		time.Sleep(5 * time.Millisecond)
	}
	sctx, endDrain := context.WithTimeout(context.Background(), time.Minute)
	defer endDrain()
	stopped := make(chan struct{})
	go func() {
		drainer.srv.Shutdown(sctx)
		close(stopped)
	}()
	for !drainer.eng.Status().Draining {
		time.Sleep(5 * time.Millisecond)
	}

	_, err = direct.Prove(ctx, testReq("direct", testkind.Options{}))
	if !errors.Is(err, client.ErrDraining) || !client.IsDraining(err) || status.Code(err) != codes.Unavailable ||
		!strings.Contains(err.Error(), drainer.addr) {
		t.Errorf("Prove on the draining daemon: %v, want ErrDraining naming %s (Unavailable)", err, drainer.addr)
	}
	if _, err := direct.Submit(ctx, testReq("direct", testkind.Options{})); !errors.Is(err, client.ErrDraining) {
		t.Errorf("Submit on the draining daemon: %v, want ErrDraining", err)
	}
	if st, err := direct.Status(ctx); err != nil || !st.GetDraining() {
		t.Errorf("GetStatus of the draining daemon: draining %v, %v", st.GetDraining(), err)
	}

	// "held" was placed on the draining daemon; the same id now runs on
	// the other one (a new job there), as does everything else.
	if _, err := c.Prove(ctx, testReq("held", testkind.Options{})); err != nil {
		t.Fatalf("Prove of the id placed on the draining daemon: %v", err)
	}
	ids := proveAll(c, "during", 4, testkind.Options{})
	ids["held"] = nil
	for id, err := range ids {
		if pl, _ := c.Placement(id); err != nil || pl.Daemon != other.addr {
			t.Errorf("%s while the other daemon drains: %v, placed %+v", id, err, pl)
		}
	}
	if st, err := c.Status(ctx); err != nil || st.GetDraining() {
		t.Errorf("fleet status with one of two daemons draining: draining %v, %v", st.GetDraining(), err)
	}
	endDrain()
	<-stopped
}

// The fleet drains only when every daemon does.
func TestSumStatusDraining(t *testing.T) {
	on, off := &cuzkv1.GetStatusResponse{Draining: true}, &cuzkv1.GetStatusResponse{}
	for _, c := range []struct {
		in   []*cuzkv1.GetStatusResponse
		want bool
	}{
		{nil, false},
		{[]*cuzkv1.GetStatusResponse{on}, true},
		{[]*cuzkv1.GetStatusResponse{on, on}, true},
		{[]*cuzkv1.GetStatusResponse{on, off}, false},
		{[]*cuzkv1.GetStatusResponse{off, on}, false},
	} {
		if got := client.SumStatus(c.in...).GetDraining(); got != c.want {
			t.Errorf("%v: draining %v, want %v", c.in, got, c.want)
		}
	}
}
