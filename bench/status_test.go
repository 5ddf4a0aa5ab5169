package bench

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const sampleMetrics = `# HELP cuzk_proofs_completed_total Proofs completed, by proof kind
# TYPE cuzk_proofs_completed_total counter
cuzk_proofs_completed_total{proof_kind="porep_c2"} 3
cuzk_proofs_completed_total{proof_kind="test"} 5
# HELP cuzk_stage_duration_seconds Per-job time by stage
# TYPE cuzk_stage_duration_seconds histogram
cuzk_stage_duration_seconds_bucket{proof_kind="test",stage="total",le="0.001"} 1
cuzk_stage_duration_seconds_bucket{proof_kind="test",stage="total",le="+Inf"} 5
cuzk_stage_duration_seconds_sum{proof_kind="test",stage="total"} 0.5
cuzk_stage_duration_seconds_count{proof_kind="test",stage="total"} 5
# HELP process_resident_memory_bytes Resident memory size in bytes.
# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 4.5e+07
`

func TestParseMetrics(t *testing.T) {
	fams, err := ParseMetrics(sampleMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 3 || fams[0].Name != "cuzk_proofs_completed_total" || fams[2].Name != "process_resident_memory_bytes" {
		t.Fatalf("%+v", fams)
	}
	if s := fams[0].Samples; len(s) != 2 || s[0].Value+s[1].Value != 8 || fams[0].Type != "counter" {
		t.Fatalf("%+v", fams[0])
	}
	h := fams[1].Samples[0]
	if fams[1].Type != "histogram" || h.Count != 5 || h.Sum != 0.5 || h.Buckets["0.001"] != 1 || h.Buckets["+Inf"] != 5 {
		t.Fatalf("%+v", fams[1])
	}
	if v, ok := MetricValue(sampleMetrics, ResidentMetric); !ok || v != 45e6 {
		t.Fatal(v, ok)
	}
	if _, ok := MetricValue(sampleMetrics, "process_virtual_memory_bytes"); ok {
		t.Fatal("found a metric that is not there")
	}
	if _, err := ParseMetrics("not metrics {"); err == nil {
		t.Fatal("garbage parsed")
	}
}

// The status client reads /status over a unix socket, as the daemon's
// status_listen serves it, and decodes job states given as text.
func TestStatusClientUnix(t *testing.T) {
	dir, err := os.MkdirTemp("", "cuzkst")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"uptime_ns": 5000000000, "memory": {"total_bytes": 100, "used_bytes": 10, "peak_bytes": 50},
			"jobs": [{"job_id": "a", "state": "running", "partitions": [{"index": 0, "state": "proving"}]}],
			"by_kind": {"test": {"completed": 2}}, "future_field": [1, 2]}`))
	})}}
	srv.Start()
	defer srv.Close()
	sc, err := NewStatusClient("unix://" + sock)
	if err != nil {
		t.Fatal(err)
	}
	st, raw, err := sc.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Uptime != 5*time.Second || st.Memory.PeakBytes != 50 || len(st.Jobs) != 1 || st.Jobs[0].State != "running" ||
		st.Jobs[0].Partitions[0].State != "proving" || st.ByKind["test"].Completed != 2 || len(raw) == 0 {
		t.Fatalf("%+v", st)
	}
	for _, bad := range []string{"", "unix://"} {
		if _, err := NewStatusClient(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
