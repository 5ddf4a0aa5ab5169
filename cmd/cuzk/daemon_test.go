package main

import (
	"bytes"
	"context"
	"fmt"
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

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// daemonFixture writes test parameters and a config into fresh directories
// and returns the config path and the socket address.
func daemonFixture(t *testing.T) (cfgPath, addr string) {
	t.Helper()
	params := t.TempDir()
	if err := testkind.WriteParams(params, 10); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("", "cuzkd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	addr = "unix://" + filepath.Join(sockDir, "cuzk.sock")
	cfg := fmt.Sprintf(`
[daemon]
listen = %q

[srs]
param_cache = %q

[memory]
total_budget = "2GiB"

[synthesis]
threads = 1

[engine]
completed_job_ttl = "10m"
`, addr, params)
	cfgPath = filepath.Join(t.TempDir(), "cuzk.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfgPath, addr
}

func waitServing(t *testing.T, c *client.Client, exited <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := c.Status(ctx)
		cancel()
		if err == nil {
			return
		}
		select {
		case <-exited:
			t.Fatal("daemon exited before serving")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not serving: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestDaemonInProcess runs `cuzk daemon` through the command table and
// stops it by cancelling its context (what SIGINT/SIGTERM do in main).
func TestDaemonInProcess(t *testing.T) {
	cfgPath, addr := daemonFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr testkit.SyncBuffer
	done := make(chan int, 1)
	exited := make(chan struct{})
	go func() {
		done <- run(ctx, []string{"daemon", "--config", cfgPath, "--enable-test-circuits", "--log-level", "debug"}, &bytes.Buffer{}, &stderr)
		close(exited)
	}()
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitServing(t, c, exited)
	res, err := c.Prove(context.Background(), client.TestRequest("in-process", 10, nil))
	if err != nil || len(res.GetProof()) != 192 {
		t.Fatalf("prove: %v %v", res, err)
	}
	// Unknown kinds are refused; every Filecoin kind is served and checks
	// its input.
	if _, err := c.Prove(context.Background(), &cuzkv1.SubmitProofRequest{ProofKind: 5}); status.Code(err) != codes.InvalidArgument ||
		!strings.Contains(err.Error(), "invalid proof_kind: 5") {
		t.Fatalf("unknown kind: %v", err)
	}
	for kind, field := range map[cuzkv1.ProofKind]string{
		cuzkv1.ProofKind_WINNING_POST:          "winning-post: randomness",
		cuzkv1.ProofKind_WINDOW_POST_PARTITION: "window-post: randomness",
		cuzkv1.ProofKind_SNAP_DEALS_UPDATE:     "snap-update: comm_r_old",
	} {
		req := &cuzkv1.SubmitProofRequest{ProofKind: kind, RegisteredProof: 0}
		if kind == cuzkv1.ProofKind_WINDOW_POST_PARTITION {
			req.RegisteredProof = 10
		}
		if _, err := c.Prove(context.Background(), req); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), field) {
			t.Fatalf("malformed %v request: %v", kind, err)
		}
	}
	if _, err := c.Prove(context.Background(), &cuzkv1.SubmitProofRequest{ProofKind: cuzkv1.ProofKind_POREP_SEAL_COMMIT, RegisteredProof: 5,
		VanillaProof: []byte(`{"SectorNum":1}`)}); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "porep") {
		t.Fatalf("malformed PoRep request: %v", err)
	}
	st, err := os.Stat(strings.TrimPrefix(addr, "unix://"))
	if err != nil || st.Mode().Perm() != 0o660 {
		t.Fatalf("socket: %v %v", st.Mode(), err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit code %d\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("daemon did not stop")
	}
	logs := stderr.String()
	for _, want := range []string{"cuzk daemon started", "LOADING INSECURE TEST PARAMETERS", "job queued", "job running", "job completed",
		"msg=timing", "stage=synthesis", "stage=prove", "stage=finish", "cuzk daemon stopped"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

func TestDaemonFlagsAndConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[memory]\ntotal_budget = \"12 parsecs\"\n"), 0o644)
	typo := filepath.Join(dir, "typo.toml")
	os.WriteFile(typo, []byte("[scheduler]\nmax_bach_size = 2\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"daemon", "--config", filepath.Join(dir, "missing.toml")}, "no such file"},
		{[]string{"daemon", "--config", bad}, "total_budget"},
		{[]string{"daemon", "--config", typo}, `unknown config key "scheduler.max_bach_size"`},
		{[]string{"daemon", "--log-level", "loud"}, "logging.level"},
		{[]string{"daemon", "--listen", "unix://relative"}, "absolute"},
		{[]string{"daemon", "extra"}, "unexpected arguments"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestDaemonSIGTERM runs the real binary: SIGTERM while a job runs ends
// the process within the shutdown deadline, and the client waiting on the
// job gets an error instead of hanging.
func TestDaemonSIGTERM(t *testing.T) {
	bin := cuzkBinary(t)
	cfgPath, addr := daemonFixture(t)
	const deadline = time.Second
	cmd := exec.Command(bin, "daemon", "--config", cfgPath, "--enable-test-circuits", "--shutdown-timeout", deadline.String())
	var stderr testkit.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	defer func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	}()
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitServing(t, c, exited)

	long := client.TestRequest("long", 10, []byte(`{"partitions":60,"synthesis_delay_ms":200}`))
	var wg sync.WaitGroup
	var proveErr error
	var proveDone time.Time
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, proveErr = c.Prove(context.Background(), long)
		proveDone = time.Now()
	}()
	waitFor := func(cond func(*cuzkv1.GetStatusResponse) bool) {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if st, err := c.Status(context.Background()); err == nil && cond(st) {
				return
			}
		}
		t.Fatal("job never started")
	}
	waitFor(func(st *cuzkv1.GetStatusResponse) bool {
		for _, q := range st.GetQueues() {
			if q.GetProofKind() == "test" && q.GetInProgress() == 1 {
				return true
			}
		}
		return false
	})
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(deadline + 10*time.Second):
		t.Fatalf("daemon still running %v after SIGTERM\n%s", time.Since(sent), stderr.String())
	}
	took := time.Since(sent)
	wg.Wait()
	if waitErr != nil {
		t.Errorf("daemon exit: %v\n%s", waitErr, stderr.String())
	}
	if proveErr == nil || status.Code(proveErr) != codes.Unavailable {
		t.Errorf("client got %v, want Unavailable", proveErr)
	}
	if proveDone.Sub(sent) > deadline+5*time.Second {
		t.Errorf("client waited %v after SIGTERM", proveDone.Sub(sent))
	}
	t.Logf("daemon exited %v after SIGTERM; client error: %v", took.Round(time.Millisecond), proveErr)
	if _, err := os.Stat(strings.TrimPrefix(addr, "unix://")); err == nil {
		t.Error("socket file left behind")
	}
}
