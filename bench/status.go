package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// StatusClient reads the daemon's HTTP status endpoint.
type StatusClient struct {
	http *http.Client
	base string
}

// NewStatusClient returns a client for the daemon's status_listen address:
// "unix:///path.sock", "host:port" or "http://host:port".
func NewStatusClient(addr string) (*StatusClient, error) {
	tr := &http.Transport{}
	base := addr
	switch {
	case strings.HasPrefix(addr, "unix://"):
		path := strings.TrimPrefix(addr, "unix://")
		if path == "" {
			return nil, fmt.Errorf("status address %q has no socket path", addr)
		}
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		}
		base = "http://cuzk"
	case strings.HasPrefix(addr, "http://"):
	case addr == "":
		return nil, fmt.Errorf("empty status address")
	default:
		base = "http://" + addr
	}
	return &StatusClient{http: &http.Client{Transport: tr, Timeout: 10 * time.Second}, base: strings.TrimRight(base, "/")}, nil
}

// Status fetches and decodes GET /status. Fields the document does not
// have (an older daemon) stay zero; fields this build does not know are
// ignored.
func (s *StatusClient) Status(ctx context.Context) (*statusdoc.Status, []byte, error) {
	raw, err := s.get(ctx, "/status")
	if err != nil {
		return nil, nil, err
	}
	var st statusdoc.Status
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, raw, fmt.Errorf("GET /status: %w", err)
	}
	return &st, raw, nil
}

func (s *StatusClient) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return body, nil
}

// Sample is one Prometheus sample.
type Sample struct {
	Labels map[string]string `json:"labels,omitempty"`
	Value  float64           `json:"value"`
	// Quantiles and buckets of summaries and histograms, keyed by their
	// bound; Count and Sum with them.
	Quantiles map[string]float64 `json:"quantiles,omitempty"`
	Buckets   map[string]uint64  `json:"buckets,omitempty"`
	Count     uint64             `json:"count,omitempty"`
	Sum       float64            `json:"sum,omitempty"`
}

// Family is one metric family.
type Family struct {
	Name    string   `json:"name"`
	Help    string   `json:"help,omitempty"`
	Type    string   `json:"type"`
	Samples []Sample `json:"samples"`
}

// ParseMetrics parses Prometheus text exposition (what GetMetrics
// returns) into families sorted by name.
func ParseMetrics(text string) ([]Family, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	out := make([]Family, 0, len(fams))
	for name, f := range fams {
		fam := Family{Name: name, Help: f.GetHelp(), Type: strings.ToLower(f.GetType().String())}
		for _, m := range f.GetMetric() {
			s := Sample{}
			if len(m.GetLabel()) > 0 {
				s.Labels = map[string]string{}
				for _, l := range m.GetLabel() {
					s.Labels[l.GetName()] = l.GetValue()
				}
			}
			// By name, so this package needs no direct import of
			// client_model (an indirect module in go.mod).
			switch f.GetType().String() {
			case "COUNTER":
				s.Value = m.GetCounter().GetValue()
			case "GAUGE":
				s.Value = m.GetGauge().GetValue()
			case "UNTYPED":
				s.Value = m.GetUntyped().GetValue()
			case "SUMMARY":
				sm := m.GetSummary()
				s.Count, s.Sum = sm.GetSampleCount(), finite(sm.GetSampleSum())
				s.Quantiles = map[string]float64{}
				for _, q := range sm.GetQuantile() {
					s.Quantiles[strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)] = finite(q.GetValue())
				}
			case "HISTOGRAM":
				h := m.GetHistogram()
				s.Count, s.Sum = h.GetSampleCount(), finite(h.GetSampleSum())
				s.Buckets = map[string]uint64{}
				for _, b := range h.GetBucket() {
					s.Buckets[strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)] = b.GetCumulativeCount()
				}
			}
			s.Value = finite(s.Value)
			fam.Samples = append(fam.Samples, s)
		}
		out = append(out, fam)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// finite maps NaN and ±Inf (which JSON cannot carry) to 0.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// MetricValue returns the value of an unlabelled sample of name in
// Prometheus text, scanning lines (cheap enough to sample every second).
func MetricValue(text, name string) (float64, bool) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name+" ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil
	}
	return 0, false
}

// ResidentMetric is the process collector's resident-memory gauge.
const ResidentMetric = "process_resident_memory_bytes"
