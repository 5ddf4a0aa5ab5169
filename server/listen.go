package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SocketMode is the permission of a unix socket the daemon creates: the
// daemon's user and group (Curio's) may connect, nobody else.
const SocketMode = 0o660

// Listen opens addr: "unix:///abs/path.sock" or "host:port". For a unix
// socket it creates the directory, removes a stale socket left by a dead
// daemon (but refuses to touch a live one or a file that is not a socket)
// and sets SocketMode.
func Listen(addr string) (net.Listener, error) {
	path, ok := strings.CutPrefix(addr, "unix://")
	if !ok {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("server: listen %s: %w", addr, err)
		}
		return l, nil
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("server: unix socket path %q is not absolute", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("server: socket directory: %w", err)
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
