// Package testenv decides which tests a run includes, and says what a run
// left out. README's test command, `go test ./...`, runs everything that
// stays within a couple of minutes per package on a busy 2-core machine.
// Tests that prove real sectors end to end (they need the 1.1 GB 2 KiB
// test parameters, a minute to generate, and tens of CPU-seconds per
// proof) run only with CUZK_E2E=1; .ci/run runs the suite a second time
// with it, so nothing that checks exactness stops running in CI.
//
// Every skip that `go test ./...` (or with -short) can take goes through
// Skip (E2E, FullSize and Short do), and every package that has one runs
// its tests through Run, which prints one line at the end naming what the
// package skipped and what runs it:
//
//	github.com/cuzk-dev/cuzk/engine/porepkind: skipped 3 tests (end-to-end, set CUZK_E2E=1: 3)
//
// The go command prints nothing of a passing package's output in a
// multi-package run, so that line goes to the go command's own stderr
// (see summaryOutput). A cached package result is replayed without
// running the tests, and says nothing.
package testenv

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// E2EEnv is the environment variable that enables the end-to-end tests.
const E2EEnv = "CUZK_E2E"

// FullSizeEnv enables the full-size circuit tests: each synthesises
// circuits of 32 GiB sectors (over 100 M rows per partition) and takes
// minutes and gigabytes.
const FullSizeEnv = "CUZK_FULLSIZE"

// The reasons Run counts skips under: what a reader does to run them.
const (
	ReasonE2E      = "end-to-end, set " + E2EEnv + "=1"
	ReasonFullSize = "full size, set " + FullSizeEnv + "=1"
	ReasonShort    = "-short"
)

// E2E skips t unless end-to-end tests are enabled (and never runs them
// under -short). why says what makes the test heavy.
func E2E(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		Skip(t, ReasonShort, "-short: "+why)
	}
	if os.Getenv(E2EEnv) != "1" {
		Skip(t, ReasonE2E, fmt.Sprintf("end-to-end (%s): set %s=1 to run it, as .ci/run does", why, E2EEnv))
	}
}

// Short skips t under -short. why says what makes it slow.
func Short(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		Skip(t, ReasonShort, "-short: "+why)
	}
}

// FullSize skips t unless full-size tests are enabled. why says what the
// test synthesises.
func FullSize(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(FullSizeEnv) != "1" {
		Skip(t, ReasonFullSize, fmt.Sprintf("full size (%s): set %s=1 to run it", why, FullSizeEnv))
	}
}

// skips counts this test binary's skips by reason, in the order first
// seen. A test binary is one package, so this is the package's count.
var skips struct {
	sync.Mutex
	n     map[string]int
	order []string
}

// Skip skips t with message, counting it under reason for the package's
// summary line. reason is shared by the tests skipped for one cause and
// says what runs them ("end-to-end, set CUZK_E2E=1").
func Skip(t testing.TB, reason, message string) {
	t.Helper()
	skips.Lock()
	if skips.n == nil {
		skips.n = map[string]int{}
	}
	if skips.n[reason] == 0 {
		skips.order = append(skips.order, reason)
	}
	skips.n[reason]++
	skips.Unlock()
	t.Skip(message)
}

// Run runs the package's tests and then prints its summary line (when
// anything was skipped); it returns m.Run's exit code. A package's
// TestMain is `func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }`,
// or calls Run where it called m.Run.
func Run(m *testing.M) int {
	code := m.Run()
	if line := summary(packagePath()); line != "" {
		w, closeW := summaryOutput()
		fmt.Fprintln(w, line)
		closeW()
	}
	return code
}

// summary is the package's line: "" when it skipped nothing.
func summary(pkg string) string {
	skips.Lock()
	defer skips.Unlock()
	total := 0
	var parts []string
	for _, r := range skips.order {
		total += skips.n[r]
		parts = append(parts, fmt.Sprintf("%s: %d", r, skips.n[r]))
	}
	if total == 0 {
		return ""
	}
	tests := "tests"
	if total == 1 {
		tests = "test"
	}
	return fmt.Sprintf("%s: skipped %d %s (%s)", pkg, total, tests, strings.Join(parts, "; "))
}

// packagePath is the import path of the package under test: the go
// command runs a test binary in its package's directory, below the
// module's go.mod.
func packagePath() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Base(os.Args[0])
	}
	for d := dir; ; d = filepath.Dir(d) {
		if mod := modulePath(filepath.Join(d, "go.mod")); mod != "" {
			rel, err := filepath.Rel(d, dir)
			if err != nil || rel == "." {
				return mod
			}
			return mod + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// modulePath is the module line of a go.mod ("" without one).
func modulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(mod), `"`)
		}
	}
	return ""
}

// summaryOutput is where the summary line goes. With -v (and -json, which
// implies it) the test's own output is shown, so stdout. Otherwise, in
// `go test ./...`, the go command keeps a passing package's output to
// itself, and the line would be lost: it goes to the go command's stderr
// (the test binary's parent). Best through a copy of that descriptor
// itself (parentFD), which shares the go command's file offset, so the
// line also lands in a log that `>` made. Where the kernel refuses the
// copy (Yama's ptrace_scope 1 forbids it towards a parent), the line goes
// to the same file opened afresh, when that is a terminal, a pipe or a
// file opened for appending (`>>`); a file written at an offset (`>`) is
// then left alone: a second writer at its own offset would be overwritten
// by what the go command writes after.
func summaryOutput() (io.Writer, func()) {
	if testing.Verbose() {
		return os.Stdout, func() {}
	}
	ppid := os.Getppid()
	proc := "/proc/" + strconv.Itoa(ppid)
	comm, err := os.ReadFile(proc + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return os.Stderr, func() {}
	}
	if f := parentFD(ppid, 2); f != nil {
		return f, func() { f.Close() }
	}
	path := proc + "/fd/2"
	st, err := os.Stat(path)
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeCharDevice) == 0 && !(st.Mode().IsRegular() && appending(proc+"/fdinfo/2")) {
		return os.Stderr, func() {}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return os.Stderr, func() {}
	}
	return f, func() { f.Close() }
}

// parentFD is a copy of process pid's descriptor fd (pidfd_getfd, Linux
// 5.6 and later, allowed where ptrace of pid is), or nil. Unlike a file
// opened through /proc/pid/fd, the copy shares the open file, offset
// included.
func parentFD(pid, fd int) *os.File {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(pidfd)
	nfd, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(nfd), "/proc/"+strconv.Itoa(pid)+"/fd/"+strconv.Itoa(fd))
}

// appending says the fdinfo file describes a descriptor opened with
// O_APPEND (its "flags:" line, in octal).
func appending(fdinfo string) bool {
	raw, err := os.ReadFile(fdinfo)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&syscall.O_APPEND != 0
		}
	}
	return false
}
