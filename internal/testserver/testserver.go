// Package testserver serves a server.Server in process for tests: its
// gRPC on a unix socket or a loopback TCP port, shut down when the test
// ends. The server's and the client's tests share it (tests only).
package testserver

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/server"
)

// SocketDir is a directory for unix sockets, removed when the test ends.
// It is made under the system's temporary directory, not t.TempDir():
// socket paths are limited to about 108 bytes.
func SocketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cuzk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Served is a server serving gRPC for a test.
type Served struct {
	// Addr is where it serves, as client.Dial takes it.
	Addr string
	srv  *server.Server
	once sync.Once
}

// ShutdownGrace is how long the shutdown at the end of a test gives the
// jobs still running.
const ShutdownGrace = time.Minute

// Serve serves srv's gRPC on addr (server.Listen's: "unix://PATH", whose
// directories it creates, or a TCP address; "127.0.0.1:0" picks a port,
// which Addr then names). srv is shut down when the test ends, after the
// cleanups registered later (the clients that dial it) have run; a
// shutdown that fails fails the test.
func Serve(t testing.TB, srv *server.Server, addr string) *Served {
	t.Helper()
	l, err := server.Listen(addr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr, "unix:") {
		addr = l.Addr().String()
	}
	s := &Served{Addr: addr, srv: srv}
	go srv.Serve(l)
	t.Cleanup(func() {
		if err := s.Stop(ShutdownGrace); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return s
}

// Stop shuts the server down, giving its jobs grace to finish; with no
// grace it aborts them at once and cuts the connections, as a daemon that
// is killed loses them. Only the first call acts (the others return nil),
// so a test may stop a server early.
func (s *Served) Stop(grace time.Duration) error {
	var err error
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		err = s.srv.Shutdown(ctx)
	})
	return err
}
