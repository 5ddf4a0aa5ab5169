package srs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/srs"
)

// copyParams copies test-k8's files (and its marker) into a new directory.
func copyParams(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, ext := range []string{".params", ".vk", ".params" + filecoin.TestMarkerSuffix} {
		b, err := os.ReadFile(filepath.Join(paramDir, testkind.FileBase(8)+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, testkind.FileBase(8)+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// within runs f and fails the test if it has not returned after d (the
// goroutine is left behind: it is what the test is about).
func within[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
		panic("unreachable")
	}
}

// TestParamFilesThatBlock: a FIFO in place of the .params file, the .vk
// file or the test marker is refused (or ignored, the marker) at once
// instead of blocking the circuit in open(2); once the real file is back,
// the same manager loads it (issue 34 item 7).
func TestParamFilesThatBlock(t *testing.T) {
	id := testkind.CircuitID(8)
	for _, ext := range []string{".params", ".vk", ".params" + filecoin.TestMarkerSuffix} {
		t.Run(ext, func(t *testing.T) {
			dir := copyParams(t)
			path := filepath.Join(dir, testkind.FileBase(8)+ext)
			real, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(path)
			if err := unix.Mkfifo(path, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			m, b, _ := newManager(t, testkind.Locator(dir), 1<<30, 0)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err = within(t, 5*time.Second, "Acquire with a FIFO "+ext, func() error {
				l, err := m.Acquire(ctx, id, 0, 10)
				if err == nil {
					l.Mem.Close()
					l.Release()
				}
				return err
			})
			if ext == ".params"+filecoin.TestMarkerSuffix {
				// No marker: loaded as unknown parameters, subgroup-checked.
				if err != nil {
					t.Fatalf("a FIFO marker: %v", err)
				}
				return
			}
			if msg := fmt.Sprint(err); !errors.Is(err, srs.ErrParamsUnusable) || !strings.Contains(msg, "not a regular file (a FIFO)") || !strings.Contains(msg, path) {
				t.Fatalf("a FIFO %s: %v, want ErrParamsUnusable naming the file as a FIFO", ext, err)
			}
			if b.Used() != 0 {
				t.Fatalf("a refused load holds %d bytes", b.Used())
			}
			os.Remove(path)
			if err := os.WriteFile(path, real, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := m.Preload(ctx, id, 0); err != nil {
				t.Fatalf("after the file is back: %v", err)
			}
		})
	}
}

// preload is Preload's error, for within.
func preload(m *srs.Manager, id string) func() error {
	return func() error {
		_, _, err := m.Preload(context.Background(), id, 0)
		return err
	}
}

// stuck is a manager whose loads hang in OnLoad while hang is set, until
// release is closed.
type stuck struct {
	m       *srs.Manager
	b       *budget.Budget
	hang    atomic.Bool
	entered chan struct{} // closed when a load first hangs
	release chan struct{}
	evicted atomic.Int32
}

func stuckManager(t *testing.T, timeout time.Duration) *stuck {
	t.Helper()
	s := &stuck{b: budget.New(1 << 30), entered: make(chan struct{}), release: make(chan struct{})}
	s.hang.Store(true)
	var once sync.Once
	s.m = srs.NewManager(srs.Options{
		Locator: testkind.Locator(paramDir), Budget: s.b, Residency: srs.ResidencyResident, LoadTimeout: timeout,
		OnLoad: func(string, *groth16.Params, srs.Files) error {
			if s.hang.Load() {
				once.Do(func() { close(s.entered) })
				<-s.release
			}
			return nil
		},
		OnEvict: func(string, *groth16.Params, srs.Files) { s.evicted.Add(1) },
	})
	t.Cleanup(s.unblock)
	return s
}

func (s *stuck) unblock() {
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

// TestLoadTimeout: a load that hangs past LoadTimeout fails the caller
// that started it and the one waiting for it, gives their memory back and
// leaves the circuit cold; the next Acquire loads it, and the hung load's
// result, when it finally comes, is dropped (issue 34 item 7).
func TestLoadTimeout(t *testing.T) {
	s := stuckManager(t, time.Second)
	m, b := s.m, s.b
	id := testkind.CircuitID(8)
	ctx := context.Background()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			l, err := m.Acquire(ctx, id, 0, 10)
			if err == nil {
				l.Mem.Close()
				l.Release()
			}
			errs <- err
		}()
	}
	for range 2 {
		err := within(t, 10*time.Second, "Acquire of a hung load", func() error { return <-errs })
		if !errors.Is(err, srs.ErrLoadTimeout) || !errors.Is(err, srs.ErrParamsUnusable) {
			t.Fatalf("Acquire of a hung load: %v, want ErrLoadTimeout", err)
		}
	}
	if st := m.Status(); st[0].Tier != srs.TierCold || b.Used() != 0 {
		t.Fatalf("after the timeout: tier %s, budget %d; want cold and 0", st[0].Tier, b.Used())
	}
	s.hang.Store(false)
	if err := within(t, 10*time.Second, "Preload after a timeout", preload(m, id)); err != nil {
		t.Fatalf("the retry: %v", err)
	}
	s.unblock()
	deadline := time.Now().Add(10 * time.Second)
	for s.evicted.Load() != 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := s.evicted.Load(); n != 1 {
		t.Fatalf("the hung load's result was not dropped (OnEvict %d times)", n)
	}
	if st := m.Status(); st[0].Tier != srs.TierHot || st[0].Loads != 1 {
		t.Fatalf("after the late result: %+v, want the retry's set hot", st[0])
	}
}

// TestEvictAbandonsStuckLoad: EvictSRS on a load that hangs (no timeout)
// succeeds, fails the jobs waiting for the load and leaves the circuit
// loadable (issue 34 item 7).
func TestEvictAbandonsStuckLoad(t *testing.T) {
	s := stuckManager(t, -1)
	m, b := s.m, s.b
	id := testkind.CircuitID(8)
	errc := make(chan error, 1)
	go func() {
		_, err := m.Acquire(context.Background(), id, 0, 10)
		errc <- err
	}()
	select {
	case <-s.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the load never started")
	}
	if _, _, err := m.Evict(id); err != nil {
		t.Fatalf("Evict of a stuck load: %v", err)
	}
	err := within(t, 5*time.Second, "Acquire after Evict", func() error { return <-errc })
	if !errors.Is(err, srs.ErrLoadAbandoned) {
		t.Fatalf("the waiting Acquire: %v, want ErrLoadAbandoned", err)
	}
	if st := m.Status(); st[0].Tier != srs.TierCold || b.Used() != 0 {
		t.Fatalf("after Evict: tier %s, budget %d", st[0].Tier, b.Used())
	}
	s.hang.Store(false)
	if err := within(t, 10*time.Second, "Preload after Evict", preload(m, id)); err != nil {
		t.Fatalf("load after Evict: %v", err)
	}
}
