package server_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/server/history"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestHistoryFromTheDaemon: a proof the daemon completes is in the last
// hour (its kind, its stages), the sampler reads the gauges every
// WithHistorySampling, and /history.svg draws them.
func TestHistoryFromTheDaemon(t *testing.T) {
	metrics := server.NewMetrics()
	te := testkit.NewEngine(t, testkit.EngineOptions{Locator: srs.Chain(srs.FilecoinLocator(paramDir), testkind.Locator(paramDir)),
		Budget: 4 << 30, Log: slog.New(slog.DiscardHandler), Observer: metrics})
	srv := server.New(te.Engine, server.WithMetrics(metrics), server.WithHistorySampling(time.Millisecond))
	hl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.ServeHTTP(hl)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})

	res, err := te.Engine.Prove(context.Background(), &engine.Request{RequestID: "h", Kind: proofkind.Test, RegisteredProof: 10, SectorSize: 1 << 10})
	if err != nil || res.State != engine.StateCompleted {
		t.Fatalf("prove: %v %v", err, res.State)
	}
	sum := func(f func(history.Point) int) (n int) {
		for _, p := range metrics.History().Snapshot().Points {
			n += f(p)
		}
		return n
	}
	if n := sum(func(p history.Point) int { return int(p.Completed["test"]) }); n != 1 {
		t.Errorf("%d test proofs in the history, want 1", n)
	}
	if st := metrics.History().Snapshot().StageNames(); !slices.Contains(st, "synthesis") || !slices.Contains(st, "prove") {
		t.Errorf("stages in the history: %v", st)
	}
	waitFor(t, "a few samples", func() bool { return sum(func(p history.Point) int { return p.Samples }) >= 3 })
	for _, p := range metrics.History().Snapshot().Points {
		if p.Samples > 0 && p.Max.BudgetTotal != 4<<30 {
			t.Errorf("sampled budget %d, want %d", p.Max.BudgetTotal, 4<<30)
		}
	}
	for _, c := range history.Charts() {
		resp, err := http.Get("http://" + hl.Addr().String() + "/history.svg?chart=" + string(c))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `class="data"`) {
			t.Errorf("chart %s: %s, data marks: %v", c, resp.Status, strings.Contains(string(body), `class="data"`))
		}
	}
}
