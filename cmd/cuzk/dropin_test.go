package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/client"
)

// The Rust cuzk's files, copied from Curio (see their headers).
const (
	rustExampleConfig = "testdata/rust-cuzk.example.toml"
	rustUnitFile      = "testdata/rust-cuzk.service"
)

// unitArgs is the unit's command line for our binary: the program dropped,
// the Rust cuzk's config path replaced by cfgPath.
func unitArgs(t *testing.T, cfgPath string) []string {
	t.Helper()
	// The unit Curio documents quotes nothing: blanks split it.
	argv := strings.Fields(readUnit(t, rustUnitFile).one(t, "Service.ExecStart"))
	if filepath.Base(argv[0]) != "cuzk" {
		t.Fatalf("unit runs %q, not cuzk", argv[0])
	}
	args := argv[1:]
	replaced := false
	for i, a := range args {
		if a == RustDefaultConfig {
			args[i], replaced = cfgPath, true
		}
	}
	if !replaced {
		t.Fatalf("unit command line %q does not name %s", argv, RustDefaultConfig)
	}
	return args
}

// rustExamplePort is the port of the Rust example config's listen.
const rustExamplePort = "9820"

// holdPort serialises the tests that must listen on a fixed loopback port
// (other checkouts' test runs on this machine may want it too) and skips
// when something else holds the port.
func holdPort(t *testing.T, port string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "cuzk-test-port-"+port+".lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Skipf("127.0.0.1:%s is in use by another program: %v", port, err)
	}
	l.Close()
}

// TestRustCuzkDropIn starts the binary as Curio's documented systemd unit
// starts the Rust cuzk, with the Rust cuzk's example config: verbatim it
// names 0.0.0.0:9820, unauthenticated, so it listens on 127.0.0.1:9820
// (Curio's documented address for a co-located daemon) and says so in one
// WARN; moved to another loopback port, by the Rust -l flag or by editing
// listen, it listens there. Each way it warns about the keys that do
// nothing here, answers GetStatus, and exits 0 on SIGTERM as systemd stops
// it.
func TestRustCuzkDropIn(t *testing.T) {
	example, err := os.ReadFile(rustExampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(example), "\nlisten = \"0.0.0.0:"+rustExamplePort+"\"\n") {
		t.Fatal("the example config no longer listens on 0.0.0.0:9820; this test's edits assume it does")
	}
	dir := t.TempDir()
	verbatim := filepath.Join(dir, "cuzk.toml")
	if err := os.WriteFile(verbatim, example, 0o644); err != nil {
		t.Fatal(err)
	}

	// serve runs the unit's command line with args and checks that the
	// daemon serves on addr, having logged security, one WARN with the
	// "SECURITY:" prefix.
	serve := func(t *testing.T, addr, security string, args []string) {
		t.Helper()
		d := startProc(t, args...)
		c, err := client.Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		waitServing(t, c, d.exited)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		st, err := c.Status(ctx)
		cancel()
		if err != nil {
			t.Fatalf("GetStatus: %v", err)
		}
		if st.GetTotalProofsCompleted() != 0 || st.GetTotalProofsFailed() != 0 {
			t.Errorf("fresh daemon reports proofs: %v", st)
		}
		if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if !d.wait(30 * time.Second) {
			t.Fatal("daemon did not stop on SIGTERM")
		}
		logs := d.stderr.String()
		if d.err != nil {
			t.Fatalf("daemon exit: %v\n%s", d.err, logs)
		}
		for _, want := range []string{
			// Keys of the Rust engine that do nothing here are warned about.
			`level=WARN msg="config: gpus.gpu_threads is set but has no effect`,
			`level=WARN msg="config: gpus.gpu_workers_per_device is set but has no effect`,
			`level=WARN msg="SECURITY: ` + security,
			// The example's own values took effect.
			"listen=" + addr + " ", "param_cache=/data/zk/params ",
			"cuzk daemon stopped",
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("log lacks %q:\n%s", want, logs)
			}
		}
		if n := strings.Count(logs, `level=WARN msg="SECURITY: `); n != 1 {
			t.Errorf("%d SECURITY warnings, want one:\n%s", n, logs)
		}
		// The example's parameter directory holds no parameters here: said
		// at start-up, not at the first job.
		warned := false
		for _, l := range strings.Split(logs, "\n") {
			warned = warned || strings.Contains(l, "level=WARN msg=\"parameter ") && strings.Contains(l, " dir=/data/zk/params ")
		}
		if !warned {
			t.Errorf("no start-up WARN about the parameters in /data/zk/params:\n%s", logs)
		}
	}

	t.Run("verbatim", func(t *testing.T) {
		holdPort(t, rustExamplePort)
		serve(t, "127.0.0.1:"+rustExamplePort, `daemon.listen = \"0.0.0.0:9820\" authenticates nobody, so the daemon listens on 127.0.0.1:9820 instead: this machine only`,
			unitArgs(t, verbatim))
	})
	t.Run("listen flag", func(t *testing.T) {
		addr := freeAddr(t)
		serve(t, addr, `daemon.listen = \"`+addr+`\" authenticates nobody: every local user`, append(unitArgs(t, verbatim), "-l", addr))
	})
	t.Run("listen edited", func(t *testing.T) {
		addr := freeAddr(t)
		edited := filepath.Join(t.TempDir(), "cuzk.toml")
		cfg := strings.Replace(string(example), "\nlisten = \"0.0.0.0:9820\"\n", "\nlisten = \""+addr+"\"\n", 1)
		if err := os.WriteFile(edited, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		serve(t, addr, `daemon.listen = \"`+addr+`\" authenticates nobody: every local user`, unitArgs(t, edited))
	})
}

// TestRustStyleCommandLine: a command line that starts with a flag is
// `cuzk daemon` with the Rust cuzk's short flags and default config path.
// Each case fails before the daemon serves, in a way that shows which
// file and which address were used: the config allows an address off
// loopback (insecure_tcp) that this machine does not have, so listening
// fails (exit 1) naming it.
func TestRustStyleCommandLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	offLoopback := write("off.toml", "[daemon]\nlisten = \"192.0.2.7:9820\"\ninsecure_tcp = true\n")
	typo := write("typo.toml", "[daemon]\nlistn = \"127.0.0.1:9820\"\n")
	missing := filepath.Join(dir, "missing.toml")
	listened := func(addr string) string { return "cannot listen: daemon.listen: server: listen " + addr + ": " }
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--config", offLoopback}, exitRuntime, listened("192.0.2.7:9820")},
		{[]string{"-c", offLoopback}, exitRuntime, listened("192.0.2.7:9820")},
		{[]string{"--config=" + offLoopback}, exitRuntime, listened("192.0.2.7:9820")},
		{[]string{"-c", offLoopback, "-l", "192.0.2.8:1"}, exitRuntime, listened("192.0.2.8:1")},
		{[]string{"-c", offLoopback, "--listen", "192.0.2.9:1"}, exitRuntime, listened("192.0.2.9:1")},
		{[]string{"-c", typo}, exitError, "daemon.listn"},
		{[]string{"-c", missing}, exitError, "no such file"},
		{[]string{"-c", offLoopback, "--log-level", "loud"}, exitError, "logging.level"},
		{[]string{"--no-such-flag"}, exitError, "flag provided but not defined: -no-such-flag"},
		// The same through the subcommand, which takes the short flags too.
		{[]string{"daemon", "-c", offLoopback, "-l", "192.0.2.8:2"}, exitRuntime, listened("192.0.2.8:2")},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("cuzk %s: exit %d, stderr %q, want %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

// TestRustDefaultConfig: without --config the Rust-style command line
// reads the default path when it exists and otherwise starts from the
// built-in defaults, saying so; a bare `cuzk` starts the daemon from the
// default path when it exists, as the Rust cuzk does, and lists the
// commands when it does not.
func TestRustDefaultConfig(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "cuzk.toml")
	if err := os.WriteFile(def, []byte("[daemon]\nlisten = \"192.0.2.7:9820\"\ninsecure_tcp = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const listened = "cannot listen: daemon.listen: server: listen 192.0.2.7:9820: "
	var errOut strings.Builder
	if code := startDaemon(context.Background(), "", []string{"--log-level", "info"}, def, &errOut); code != exitRuntime ||
		!strings.Contains(errOut.String(), listened) {
		t.Errorf("default config present: exit %d, stderr %q; want it read (its listener tried)", code, errOut.String())
	}
	errOut.Reset()
	// Absent: the built-in defaults, with a note; an off-loopback -l
	// moved to loopback and a socket directory that does not exist show
	// the daemon got as far as the listeners.
	absent := filepath.Join(dir, "absent.toml")
	code := startDaemon(context.Background(), "", []string{"-l", "unix://" + filepath.Join(dir, "no-such-dir", "cuzk.sock")}, absent, &errOut)
	if code != exitRuntime || !strings.Contains(errOut.String(), "no --config and "+absent+" does not exist: using the built-in defaults") ||
		!strings.Contains(errOut.String(), "the socket's directory does not exist: "+filepath.Join(dir, "no-such-dir")) {
		t.Errorf("default config absent: exit %d, stderr %q", code, errOut.String())
	}

	t.Run("bare cuzk", func(t *testing.T) {
		var out, errOut strings.Builder
		if code := runBare(context.Background(), def, &out, &errOut); code != exitRuntime || !strings.Contains(errOut.String(), listened) {
			t.Errorf("bare cuzk with %s: exit %d, stderr %q; want the daemon started from it", def, code, errOut.String())
		}
		errOut.Reset()
		if code := runBare(context.Background(), absent, &out, &errOut); code != exitError || !strings.Contains(errOut.String(), "usage: cuzk <command>") ||
			!strings.Contains(errOut.String(), "cuzk alone starts the daemon too when "+RustDefaultConfig+" exists") {
			t.Errorf("bare cuzk without %s: exit %d, stderr %q; want the usage", absent, code, errOut.String())
		}
		// Through run, as main calls it: the default path is the Rust one.
		if _, err := os.Stat(RustDefaultConfig); errors.Is(err, os.ErrNotExist) {
			if code, _, stderr := runCmd(t); code != exitError || !strings.Contains(stderr, "usage: cuzk <command>") {
				t.Errorf("cuzk: exit %d, stderr %q", code, stderr)
			}
		}
	})
}

// TestBusyPort: a second daemon on a port in use exits 1 (the machine's
// state, not a bad command line) with the bind error, naming the port as
// in use and what may hold it, before its engine
// starts, so it logs no engine shutting down.
func TestBusyPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()
	code, _, stderr := runCmd(t, "daemon", "--listen", addr, "--params", t.TempDir())
	if code != exitRuntime || !strings.Contains(stderr, "cuzk daemon: daemon: cannot listen: daemon.listen: server: "+addr+" is in use by another program, another cuzk daemon perhaps") ||
		!strings.Contains(stderr, "address already in use") {
		t.Errorf("busy port: exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(stderr, "engine") {
		t.Errorf("the engine started before the bind failed:\n%s", stderr)
	}
}
