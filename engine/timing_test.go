package engine_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/prover/cpu"
	"github.com/cuzk-dev/cuzk/srs"
)

// TestTimingLinesParse runs a job with LogTiming on, through slog's text
// and JSON handlers, and parses every stage line back.
func TestTimingLinesParse(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			var buf syncBuffer
			var h slog.Handler = slog.NewTextHandler(&buf, nil)
			if format == "json" {
				h = slog.NewJSONHandler(&buf, nil)
			}
			log := slog.New(h)
			b := budget.New(1 << 30)
			m := srs.NewManager(srs.Options{Locator: testkind.Locator(paramDir), Budget: b})
			e, err := engine.New(engine.Options{
				Config: engine.Config{LogTiming: true}, Kinds: map[engine.ProofKind]engine.Kind{engine.ProofKindTest: testkind.New()},
				Backend: &cpu.Backend{}, Params: m, Budget: b, Log: log,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Shutdown(context.Background())
			before := time.Now()
			res, err := e.Prove(context.Background(), testReq("job with spaces", 10, testkind.Options{Partitions: 2}))
			if err != nil || res.State != engine.StateCompleted {
				t.Fatal(err, res.State)
			}
			seen := map[string]int{}
			for _, line := range bytes.Split([]byte(buf.String()), []byte("\n")) {
				r, ok := engine.ParseTimingLine(line)
				if !ok {
					continue
				}
				if r.Job != "job with spaces" || r.Start.Before(before.Add(-time.Second)) || r.Duration < 0 {
					t.Fatalf("bad record %+v from %s", r, line)
				}
				if r.Stage != "self_check" && (r.Circuit != "test-k10" || r.Batch == 0 || r.Partition < 0 || r.Partition > 1) {
					t.Fatalf("bad record %+v from %s", r, line)
				}
				seen[r.Stage]++
			}
			for stage, n := range map[string]int{"synthesis": 2, "prove": 2, "finish": 2, "self_check": 1} {
				if seen[stage] != n {
					t.Errorf("%d %s lines, want %d (%v)", seen[stage], stage, n, seen)
				}
			}
			// Partition 0 loads the parameters; partition 1 waits for that
			// load (a line) unless, on a busy machine, its worker starts
			// only after the load has ended (no line: nothing was waited).
			if n := seen["srs_load"]; n < 1 || n > 2 {
				t.Errorf("%d srs_load lines, want 1 or 2 (%v)", n, seen)
			}
		})
	}
	if _, ok := engine.ParseTimingLine([]byte(`time=x level=INFO msg="job queued" job=a`)); ok {
		t.Error("non-timing line parsed")
	}
}
