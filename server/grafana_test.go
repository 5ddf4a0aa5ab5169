package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
)

// dashboardPath is the Grafana dashboard docs/operations.md points
// operators at.
const dashboardPath = "../docs/grafana/cuzk.json"

// dashboard is the part of Grafana's dashboard model the checks read.
type dashboard struct {
	SchemaVersion int `json:"schemaVersion"`
	Inputs        []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		PluginID string `json:"pluginId"`
	} `json:"__inputs"`
	Templating struct {
		List []struct {
			Name       string          `json:"name"`
			Definition string          `json:"definition"`
			Datasource json.RawMessage `json:"datasource"`
		} `json:"list"`
	} `json:"templating"`
	Panels []dashboardPanel `json:"panels"`
}

type dashboardPanel struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Datasource  json.RawMessage `json:"datasource"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"` // a collapsed row's panels
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	return d
}

// queries lists every PromQL expression of the dashboard, named by where
// it is, with the instance variable's label_values query reduced to its
// series selector.
func (d dashboard) queries() map[string]string {
	q := map[string]string{}
	var walk func([]dashboardPanel)
	walk = func(ps []dashboardPanel) {
		for _, p := range ps {
			for i, tg := range p.Targets {
				q[fmt.Sprintf("panel %q target %d", p.Title, i)] = tg.Expr
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if m := labelValuesRE.FindStringSubmatch(v.Definition); m != nil {
			q[fmt.Sprintf("variable %q", v.Name)] = m[1]
		}
	}
	return q
}

var (
	labelValuesRE = regexp.MustCompile(`^\s*label_values\(\s*(.+?)\s*,\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$`)
	// Removed before names are read: string literals, label matchers,
	// range and subquery brackets, grouping label lists, and Grafana
	// variables ($instance, ${DS}, $__rate_interval).
	promqlStringRE   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	promqlMatchersRE = regexp.MustCompile(`\{[^{}]*\}`)
	promqlRangeRE    = regexp.MustCompile(`\[[^\[\]]*\]`)
	promqlGroupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)`)
	grafanaVarRE     = regexp.MustCompile(`\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*`)
	// A number (1, 0.95, 1e3, 0x1f) is consumed whole so its exponent is
	// not read as a name; a name followed by "(" is a function or an
	// aggregation.
	promqlTokenRE = regexp.MustCompile(`(?i)0x[0-9a-f]+|[0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?|([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?`)
)

// promqlKeywords are PromQL's words that are neither metrics nor followed
// by a parenthesis.
var promqlKeywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true,
	"inf": true, "nan": true, "start": true, "end": true}

// promqlMetrics returns the metric names expr selects.
func promqlMetrics(expr string) []string {
	s := promqlStringRE.ReplaceAllString(expr, " ")
	s = grafanaVarRE.ReplaceAllString(s, " ")
	s = promqlMatchersRE.ReplaceAllString(s, " ")
	s = promqlRangeRE.ReplaceAllString(s, " ")
	s = promqlGroupingRE.ReplaceAllString(s, " ")
	var names []string
	for _, m := range promqlTokenRE.FindAllStringSubmatch(s, -1) {
		tok := m[1]
		if tok == "" || m[2] != "" || promqlKeywords[strings.ToLower(tok)] {
			continue // a number, a function or aggregation, a keyword
		}
		if !slices.Contains(names, tok) {
			names = append(names, tok)
		}
	}
	return names
}

func TestPromQLMetrics(t *testing.T) {
	for expr, want := range map[string][]string{
		`cuzk_uptime_seconds`: {"cuzk_uptime_seconds"},
		`histogram_quantile(0.95, sum by (le, proof_kind) (rate(cuzk_stage_duration_seconds_bucket{instance=~"$instance",stage="total"}[$__rate_interval])))`: {"cuzk_stage_duration_seconds_bucket"},
		`sum by (circuit_id) (rate(a_sum[5m])) / ignoring(x) group_left(y) sum without (z) (rate(a_count{l="a{b}"}[1h:1m] offset 1e3))`:                       {"a_sum", "a_count"},
		`b > bool 2 and on (instance) c or d unless e * 1.5e-3`:        {"b", "c", "d", "e"},
		`go_gc_duration_seconds{instance=~"${instance}",quantile="1"}`: {"go_gc_duration_seconds"},
	} {
		if got := promqlMetrics(expr); !slices.Equal(got, want) {
			t.Errorf("promqlMetrics(%s) = %v, want %v", expr, got, want)
		}
	}
}

// exportedSeriesNames reads /metrics and returns every series name it
// exports: each family's name, and for a histogram its _bucket, _sum and
// _count series, for a summary its _sum and _count.
func exportedSeriesNames(t *testing.T, url string) map[string]bool {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	names := map[string]bool{}
	for name, f := range fams {
		names[name] = true
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM, dto.MetricType_GAUGE_HISTOGRAM:
			names[name+"_bucket"], names[name+"_sum"], names[name+"_count"] = true, true, true
		case dto.MetricType_SUMMARY:
			names[name+"_sum"], names[name+"_count"] = true, true
		}
	}
	return names
}

// TestGrafanaDashboard checks docs/grafana/cuzk.json against the daemon's
// /metrics: every metric a query uses must be exported, so a renamed or
// removed metric breaks this test and not an operator's dashboard.
func TestGrafanaDashboard(t *testing.T) {
	d := readDashboard(t)
	if d.SchemaVersion < 36 {
		t.Errorf("schemaVersion %d, want >= 36 (Grafana 9+)", d.SchemaVersion)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" || d.Inputs[0].PluginID != "prometheus" {
		t.Errorf("__inputs %+v, want one prometheus datasource input DS_PROMETHEUS", d.Inputs)
	}
	if len(d.Templating.List) == 0 || d.Templating.List[0].Name != "instance" {
		t.Errorf("templating %+v, want an instance variable", d.Templating.List)
	}
	var checkPanels func([]dashboardPanel)
	checkPanels = func(ps []dashboardPanel) {
		for _, p := range ps {
			if p.Type != "row" {
				if !strings.Contains(string(p.Datasource), "${DS_PROMETHEUS}") {
					t.Errorf("panel %q: datasource %s, want ${DS_PROMETHEUS}", p.Title, p.Datasource)
				}
				if p.FieldConfig.Defaults.Unit == "" {
					t.Errorf("panel %q has no unit", p.Title)
				}
				if len(p.Targets) == 0 {
					t.Errorf("panel %q has no query", p.Title)
				}
			}
			checkPanels(p.Panels)
		}
	}
	checkPanels(d.Panels)

	// A healthy daemon's /metrics after one completed proof: the
	// histograms have children, and the failure and cancellation
	// counters are there at 0 ("Proofs failed per kind" reads 0, not "No
	// data").
	dm := startDaemon(t, "tcp", engine.Config{}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := dm.c.Prove(ctx, client.TestRequest("ok", 10, nil)); err != nil {
		t.Fatal(err)
	}
	exported := exportedSeriesNames(t, dm.http+"/metrics")

	queries := d.queries()
	where := make([]string, 0, len(queries))
	for w := range queries {
		where = append(where, w)
	}
	sort.Strings(where)
	used := 0
	for _, w := range where {
		expr := queries[w]
		if !strings.HasPrefix(w, "variable") && !strings.Contains(expr, `instance=~"$instance"`) {
			t.Errorf("%s: %s does not filter by instance=~\"$instance\"", w, expr)
		}
		names := promqlMetrics(expr)
		if len(names) == 0 {
			t.Errorf("%s: no metric in %s", w, expr)
		}
		for _, n := range names {
			used++
			if !exported[n] {
				t.Errorf("%s queries %s, which /metrics does not export", w, n)
			}
		}
	}
	if used == 0 {
		t.Fatal("the dashboard queries no metric")
	}
}
