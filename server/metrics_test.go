package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/porepkind"
	"github.com/cuzk-dev/cuzk/engine/postkind"
	"github.com/cuzk-dev/cuzk/engine/snapkind"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/srs"
)

// promtoolEnv makes a missing promtool an error in TestMetricsPromtool
// (.ci/run installs Debian's prometheus package and sets it).
const promtoolEnv = "CUZK_PROMTOOL"

func parseMetrics(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("parsing the metrics: %v\n%s", err, text)
	}
	return fams
}

// busyMetrics is GET /metrics of a daemon that completed one proof and failed
// one (so every family it can export has children, the loaded parameter
// set's included).
func busyMetrics(t *testing.T) string {
	t.Helper()
	d := startDaemon(t, "tcp", engine.Config{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := d.c.Prove(ctx, client.TestRequest("ok", 10, nil)); err != nil {
		t.Fatal(err)
	}
	fail := 0
	if _, err := d.c.Prove(ctx, client.TestRequest("bad", 10, opts(testkind.Options{FailPartition: &fail}))); err == nil {
		t.Fatal("a proof with fail_partition succeeded")
	}
	resp, err := http.Get(d.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s %v", resp.Status, err)
	}
	return string(body)
}

// TestMetricsNaming lints /metrics with Prometheus' own linter (the one
// promtool check metrics runs) and checks the rule it cannot see across
// families: a counter is exported once, under its _total name, never also
// without the suffix.
func TestMetricsNaming(t *testing.T) {
	text := busyMetrics(t)
	problems, err := promlint.New(strings.NewReader(text)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	fams := parseMetrics(t, text)
	counters := 0
	for name, f := range fams {
		if f.GetType() != dto.MetricType_COUNTER {
			continue
		}
		counters++
		if !strings.HasSuffix(name, "_total") {
			t.Errorf("counter %s does not end in _total", name)
		}
		// The Go collector's go_memstats_alloc_bytes (a gauge: the live
		// heap) is another quantity than its _total counter.
		if _, twin := fams[strings.TrimSuffix(name, "_total")]; twin && strings.HasPrefix(name, "cuzk_") {
			t.Errorf("counter %s is exported with and without _total", name)
		}
	}
	for _, want := range []string{"cuzk_proofs_completed_total", "cuzk_proofs_failed_total", "cuzk_proofs_cancelled_total"} {
		if f := fams[want]; f == nil || f.GetType() != dto.MetricType_COUNTER {
			t.Errorf("no counter %s", want)
		}
	}
	if counters < 5 {
		t.Errorf("%d counters in the metrics", counters)
	}
}

// TestMetricsPromtool runs promtool check metrics on /metrics. It skips
// without promtool (Debian: apt-get install prometheus) unless
// CUZK_PROMTOOL=1.
func TestMetricsPromtool(t *testing.T) {
	bin, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv(promtoolEnv) == "1" {
			t.Fatalf("%s=1 but promtool is not on PATH (Debian: apt-get install prometheus)", promtoolEnv)
		}
		testenv.Skip(t, "promtool, apt-get install prometheus", "needs promtool (Debian: apt-get install prometheus); "+promtoolEnv+"=1 makes this an error")
	}
	text := busyMetrics(t)
	cmd := exec.Command(bin, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
	// promtool reads what it can: a text it did not parse at all would
	// pass silently, so check that it saw the families.
	if bytes.Contains(out.Bytes(), []byte("error while linting")) {
		t.Errorf("promtool: %s", out.String())
	}
}

// TestMetricsPerKindCountersStartAtZero: a daemon that has proved nothing
// exports every per-kind job counter at 0 for each kind it serves, so a
// dashboard's "failed per kind" reads 0 on a healthy daemon, not "No
// data"; and the queue gauges label the kinds as the counters do.
func TestMetricsPerKindCountersStartAtZero(t *testing.T) {
	eng := testkit.NewEngine(t, testkit.EngineOptions{
		Kinds: []engine.Kind{
			engine.Builtin(proofkind.PoRep, &porepkind.Planner{}),
			engine.Builtin(proofkind.WindowPoSt, postkind.Window()),
			engine.Builtin(proofkind.WinningPoSt, postkind.Winning()),
			engine.Builtin(proofkind.SnapDeals, &snapkind.Planner{}),
			engine.Builtin(proofkind.Test, testkind.New()),
		},
		Locator: srs.FilecoinLocator(t.TempDir()), Budget: 1 << 30,
	}).Engine
	srv := server.New(eng)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		srv.Shutdown(ctx) //nolint:errcheck // never served
	})
	text, err := srv.Metrics().Text()
	if err != nil {
		t.Fatal(err)
	}
	fams := parseMetrics(t, text)
	want := []string{"porep_c2", "snap_update", "test", "window_post", "winning_post"}
	labels := func(name string) (got []string) {
		for _, m := range fams[name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "proof_kind" {
					got = append(got, l.GetValue())
				}
			}
			if c := m.GetCounter(); c != nil && c.GetValue() != 0 {
				t.Errorf("%s %v = %v on a daemon that proved nothing", name, m.GetLabel(), c.GetValue())
			}
		}
		slices.Sort(got)
		return got
	}
	for _, name := range []string{"cuzk_proofs_completed_total", "cuzk_proofs_failed_total", "cuzk_proofs_cancelled_total",
		"cuzk_queue_pending", "cuzk_queue_in_progress"} {
		if got := labels(name); !slices.Equal(got, want) {
			t.Errorf("%s has proof_kind %q, want %q", name, got, want)
		}
	}
}
