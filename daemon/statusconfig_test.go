package daemon_test

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	cuzkv1 "github.com/cuzk-dev/cuzk/api/cuzk/v1"
	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// runToy starts a daemon serving the toy kind with cfg's [daemon] keys
// over a unix socket and a loopback status listener, and returns the
// status address and a client; both end with the test.
func runToy(t *testing.T, edit func(*config.Config)) (string, *client.Client, string) {
	t.Helper()
	dir := t.TempDir()
	kind, _ := toyKind(t, dir)
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + filepath.Join(dir, "cuzk.sock")
	cfg.Daemon.StatusListen = "127.0.0.1:0"
	cfg.SRS.ParamCache = dir
	cfg.Memory.TotalBudget = config.Budget{Size: 4 * config.GiB}
	edit(&cfg)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs testkit.SyncBuffer
	d := startDaemon(t, cfg, daemon.Options{Kinds: []daemon.Kind{kind}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	addr := d.StatusAddr()
	c, err := client.Dial(cfg.Daemon.Listen)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return "http://" + addr.String(), c, dir
}

// startDaemon builds a daemon (New), serves it, and closes it when the
// test ends, checking that it stopped cleanly.
func startDaemon(t *testing.T, cfg config.Config, opt daemon.Options) *daemon.Daemon {
	t.Helper()
	d, err := daemon.New(cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		sctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
		defer stop()
		if err := d.Close(sctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

func statusCode(t *testing.T, url, host string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestStatusHostsAndPprofConfigured: [daemon] status_hosts and pprof reach
// the status listener: a listed name is served, another gets 421, and
// pprof is there only when switched on (issue 34 item 4).
func TestStatusHostsAndPprofConfigured(t *testing.T) {
	base, _, _ := runToy(t, func(c *config.Config) { c.Daemon.StatusHosts = []string{"gpu-box"} })
	for host, want := range map[string]int{"": 200, "gpu-box": 200, "GPU-BOX.:9821": 200, "rebind.example": 421} {
		if c := statusCode(t, base+"/status", host); c != want {
			t.Errorf("Host %q: %d, want %d", host, c, want)
		}
	}
	if c := statusCode(t, base+"/debug/pprof/", ""); c != http.StatusNotFound {
		t.Errorf("pprof off: %d, want 404", c)
	}
	on, _, _ := runToy(t, func(c *config.Config) { c.Daemon.Pprof = true })
	if c := statusCode(t, on+"/debug/pprof/cmdline", ""); c != http.StatusOK {
		t.Errorf("pprof = true: %d, want 200", c)
	}
}

// TestFIFOParamsFailPromptly: a FIFO in place of a circuit's .params file
// fails the job at once, naming it, instead of holding the Prove (and the
// circuit) in open(2); once the file is back, the next job proves
// (issue 34 item 7).
func TestFIFOParamsFailPromptly(t *testing.T) {
	_, c, dir := runToy(t, func(*config.Config) {})
	var params string
	matches, _ := filepath.Glob(filepath.Join(dir, toyCircuit+"*.params"))
	if len(matches) != 1 {
		t.Fatalf("toy parameter files: %v", matches)
	}
	params = matches[0]
	real, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(params)
	if err := unix.Mkfifo(params, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	x := make([]byte, 8)
	binary.LittleEndian.PutUint64(x, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.Prove(ctx, &cuzkv1.SubmitProofRequest{RequestId: "fifo-1", ProofKind: cuzkv1.ProofKind(toy.Kind), VanillaProof: x})
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Fatalf("Prove with a FIFO for parameters: %v, want a prompt failure naming the FIFO", err)
	}
	os.Remove(params)
	if err := os.WriteFile(params, real, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prove(ctx, &cuzkv1.SubmitProofRequest{RequestId: "fifo-2", ProofKind: cuzkv1.ProofKind(toy.Kind), VanillaProof: x}); err != nil {
		t.Fatalf("Prove once the file is back: %v", err)
	}
}
