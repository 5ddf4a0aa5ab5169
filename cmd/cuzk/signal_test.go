package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// The real binary, built once per test run (tests that send signals or
// kill -9 need a process of their own); TestMain removes binDir.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// cuzkBinary builds the cuzk binary once and returns its path. Tests that
// need it are skipped under -short.
func cuzkBinary(t *testing.T) string {
	t.Helper()
	testenv.Short(t, "builds the cuzk binary")
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "cuzk-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "cuzk")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = &buildError{err, out}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

// proc is a cuzk process started by a test.
type proc struct {
	cmd    *exec.Cmd
	stderr *testkit.SyncBuffer
	exited chan struct{}
	err    error // cmd.Wait's, once exited is closed
}

func startProc(t *testing.T, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(cuzkBinary(t), args...), stderr: &testkit.SyncBuffer{}, exited: make(chan struct{})}
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// wait waits up to d for the process to exit and reports whether it did.
func (p *proc) wait(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// TestDaemonStaleSocketAfterKill: a daemon killed with SIGKILL leaves its
// socket file behind; the next daemon on the same address removes it,
// serves, and removes its own socket when it stops on SIGTERM.
func TestDaemonStaleSocketAfterKill(t *testing.T) {
	cfgPath, addr := daemonFixture(t)
	sock := strings.TrimPrefix(addr, "unix://")
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	first := startProc(t, "daemon", "--config", cfgPath, "--enable-test-circuits")
	waitServing(t, c, first.exited)
	if err := first.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !first.wait(10 * time.Second) {
		t.Fatal("SIGKILL did not end the daemon")
	}
	if st, err := os.Lstat(sock); err != nil || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("no stale socket after kill -9 (%v): the test would prove nothing", err)
	}

	second := startProc(t, "daemon", "--config", cfgPath, "--enable-test-circuits")
	waitServing(t, c, second.exited)
	if _, err := c.Prove(context.Background(), client.TestRequest("after-kill", 10, nil)); err != nil {
		t.Fatalf("prove on the restarted daemon: %v\n%s", err, second.stderr.String())
	}
	second.cmd.Process.Signal(syscall.SIGTERM)
	if !second.wait(30 * time.Second) {
		t.Fatal("daemon did not stop on SIGTERM")
	}
	if second.err != nil {
		t.Fatalf("daemon exit: %v\n%s", second.err, second.stderr.String())
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Fatal("socket left behind after SIGTERM")
	}
}

// TestDaemonSIGTERMDrains: SIGTERM while a job runs, with a deadline it
// can meet: the job completes, its caller gets the proof, new work is
// refused meanwhile, and the daemon exits 0 without its socket.
func TestDaemonSIGTERMDrains(t *testing.T) {
	cfgPath, addr := daemonFixture(t)
	d := startProc(t, "daemon", "--config", cfgPath, "--enable-test-circuits", "--shutdown-timeout", "60s")
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitServing(t, c, d.exited)
	type result struct {
		proof []byte
		err   error
	}
	res := make(chan result, 1)
	go func() {
		r, err := c.Prove(context.Background(), client.TestRequest("drained", 10, []byte(`{"partitions":4,"synthesis_delay_ms":400}`)))
		res <- result{r.GetProof(), err}
	}()
	waitFor := func(what string, cond func() bool) {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("timed out waiting for %s", what)
	}
	waitFor("the job to run", func() bool { return strings.Contains(d.stderr.String(), `msg="job running" job=drained`) })
	sent := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	waitFor("the shutdown to begin", func() bool { return strings.Contains(d.stderr.String(), "signal received") })
	// A second client: the server no longer takes calls.
	late, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, lerr := late.Prove(lctx, client.TestRequest("late", 10, nil))
	lcancel()
	if lerr == nil {
		t.Error("a request sent after SIGTERM was proved")
	}
	r := <-res
	if r.err != nil || len(r.proof) != 4*192 {
		t.Fatalf("drained job: %d proof bytes, %v\n%s", len(r.proof), r.err, d.stderr.String())
	}
	if !d.wait(30 * time.Second) {
		t.Fatal("daemon still running after the drained job")
	}
	if d.err != nil {
		t.Fatalf("daemon exit: %v\n%s", d.err, d.stderr.String())
	}
	t.Logf("drained in %v after SIGTERM; a late request got: %v", time.Since(sent).Round(time.Millisecond), status.Code(lerr))
	if _, err := os.Lstat(strings.TrimPrefix(addr, "unix://")); err == nil {
		t.Fatal("socket left behind")
	}
	if status.Code(lerr) == codes.OK {
		t.Fatal("late request not refused")
	}
}

// TestParamsGenStopsOnSignal: SIGINT while `cuzk params gen` multiplies
// the 2 KiB parameters' points ends the process within seconds, with an
// error, and leaves neither a .params nor a .vk nor a temporary file in
// the target directory. The signal comes at the start of the first point
// phase (a: about 5 s of work on a quiet 2-core machine, a third of the
// file already written) rather than at h, 14 s in: the same
// mid-multiplication, write-in-progress state, at a tenth of the test's
// time.
func TestParamsGenStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	p := startProc(t, "params", "gen", "--sector-size", "2KiB", "--dir", dir)
	// Progress lines: "[  1.0s] params gen porep-2k: a   0% (0 of ...".
	for end := time.Now().Add(5 * time.Minute); !strings.Contains(p.stderr.String(), ": a "); time.Sleep(50 * time.Millisecond) {
		select {
		case <-p.exited:
			t.Fatalf("params gen exited before its first point phase: %v\n%s", p.err, p.stderr.String())
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("no point phase after 5 minutes:\n%s", p.stderr.String())
		}
	}
	sent := time.Now()
	p.cmd.Process.Signal(os.Interrupt)
	if !p.wait(10 * time.Second) {
		t.Fatalf("params gen still running 10 s after SIGINT:\n%s", p.stderr.String())
	}
	took := time.Since(sent)
	var ee *exec.ExitError
	if p.err == nil || !asExit(p.err, &ee) || ee.ExitCode() != exitError || !strings.Contains(p.stderr.String(), "context canceled") {
		t.Fatalf("exit %v after SIGINT:\n%s", p.err, p.stderr.String())
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".params") || strings.HasSuffix(n, ".vk") || strings.Contains(n, ".tmp-") {
			t.Errorf("left behind: %s", n)
		}
	}
	t.Logf("params gen stopped %v after SIGINT", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("params gen took %v to stop", took)
	}
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

// lineWatcher is an io.Writer that closes seen once a line containing
// want has been written.
type lineWatcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func newLineWatcher(want string) *lineWatcher {
	return &lineWatcher{want: want, seen: make(chan struct{})}
}

func (w *lineWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), w.want) {
			w.once.Do(func() { close(w.seen) })
		}
	}
	return len(p), nil
}

func (w *lineWatcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// runUntil runs a command in-process and cancels its context (what
// SIGINT/SIGTERM do in main) once its stderr shows a line containing at;
// it returns the exit code, stderr and how long the command took to
// return after the cancellation.
func runUntil(t *testing.T, at string, limit time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newLineWatcher(at)
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, io.Discard, w) }()
	select {
	case <-w.seen:
	case code := <-done:
		t.Fatalf("%v returned %d before %q:\n%s", args, code, at, w.String())
	case <-time.After(limit):
		t.Fatalf("%v: no %q within %v:\n%s", args, at, limit, w.String())
	}
	sent := time.Now()
	cancel()
	select {
	case code := <-done:
		return code, w.String(), time.Since(sent)
	case <-time.After(time.Minute):
		t.Fatalf("%v still running a minute after cancellation:\n%s", args, w.String())
	}
	return 0, "", 0
}

// TestDemoStopsOnCancel: the demo cancelled while it generates its
// parameters returns promptly with an error and writes no parameter file.
func TestDemoStopsOnCancel(t *testing.T) {
	testenv.Short(t, "synthesises the 2 KiB circuit")
	dir := t.TempDir()
	code, stderr, took := runUntil(t, "params gen: fold u v", 5*time.Minute, "demo", "--params", dir)
	if code != exitError || !strings.Contains(stderr, "context canceled") {
		t.Fatalf("demo after cancellation: exit %d\n%s", code, stderr)
	}
	// A setup pass checks the context every 2^14 rows (milliseconds).
	if took > 5*time.Second {
		t.Errorf("demo took %v to stop", took)
	}
	t.Logf("demo stopped %v after cancellation", took.Round(time.Millisecond))
	if entries, _ := os.ReadDir(dir); len(entries) > 1 { // the lock file
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("left behind: %v", names)
	}
}

// TestSealStopsOnCancel: sealing an 8 MiB sector stops promptly when
// cancelled and writes nothing.
func TestSealStopsOnCancel(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"seal", "--sector-size", "8MiB", "--out", out}, io.Discard, &stderr) }()
	time.Sleep(300 * time.Millisecond)
	sent := time.Now()
	cancel()
	select {
	case code := <-done:
		if code != exitError || !strings.Contains(stderr.String(), "context canceled") {
			t.Fatalf("seal after cancellation: exit %d\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("seal still running 30 s after cancellation")
	}
	t.Logf("seal stopped %v after cancellation", time.Since(sent).Round(time.Millisecond))
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Fatalf("seal left %d files", len(entries))
	}
}

// TestBenchStopsOnCancel: a bench run waiting for a long proof returns
// promptly when cancelled, and the daemon cancels the job its caller left.
func TestBenchStopsOnCancel(t *testing.T) {
	d := startBenchDaemon(t, "", "2GiB")
	ctx, cancel := context.WithCancel(context.Background())
	var out, stderr testkit.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"bench", "single", "--addr", d.addr, "-t", "test", "--request-id", "left",
			"--test-options", `{"partitions":8,"synthesis_delay_ms":2000}`}, &out, &stderr)
	}()
	for end := time.Now().Add(20 * time.Second); !strings.Contains(d.logs.String(), `msg="job running" job=left`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the job never ran:\n%s", d.logs.String())
		}
	}
	sent := time.Now()
	cancel()
	select {
	case code := <-done:
		if code == exitOK {
			t.Fatalf("bench single succeeded after cancellation:\n%s", out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("bench single still running 10 s after cancellation")
	}
	t.Logf("bench single stopped %v after cancellation", time.Since(sent).Round(time.Millisecond))
	for end := time.Now().Add(10 * time.Second); !strings.Contains(d.logs.String(), `msg="job cancelled" job=left`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the daemon kept the job its caller left:\n%s", d.logs.String())
		}
	}
}
