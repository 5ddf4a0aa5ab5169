package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/config"
)

// A fixed budget above the machine's memory is refused at start, naming
// both; "auto" and budgets that fit pass, and so does any budget when the
// memory cannot be read.
func TestBudgetAbovePhysicalMemoryRefused(t *testing.T) {
	mem := func(n uint64) config.MemTotalFunc { return func() (uint64, error) { return n, nil } }
	fixed := config.Memory{TotalBudget: config.Budget{Size: 100 * config.GiB}}
	err := checkBudgetFits(fixed, 100*config.GiB, mem(uint64(24*config.GiB)))
	if err == nil || !strings.Contains(err.Error(), "= 100GiB") || !strings.Contains(err.Error(), "MemTotal 24GiB") {
		t.Fatalf("100 GiB budget on 24 GiB: %v", err)
	}
	if err := checkBudgetFits(fixed, 100*config.GiB, mem(uint64(128*config.GiB))); err != nil {
		t.Fatalf("100 GiB budget on 128 GiB: %v", err)
	}
	if err := checkBudgetFits(config.Memory{TotalBudget: config.Budget{Auto: true}}, 100*config.GiB, mem(1)); err != nil {
		t.Fatalf("auto: %v", err)
	}
	unreadable := func() (uint64, error) { return 0, errors.New("no /proc") }
	if err := checkBudgetFits(fixed, 100*config.GiB, unreadable); err != nil {
		t.Fatalf("unreadable MemTotal: %v", err)
	}
	// Through the daemon, on this machine: refused before it listens.
	if _, err := config.ReadMemTotal(); err != nil {
		t.Skip(err)
	}
	sock := filepath.Join(t.TempDir(), "cuzk.sock")
	cfg := config.Default()
	cfg.Daemon.Listen = "unix://" + sock
	cfg.Memory.TotalBudget = config.Budget{Size: 1000 * config.TiB}
	err = Run(context.Background(), cfg, Options{ShutdownTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "is more than this machine's memory") {
		t.Fatalf("daemon with a 1000 TiB budget: %v", err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Fatal("the daemon listened before refusing its budget")
	}
}

// The heap's soft limit is where a proof's RSS ends up (garbage fills the
// heap up to it), so at full size it must stay within the 10 % above the
// reservation that the engine promises (1.08x: 2 % is left for what RSS
// holds outside the Go heap), yet above it by enough for a request being
// decoded (a 32 GiB C1 is 50 MB wrapped).
func TestHeapLimitHeadroom(t *testing.T) {
	for _, reserved := range []int64{8 << 30, 12_933_000_000, 13_457_599_776, 16 << 30} {
		limit := HeapLimit(reserved)
		if limit < reserved+256<<20 {
			t.Errorf("reservation %d: limit %d leaves under 256 MiB for what the budget does not count", reserved, limit)
		}
		if float64(limit) > 1.08*float64(reserved) {
			t.Errorf("reservation %d: limit %d is %.3fx it; a full-size proof's peak would pass 10 %%", reserved, limit, float64(limit)/float64(reserved))
		}
	}
}
