package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// unitFile is a systemd unit as key → values per section ("Service.User").
type unitFile map[string][]string

func readUnit(t *testing.T, path string) unitFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := unitFile{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.Trim(line, "[]")
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: %q is not key=value in a section", path, n, line)
			}
			u[section+"."+k] = append(u[section+"."+k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// one returns the single value of key.
func (u unitFile) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 || u[key][0] == "" {
		t.Fatalf("unit: %s = %q, want one value", key, u[key])
	}
	return u[key][0]
}

// TestOperatorFiles keeps docs/cuzk.service and docs/cuzk-operator.toml
// from rotting: the config parses strictly with no warnings, the unit's
// environment and runtime directory agree with it, and the daemon starts
// with the unit's command line and that config (only the socket paths and
// the parameter directory moved to temporary ones), serves gRPC and the
// status page, and stops on its signal.
func TestOperatorFiles(t *testing.T) {
	const unitPath, cfgPath = "../../docs/cuzk.service", "../../docs/cuzk-operator.toml"
	u := readUnit(t, unitPath)
	for _, key := range []string{"Unit.Description", "Service.User", "Service.Group", "Service.Restart", "Service.RestartSec",
		"Service.LimitNOFILE", "Install.WantedBy"} {
		u.one(t, key)
	}
	if r := u.one(t, "Service.Restart"); r != "on-failure" && r != "always" {
		t.Errorf("Restart=%s", r)
	}
	env := map[string]string{}
	for _, e := range u["Service.Environment"] {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
	}
	paramDir := env[filecoin.ParameterCacheEnv]
	if !filepath.IsAbs(paramDir) {
		t.Fatalf("unit: Environment=%s=%q", filecoin.ParameterCacheEnv, paramDir)
	}

	// The config: strict parse, no warnings, and the parameter directory
	// is the unit's variable's (the file leaves param_cache out).
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if w := cfg.Warnings(); len(w) != 0 {
		t.Errorf("%s warnings: %q", cfgPath, w)
	}
	cfg.ApplyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.SRS.ParamCache != paramDir {
		t.Errorf("param_cache %q, the unit says %s", cfg.SRS.ParamCache, paramDir)
	}
	// The socket lies in the unit's runtime directory.
	sock, ok := strings.CutPrefix(cfg.Daemon.Listen, "unix://")
	if want := "/run/" + u.one(t, "Service.RuntimeDirectory"); !ok || filepath.Dir(sock) != want {
		t.Errorf("listen %q is not a socket in the unit's RuntimeDirectory %s", cfg.Daemon.Listen, want)
	}
	if host, _, err := net.SplitHostPort(cfg.Daemon.StatusListen); err != nil || !net.ParseIP(host).IsLoopback() {
		t.Errorf("status_listen %q is not on loopback", cfg.Daemon.StatusListen)
	}
	if _, err := cfg.Memory.ResolveTotalBudget(func() (uint64, error) { return 256 << 30, nil }); err != nil {
		t.Error(err)
	}

	// ExecStart: cuzk daemon --config /etc/cuzk/cuzk.toml ...; systemd
	// waits longer than the daemon's own shutdown deadline.
	argv := strings.Fields(u.one(t, "Service.ExecStart"))
	if len(argv) < 4 || filepath.Base(argv[0]) != "cuzk" || argv[1] != "daemon" || argv[2] != "--config" {
		t.Fatalf("ExecStart=%q", argv)
	}
	args := argv[1:]
	args[2] = cfgPath
	shutdown := 30 * time.Second
	for i, a := range args {
		if a == "--shutdown-timeout" && i+1 < len(args) {
			if shutdown, err = time.ParseDuration(args[i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if stop, err := time.ParseDuration(u.one(t, "Service.TimeoutStopSec") + "s"); err != nil || stop <= shutdown {
		t.Errorf("TimeoutStopSec=%v (%v) must exceed --shutdown-timeout %v", stop, err, shutdown)
	}

	dir, err := os.MkdirTemp("", "cuzko") // short: unix socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// systemd makes the unit's RuntimeDirectory before ExecStart; the
	// daemon makes no directory of its own.
	runtimeDir := filepath.Join(dir, u.one(t, "Service.RuntimeDirectory"))
	if err := os.Mkdir(runtimeDir, 0o750); err != nil {
		t.Fatal(err)
	}
	addr := "unix://" + filepath.Join(runtimeDir, "cuzk.sock")
	args = append(args, "--listen", addr, "--status-listen", "127.0.0.1:0", "--params", dir)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs testkit.SyncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, &logs, &logs) }()
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := c.Status(ctx)
		if err == nil && len(st.GetQueues()) > 0 {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("daemon exited with %d:\n%s", code, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not serving: %v\n%s", err, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The status page answers on the status listener.
	var status string
	for status == "" && time.Now().Before(deadline) {
		for _, line := range strings.Split(logs.String(), "\n") {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "status HTTP listening" {
				status = l.Addr
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get("http://" + status + "/")
	if err != nil {
		t.Fatalf("status page at %q: %v", status, err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "<title>cuzk daemon status</title>") {
		t.Errorf("GET /: %s\n%.200s", resp.Status, page)
	}
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d:\n%s", code, logs.String())
		}
	case <-time.After(shutdown):
		t.Fatalf("daemon did not stop:\n%s", logs.String())
	}
	// format = "json": every line the daemon logged is a JSON object.
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !strings.HasPrefix(line, "{") {
			t.Errorf("log line %q", line)
		}
	}
}
