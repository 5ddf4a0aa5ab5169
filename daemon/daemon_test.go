package daemon_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/config"
	"github.com/cuzk-dev/cuzk/daemon"
	"github.com/cuzk-dev/cuzk/internal/testkit"
)

// TestRunServesUntilCancelled: Run (New, Serve, Close) answers over its
// socket until its context ends, then stops cleanly, says why in its log
// and leaves no socket behind.
func TestRunServesUntilCancelled(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "cuzk.sock")
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + sock
	cfg.SRS.ParamCache = t.TempDir()
	cfg.Memory.TotalBudget = config.Budget{Size: config.GiB}
	var logs testkit.SyncBuffer
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- daemon.Run(ctx, cfg, daemon.Options{ShutdownTimeout: 5 * time.Second, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	}()
	c, err := client.Dial(cfg.Daemon.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		sctx, stop := context.WithTimeout(ctx, time.Second)
		_, err := c.Status(sctx)
		stop()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no status after 30 s: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel(errors.New("test over"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run still running 20 s after its context ended")
	}
	for _, want := range []string{`msg="signal received; shutting down" signal="test over"`, `msg="cuzk daemon stopped"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
	if _, err := os.Stat(sock); err == nil {
		t.Error("the socket outlived the daemon")
	}
}

// TestNewClosesWhatItOpened: a status listener that cannot open fails New,
// which closes the gRPC listener it had opened; a daemon that was never
// served closes too, and Close is idempotent.
func TestNewClosesWhatItOpened(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	sock := filepath.Join(t.TempDir(), "cuzk.sock")
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + sock
	cfg.Daemon.StatusListen = busy.Addr().String()
	cfg.SRS.ParamCache = t.TempDir()
	cfg.Memory.TotalBudget = config.Budget{Size: config.GiB}
	if _, err := daemon.New(cfg, daemon.Options{}); err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("New with a busy status port: %v", err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Error("the gRPC socket outlived the failed New")
	}

	cfg.Daemon.StatusListen = ""
	d, err := daemon.New(cfg, daemon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Addr().String() != sock || d.StatusAddr() != nil {
		t.Errorf("addresses %v, %v", d.Addr(), d.StatusAddr())
	}
	for range 2 {
		if err := d.Close(context.Background()); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if _, err := os.Stat(sock); err == nil {
		t.Error("the socket outlived Close")
	}
}
