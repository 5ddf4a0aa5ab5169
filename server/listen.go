package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// SocketMode is the permission of a unix socket the daemon creates: the
// daemon's user and group (Curio's) may connect, nobody else.
const SocketMode = 0o660

// ErrNoSocketDir is returned by Listen when a unix socket's directory does
// not exist.
var ErrNoSocketDir = errors.New("the socket's directory does not exist")

// Listen opens addr: "unix:///abs/path.sock" or "host:port". For a unix
// socket it removes a stale socket left by a dead daemon (but refuses to
// touch a live one or a file that is not a socket) and sets SocketMode.
// It does not create the socket's directory: that is /run/curio by
// default, a system directory whose owner and mode are the operator's to
// choose (systemd's RuntimeDirectory makes it, and removes it when the
// unit stops); one made here would outlive the daemon, owned by whoever
// started it first.
func Listen(addr string) (net.Listener, error) {
	path, ok := strings.CutPrefix(addr, "unix://")
	if !ok {
		l, err := net.Listen("tcp", addr)
		if errors.Is(err, syscall.EADDRINUSE) {
			// Usually a daemon already running (a second start by hand
			// beside the systemd unit): say what to look for.
			return nil, fmt.Errorf("server: %s is in use by another program, another cuzk daemon perhaps (ss -ltnp shows which): %w", addr, err)
		}
		if err != nil {
			return nil, fmt.Errorf("server: listen %s: %w", addr, err)
		}
		return l, nil
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("server: unix socket path %q is not absolute", path)
	}
	if err := checkSocketDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if err := removeStale(path); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("server: listen %s: %w", addr, err)
	}
	if err := os.Chmod(path, SocketMode); err != nil {
		l.Close()
		return nil, fmt.Errorf("server: chmod %s: %w", path, err)
	}
	return l, nil
}

// checkSocketDir says what to do when dir, a socket's directory, is
// missing: a directory under /run is what a systemd unit's
// RuntimeDirectory is for.
func checkSocketDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		fix := fmt.Sprintf("create it for the daemon's user (install -d -m 0750 -o USER -g GROUP %s)", dir)
		if rel, ok := strings.CutPrefix(dir, "/run/"); ok {
			fix = fmt.Sprintf("under systemd, RuntimeDirectory=%s in the unit makes it (docs/cuzk.service); otherwise %s", rel, fix)
		}
		return fmt.Errorf("server: %w: %s; the daemon does not create it: %s, or put the socket in a directory that exists (daemon.listen, --listen)",
			ErrNoSocketDir, dir, fix)
	case err != nil:
		return fmt.Errorf("server: socket directory: %w", err)
	case !st.IsDir():
		return fmt.Errorf("server: socket directory %s is not a directory", dir)
	}
	return nil
}

// removeStale removes a socket file nobody listens on.
func removeStale(path string) error {
	st, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("server: %s exists and is not a socket; refusing to replace it", path)
	}
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("server: another process is listening on %s", path)
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("server: removing stale socket: %w", err)
	}
	return nil
}
