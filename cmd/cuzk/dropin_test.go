package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
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

// TestRustCuzkDropIn starts the binary as Curio's documented systemd unit
// starts the Rust cuzk, with the Rust cuzk's example config: verbatim it
// listens on 0.0.0.0:9820, which is refused with the remedy; moved to a
// loopback port, by the Rust -l flag or by editing listen as
// docs/migrating.md says, it starts, warns about the keys that do nothing
// here and about the unauthenticated listener, answers GetStatus, and
// exits 0 on SIGTERM as systemd stops it.
func TestRustCuzkDropIn(t *testing.T) {
	example, err := os.ReadFile(rustExampleConfig)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(example), "\nlisten = \"0.0.0.0:9820\"\n") {
		t.Fatal("the example config no longer listens on 0.0.0.0:9820; this test's edits assume it does")
	}
	dir := t.TempDir()
	verbatim := filepath.Join(dir, "cuzk.toml")
	if err := os.WriteFile(verbatim, example, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("verbatim", func(t *testing.T) {
		d := startProc(t, unitArgs(t, verbatim)...)
		if !d.wait(30 * time.Second) {
			t.Fatal("daemon with the verbatim example did not exit")
		}
		var exit *exec.ExitError
		if !errors.As(d.err, &exit) || exit.ExitCode() != exitError {
			t.Fatalf("exit %v, want %d", d.err, exitError)
		}
		for _, want := range []string{`daemon.listen = "0.0.0.0:9820" would let anyone`, "127.0.0.1:9820 when Curio runs on this machine"} {
			if !strings.Contains(d.stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, d.stderr.String())
			}
		}
	})

	serve := func(t *testing.T, addr string, args []string) {
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
			`level=WARN msg="SECURITY: daemon.listen = \"` + addr + `\" authenticates nobody`,
			// The example's own values took effect.
			"listen=" + addr + " ", "param_cache=/data/zk/params ",
			"cuzk daemon stopped",
		} {
			if !strings.Contains(logs, want) {
				t.Errorf("log lacks %q:\n%s", want, logs)
			}
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

	t.Run("listen flag", func(t *testing.T) {
		addr := freeAddr(t)
		serve(t, addr, append(unitArgs(t, verbatim), "-l", addr))
	})
	t.Run("listen edited", func(t *testing.T) {
		addr := freeAddr(t)
		edited := filepath.Join(t.TempDir(), "cuzk.toml")
		cfg := strings.Replace(string(example), "\nlisten = \"0.0.0.0:9820\"\n", "\nlisten = \""+addr+"\"\n", 1)
		if err := os.WriteFile(edited, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		serve(t, addr, unitArgs(t, edited))
	})
}

// TestRustStyleCommandLine: a command line that starts with a flag is
// `cuzk daemon` with the Rust cuzk's short flags and default config path.
// Each case fails before the daemon listens, in a way that shows which
// file and which address were used.
func TestRustStyleCommandLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	offLoopback := write("off.toml", "[daemon]\nlisten = \"192.0.2.7:9820\"\n")
	typo := write("typo.toml", "[daemon]\nlistn = \"127.0.0.1:9820\"\n")
	missing := filepath.Join(dir, "missing.toml")
	refused := func(addr string) string { return `daemon.listen = "` + addr + `" would let anyone` }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", offLoopback}, refused("192.0.2.7:9820")},
		{[]string{"-c", offLoopback}, refused("192.0.2.7:9820")},
		{[]string{"--config=" + offLoopback}, refused("192.0.2.7:9820")},
		{[]string{"-c", offLoopback, "-l", "192.0.2.8:1"}, refused("192.0.2.8:1")},
		{[]string{"-c", offLoopback, "--listen", "192.0.2.9:1"}, refused("192.0.2.9:1")},
		{[]string{"-c", typo}, "daemon.listn"},
		{[]string{"-c", missing}, "no such file"},
		{[]string{"-c", offLoopback, "--log-level", "loud"}, "logging.level"},
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		// The same through the subcommand, which takes the short flags too.
		{[]string{"daemon", "-c", offLoopback, "-l", "192.0.2.8:2"}, refused("192.0.2.8:2")},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != exitError || !strings.Contains(stderr, tc.want) {
			t.Errorf("cuzk %s: exit %d, stderr %q, want %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// TestRustDefaultConfig: without --config the Rust-style command line
// reads the default path when it exists and otherwise starts from the
// built-in defaults, saying so.
func TestRustDefaultConfig(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "cuzk.toml")
	if err := os.WriteFile(def, []byte("[daemon]\nlisten = \"192.0.2.7:9820\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var errOut strings.Builder
	if code := startDaemon(context.Background(), "", []string{"--log-level", "info"}, def, &errOut); code != exitError ||
		!strings.Contains(errOut.String(), `daemon.listen = "192.0.2.7:9820"`) {
		t.Errorf("default config present: exit %d, stderr %q; want it read (its listener refused)", code, errOut.String())
	}
	errOut.Reset()
	// Absent: the built-in defaults, with a note; an off-loopback -l shows
	// the daemon got as far as the listener check.
	absent := filepath.Join(dir, "absent.toml")
	code := startDaemon(context.Background(), "", []string{"-l", "192.0.2.8:1"}, absent, &errOut)
	if code != exitError || !strings.Contains(errOut.String(), "no --config and "+absent+" does not exist: using the built-in defaults") ||
		!strings.Contains(errOut.String(), `daemon.listen = "192.0.2.8:1"`) {
		t.Errorf("default config absent: exit %d, stderr %q", code, errOut.String())
	}
}
