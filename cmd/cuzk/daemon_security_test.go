package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// TestDaemonRefusesInsecureTCP: credentials that do not hold together
// stop the daemon before it listens, with an error naming the key and the
// remedy.
func TestDaemonRefusesInsecureTCP(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"daemon", "--listen", "127.0.0.1:0", "--tls-cert", "/c"}, "daemon.tls_cert_file and daemon.tls_key_file are set together"},
		{[]string{"daemon", "--tls-client-ca", "/ca"}, "client certificates need TLS"},
		{[]string{"daemon", "--listen", "127.0.0.1:0", "--token-file", short}, "token is 3 characters, want at least 32"},
		{[]string{"daemon", "--listen", "127.0.0.1:0", "--token-file", empty}, "no token in it"},
		{[]string{"daemon", "--listen", "127.0.0.1:0", "--token-file", filepath.Join(dir, "missing")}, "no such file"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestDaemonMovesOffLoopback: listeners off loopback that would
// authenticate nobody listen on loopback at the same port instead, with
// one WARN each naming the two ways to serve other machines; the status
// listener's --status-listen "" turns it off.
func TestDaemonMovesOffLoopback(t *testing.T) {
	params := t.TempDir()
	started := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var logs testkit.SyncBuffer
		done := make(chan int, 1)
		go func() { done <- run(ctx, append(args, "--params", params), &logs, &logs) }()
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(logs.String(), "cuzk daemon started") {
			select {
			case code := <-done:
				t.Fatalf("%v: exit %d before it started:\n%s", args, code, logs.String())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%v: not started:\n%s", args, logs.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		if code := <-done; code != exitOK {
			t.Fatalf("%v: exit %d:\n%s", args, code, logs.String())
		}
		return logs.String()
	}
	logs := started("daemon", "--listen", "0.0.0.0:0", "--status-listen", "[::]:0")
	for _, want := range []string{
		`level=WARN msg="SECURITY: daemon.listen = \"0.0.0.0:0\" authenticates nobody, so the daemon listens on 127.0.0.1:0 instead: this machine only`,
		"To serve other machines, authenticate callers: daemon.token_file (bearer tokens) or daemon.tls_cert_file, tls_key_file and tls_client_ca_file (client certificates) (docs/security.md), or set daemon.insecure_tcp = true (--insecure-tcp) on a network that is already private",
		`level=WARN msg="SECURITY: daemon.status_listen = \"[::]:0\" authenticates nobody, so the daemon listens on [::1]:0 instead`,
		"listen=127.0.0.1:0 status_listen=[::1]:0 ",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if n := strings.Count(logs, "SECURITY:"); n != 2 {
		t.Errorf("%d SECURITY lines, want one per listener:\n%s", n, logs)
	}

	// A config's status listener, turned off on the command line.
	cfg := filepath.Join(t.TempDir(), "cuzk.toml")
	if err := os.WriteFile(cfg, []byte("[daemon]\nstatus_listen = \"127.0.0.1:0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	logs = started("daemon", "--config", cfg, "--listen", "127.0.0.1:0", "--status-listen", "")
	if !strings.Contains(logs, "status_listen=\"\" ") || strings.Contains(logs, "listener=status_listen") {
		t.Errorf("--status-listen \"\" left the status listener on:\n%s", logs)
	}
}

// freeAddr returns a loopback address nothing listens on (for a moment).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestDaemonTokenOverTCP runs `cuzk daemon` on loopback TCP with a token
// file: calls without the token are Unauthenticated, `cuzk bench single
// --token-file` proves; then --insecure-tcp, and then no flag at all (a
// loopback address), start without credentials and say so loudly.
func TestDaemonTokenOverTCP(t *testing.T) {
	params := t.TempDir()
	if err := testkind.WriteParams(params, 10); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	const tok = "2a8114787509e20e52a5f343983c5c8fc1d6a14157bf0320"
	if err := os.WriteFile(tokens, []byte("bench "+tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := func(extra ...string) (addr string, stop func() string) {
		t.Helper()
		addr = freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		var stderr testkit.SyncBuffer
		exited := make(chan struct{})
		args := append([]string{"daemon", "--listen", addr, "--params", params, "--enable-test-circuits"}, extra...)
		go func() {
			run(ctx, args, &bytes.Buffer{}, &stderr)
			close(exited)
		}()
		return addr, func() string {
			cancel()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatal("daemon did not stop")
			}
			return stderr.String()
		}
	}

	addr, stop := start("--token-file", tokens)
	c, err := client.DialWith(addr, client.Credentials{TokenFile: tokens})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	waitServing(t, c, nil)
	plain, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Status(context.Background()); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without token: %v, want Unauthenticated", err)
	}
	code, out, errOut := runCmd(t, "bench", "single", "-t", "test", "--log-rows", "10", "--addr", addr)
	if code == 0 || !strings.Contains(out+errOut, "code = Unauthenticated") {
		t.Errorf("bench single without token: code %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "bench", "single", "-t", "test", "--log-rows", "10", "--addr", addr, "--token-file", tokens)
	if code != 0 {
		t.Errorf("bench single --token-file: code %d\n%s%s", code, out, errOut)
	}
	logs := stop()
	if want := `listener=listen addr=` + addr + ` guarded_by="bearer token"`; !strings.Contains(logs, want) {
		t.Errorf("log lacks %q:\n%s", want, logs)
	}
	// Loopback: the token does not cross a network, so no clear-text warning.
	if strings.Contains(logs, "clear text") {
		t.Errorf("clear-text warning for a loopback listener:\n%s", logs)
	}

	addr, stop = start("--insecure-tcp")
	c2, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	waitServing(t, c2, nil)
	logs = stop()
	if !strings.Contains(logs, `level=WARN msg="SECURITY: daemon.insecure_tcp = true: daemon.listen = \"`+addr+`\" authenticates nobody`) {
		t.Errorf("insecure_tcp without its warning:\n%s", logs)
	}

	// Loopback without any credentials or insecure_tcp: what Curio's
	// client can use (it sends no token); allowed, with its own warning.
	addr, stop = start()
	c3, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	waitServing(t, c3, nil)
	logs = stop()
	if !strings.Contains(logs, `level=WARN msg="SECURITY: daemon.listen = \"`+addr+`\" authenticates nobody: every local user and process can submit`) {
		t.Errorf("unauthenticated loopback listener without its warning:\n%s", logs)
	}
	if !strings.Contains(logs, `guarded_by="loopback address only"`) {
		t.Errorf("listener security line lacks the loopback guard:\n%s", logs)
	}
}
