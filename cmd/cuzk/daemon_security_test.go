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

// TestDaemonRefusesInsecureTCP: a TCP listener off loopback that would
// authenticate nobody, or credentials that do not hold together, stop the
// daemon before it listens, with an error naming the key and the remedy.
func TestDaemonRefusesInsecureTCP(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	sock := "unix://" + filepath.Join(dir, "cuzk.sock")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"daemon", "--listen", "192.0.2.1:0"}, `unauthenticated TCP listener: daemon.listen = "192.0.2.1:0" would let anyone who can reach it submit and cancel proofs`},
		{[]string{"daemon", "--listen", "0.0.0.0:0"}, "daemon.insecure_tcp = true (cuzk daemon --insecure-tcp) accepts the risk"},
		{[]string{"daemon", "--listen", sock, "--status-listen", "0.0.0.0:0"}, `daemon.status_listen = "0.0.0.0:0" would let anyone who can reach it read /status, /metrics and /debug/pprof`},
		{[]string{"daemon", "--listen", "0.0.0.0:0", "--tls-cert", "/c", "--tls-key", "/k"}, "TLS without daemon.tls_client_ca_file encrypts but authenticates no caller"},
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
