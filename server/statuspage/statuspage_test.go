package statuspage_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"image"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/internal/browser"
	"github.com/cuzk-dev/cuzk/server/history"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/server/statuspage"
)

// hostile is a job id a client could choose: shown anywhere as markup, it
// would add an element and run script.
const hostile = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">&amp;`

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeStatus is a daemon with one job running (partition 0 proving,
// partition 1 synthesizing), one job queued at high priority, two
// finished jobs and two parameter sets (one of them insecure test
// parameters).
func fakeStatus() statusdoc.Status {
	stage := func(part int, name string, ms, durMs int) statusdoc.Stage {
		return statusdoc.Stage{Partition: part, Stage: name, Start: t0.Add(time.Duration(ms) * time.Millisecond),
			Duration: time.Duration(durMs) * time.Millisecond, Batch: 1, Circuit: "test-k10", Worker: "synthesis 0"}
	}
	return statusdoc.Status{
		Uptime:        90 * time.Second,
		CPUArithmetic: statusdoc.Arithmetic{Kind: "scalar", Reason: "known-answer check failed: <b>fp</b>", CheckFailed: true},
		Memory:        statusdoc.Memory{TotalBytes: 8 << 30, UsedBytes: 3 << 30, PeakBytes: 5 << 30, ParamsBytes: 1 << 30, Waiting: 1},
		Pipeline: statusdoc.Pipeline{SynthesisWorkers: 2, SynthesisConcurrency: 2, Lookahead: 1, Enabled: true,
			Synthesizing: 1, Proving: 1},
		Queues: []statusdoc.Queue{{Kind: "porep", Pending: 1}, {Kind: "test", InProgress: 1}, {Kind: "snap"}},
		Jobs: []statusdoc.Job{
			{ID: "run-" + hostile, Kind: "test", Circuit: "test-k10", Priority: "normal", State: "running", Batch: 2, BatchSize: 3, Age: 3 * time.Second,
				Waiters: 1, Partitions: []statusdoc.Partition{
					{Index: 0, State: "proving", Synthesis: 40 * time.Millisecond, InState: 1500 * time.Millisecond, Proving: 1500 * time.Millisecond},
					{Index: 1, State: "synthesizing", InState: 200 * time.Millisecond}},
				Stages: []statusdoc.Stage{stage(0, "synthesis", 1000, 40)}},
			{ID: "porep-1000-7", Kind: "porep", Circuit: "porep-32g", Priority: "high", State: "queued", Age: time.Second, Partitions: []statusdoc.Partition{}},
		},
		Params: []statusdoc.Param{
			{CircuitID: "test-k10", Tier: "hot", Bytes: 1 << 30, Refs: 1, Test: true, Loads: 1, LastLoad: 300 * time.Millisecond, File: "/p/cuzk-test-mixed-k10.params"},
			{CircuitID: "porep-32g", Tier: "cold", Official: true, File: "/p/v28-stacked-proof-of-replication.params"},
		},
		Counters: statusdoc.Counters{Completed: 1, Failed: 1},
		Kinds:    []string{"porep", "test"},
		ByKind:   map[string]statusdoc.KindCounters{"test": {Completed: 1, Failed: 1}},
		RecentJobs: []statusdoc.RecentJob{
			{ID: "done-" + hostile, Kind: "test", Circuit: "test-k10", Priority: "low", State: "completed", Batch: 1, BatchSize: 1, Partitions: 1,
				Submitted: t0, Finished: t0.Add(900 * time.Millisecond),
				Timings: statusdoc.Timings{QueueWait: 5 * time.Millisecond, SRSLoad: 300 * time.Millisecond, Synthesis: 200 * time.Millisecond,
					Prove: 350 * time.Millisecond, Total: 900 * time.Millisecond,
					ProveSteps: []statusdoc.StepTotal{{Step: "msm l", Sum: 20 * time.Millisecond, Max: 20 * time.Millisecond},
						{Step: "h", Sum: 60 * time.Millisecond, Max: 40 * time.Millisecond}, {Step: "<b>x</b>", Sum: 2 * time.Second, Max: 2 * time.Second}}},
				Stages: []statusdoc.Stage{stage(0, "srs_load", 0, 300), stage(0, "synthesis", 300, 200), stage(0, "prove", 500, 300),
					stage(0, "finish", 800, 50), {Partition: -1, Stage: "self_check", Start: t0.Add(850 * time.Millisecond), Duration: 40 * time.Millisecond, Worker: "verifier"}}},
			{ID: "broken", Kind: "test", Circuit: "test-k10", Priority: "normal", State: "failed", Partitions: 1, Submitted: t0,
				Finished: t0.Add(time.Second), Error: "synthesis: partition 0: <b>boom</b>", Stages: []statusdoc.Stage{}},
		},
	}
}

func serve(t *testing.T, st func() statusdoc.Status) *httptest.Server {
	t.Helper()
	return serveHistory(t, st, nil)
}

// serveHistory serves the page with hist as the daemon's last hour.
func serveHistory(t *testing.T, st func() statusdoc.Status, hist func() history.Series) *httptest.Server {
	t.Helper()
	page := statuspage.New(st, hist, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(st())
	})
	mux.Handle("GET "+statuspage.PagePath+"{$}", page)
	mux.Handle("GET "+statuspage.TimelinePath, page)
	mux.Handle("GET "+statuspage.HistoryPath, page)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// The page is served with a policy that admits exactly its inline script
// and style, and its script never turns data into markup.
func TestPageHeadersAndScript(t *testing.T) {
	srv := serve(t, fakeStatus)
	resp, body := get(t, srv.URL+"/")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("%s %v", resp.Status, resp.Header)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, tag := range []string{"script", "style"} {
		m := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllSubmatch(body, -1)
		if len(m) != 1 {
			t.Fatalf("%d <%s> elements", len(m), tag)
		}
		sum := sha256.Sum256(m[0][1])
		if want := tag + "-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q", csp)
	}
	// No external assets, and no API that parses strings as HTML or code.
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
		"setAttribute(\"on", "http://", "https://", "src=", "href="} {
		if bytes.Contains(body, []byte(bad)) {
			t.Errorf("page.html contains %q", bad)
		}
	}
	if resp, _ := get(t, srv.URL+"/nothing"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/nothing: %s", resp.Status)
	}
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	rec := httptest.NewRecorder()
	statuspage.New(fakeStatus, nil, nil).ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
	}
}

// svgTexts parses an SVG picture as XML and returns its text content;
// any element other than the drawing's own fails the test.
func svgTexts(t *testing.T, raw []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(raw))
	var texts strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			switch tok.Name.Local {
			case "svg", "rect", "line", "text", "title":
			default:
				t.Errorf("SVG has a <%s> element", tok.Name.Local)
			}
		case xml.CharData:
			texts.Write(tok)
		}
	}
	return texts.String()
}

func TestTimelineSVG(t *testing.T) {
	st := fakeStatus()
	srv := serve(t, func() statusdoc.Status { return st })
	resp, body := get(t, srv.URL+"/timeline.svg")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml; charset=utf-8" ||
		resp.Header.Get("Content-Security-Policy") != "default-src 'none'" {
		t.Fatalf("%s %v", resp.Status, resp.Header)
	}
	text := svgTexts(t, body)
	// Both jobs' ids are in the picture as text, whatever they contain.
	for _, want := range []string{"run-" + hostile, "done-" + hostile, "cuzk pipeline: 2 job(s), 2 partition(s)"} {
		if !strings.Contains(text, want) {
			t.Errorf("SVG text lacks %q:\n%s", want, text)
		}
	}
	// recent=0: only the running job.
	_, body = get(t, srv.URL+"/timeline.svg?recent=0")
	if text := svgTexts(t, body); strings.Contains(text, "done-") || !strings.Contains(text, "run-") {
		t.Errorf("recent=0 draws:\n%s", text)
	}
	for _, bad := range []string{"-1", "257", "x", "1e3"} {
		resp, body := get(t, srv.URL+"/timeline.svg?recent="+bad)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "recent:") {
			t.Errorf("recent=%s: %s %s", bad, resp.Status, body)
		}
	}
	// Nothing with stage records: no content.
	st.Jobs[0].Stages = nil
	if resp, body := get(t, srv.URL+"/timeline.svg?recent=0"); resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Errorf("no records: %s %q", resp.Status, body)
	}
}

// TestPageInBrowser renders the page in headless Chromium against a fixed
// status document and checks what a person would see in each section.
func TestPageInBrowser(t *testing.T) {
	browser.Path(t)
	srv := serveHistory(t, fakeStatus, fakeHistory())
	doc := browser.Load(t, srv.URL+"/", 5*time.Second)
	if title := doc.Title(); title != "cuzk daemon status" {
		t.Errorf("title %q: the page ran a job id as script", title)
	}
	if n := doc.Count("img") + doc.Count("b"); n != 0 {
		t.Errorf("%d <img>/<b> elements: a reported string was rendered as markup", n)
	}
	if s := doc.Count("script"); s != 1 {
		t.Errorf("%d <script> elements", s)
	}
	if e := doc.Text("error"); e != "" {
		t.Errorf("page reports %q", e)
	}
	if u := doc.Text("updated"); !strings.HasPrefix(u, "updated ") {
		t.Errorf("the page never updated (%q)", u)
	}
	wantRows(t, doc, "jobs", [][]string{
		{"job", "kind", "circuit", "priority", "state", "batch size", "age", "partitions", "waiters"},
		{"run-" + hostile, "test", "test-k10", "normal", "running", "3", "3.00 s", "2", "1"},
		{"porep-1000-7", "porep", "porep-32g", "high", "queued", "", "1.00 s", "0", "0"},
	})
	wantRows(t, doc, "partitions", [][]string{
		{"job", "partition", "stage", "synthesis", "prove", "in stage"},
		{"run-" + hostile, "0", "proving", "40 ms", "1.50 s …", "1.50 s"},
		{"run-" + hostile, "1", "synthesizing", "200 ms …", "0", "200 ms"},
	})
	wantRows(t, doc, "queues", [][]string{
		{"kind", "priority", "planning", "queued", "running"},
		{"porep", "high", "0", "1", "0"},
		{"test", "normal", "0", "0", "1"},
		{"snap", "—", "0", "0", "0"},
	})
	wantRows(t, doc, "memory", [][]string{
		{"", "bytes"},
		{"parameter sets", "1.00 GiB"},
		{"working sets", "2.00 GiB"},
		{"free", "5.00 GiB"},
		{"peak used", "5.00 GiB"},
		{"requests waiting for memory", "1"},
	})
	if m := doc.Text("mem-text"); m != "3.00 GiB of 8.00 GiB used" {
		t.Errorf("memory line %q", m)
	}
	wantRows(t, doc, "params", [][]string{
		{"circuit", "tier", "bytes", "refs", "idle", "loads", "last load", "kind", "file"},
		{"test-k10", "hot", "1.00 GiB", "1", "0", "1", "300 ms", "INSECURE test parameters", "/p/cuzk-test-mixed-k10.params"},
		{"porep-32g", "cold", "0 B", "0", "0", "0", "0", "official name", "/p/v28-stacked-proof-of-replication.params"},
	})
	rows := doc.Rows("recent")
	if len(rows) != 3 {
		t.Fatalf("recent jobs: %q", rows)
	}
	// Newest first; the finished time is the browser's local clock format.
	if r := rows[1]; r[0] != "broken" || r[4] != "failed" || r[6] != "" || r[13] != "synthesis: partition 0: <b>boom</b>" {
		t.Errorf("recent row %q", r)
	}
	if r := rows[2]; r[0] != "done-"+hostile || r[4] != "completed" || r[6] != "1" || strings.Join(r[7:12], "|") != "5.0 ms|300 ms|200 ms|350 ms|900 ms" {
		t.Errorf("recent row %q", r)
	}
	wantRows(t, doc, "steps", [][]string{
		{"job", "partitions", "prove", "msm l", "h", "<b>x</b>"},
		{"done-" + hostile, "1", "350 ms", "20 ms", "60 ms (max 40 ms)", "2.00 s"},
	})
	if a := doc.Text("arith"); a != "CPU arithmetic scalar (known-answer check failed: <b>fp</b>) — known-answer check FAILED" {
		t.Errorf("arithmetic line %q", a)
	}
	if s := doc.Text("summary"); !strings.Contains(s, "up 90.0 s") || !strings.Contains(s, "1 completed, 1 failed, 0 cancelled") ||
		strings.Contains(s, "DRAINING") {
		t.Errorf("summary %q", s)
	}
	// The timeline picture is in the page, drawn by the daemon.
	svg := doc.Text("timeline")
	for _, want := range []string{"cuzk pipeline: 2 job(s)", "run-" + hostile, "done-" + hostile, "synthesis"} {
		if !strings.Contains(svg, want) {
			t.Errorf("timeline lacks %q: %q", want, svg)
		}
	}
	if doc.Count("svg") != 1+len(history.Charts()) || doc.Count("rect") < 10 {
		t.Errorf("%d svg, %d rect elements", doc.Count("svg"), doc.Count("rect"))
	}
	// The charts of the last hour are in the page, with data.
	for _, c := range history.Charts() {
		if n := doc.CountClass("chart-"+string(c), "data"); n == 0 {
			t.Errorf("chart %s on the page has no data marks: %q", c, doc.Text("chart-"+string(c)))
		}
	}
}

// TestChartsInBrowser: each chart, drawn by Chromium, has coloured data
// marks in its plot area after a few proofs, and none before (checked on
// one: a browser start costs a second or two).
func TestChartsInBrowser(t *testing.T) {
	browser.Path(t)
	full := serveHistory(t, fakeStatus, fakeHistory())
	empty := serveHistory(t, fakeStatus, history.New(func() time.Time { return t0 }).Snapshot)
	size := history.Size()
	for _, c := range history.Charts() {
		path := "/history.svg?chart=" + string(c)
		img := browser.Screenshot(t, full.URL+path, size.X, size.Y, time.Second)
		if n := browser.Colourful(img, history.PlotArea()); n < 50 {
			t.Errorf("chart %s: %d coloured pixels in its plot area, want a chart's worth", c, n)
		}
	}
	img := browser.Screenshot(t, empty.URL+"/history.svg?chart=stages", size.X, size.Y, time.Second)
	if n := browser.Colourful(img, history.PlotArea()); n != 0 {
		t.Errorf("empty chart: %d coloured pixels in its plot area", n)
	}
}

// TestPageScreenshotInBrowser: in a screenshot of the whole page, the
// charts add colour where an empty history leaves their areas blank.
func TestPageScreenshotInBrowser(t *testing.T) {
	browser.Path(t)
	shot := func(h func() history.Series) int {
		srv := serveHistory(t, fakeStatus, h)
		return browser.Colourful(browser.Screenshot(t, srv.URL+"/", 1280, 1600, 3*time.Second), image.Rectangle{})
	}
	with, without := shot(fakeHistory()), shot(history.New(func() time.Time { return t0 }).Snapshot)
	if with < without+1000 {
		t.Errorf("the page has %d coloured pixels with charts of data, %d with empty ones: the charts do not show", with, without)
	}
	t.Logf("coloured pixels: %d with data, %d without", with, without)
}

// A draining daemon says so first thing on its page.
func TestPageShowsDrainingInBrowser(t *testing.T) {
	browser.Path(t)
	srv := serve(t, func() statusdoc.Status {
		st := fakeStatus()
		st.Draining = true
		return st
	})
	doc := browser.Load(t, srv.URL+"/", 5*time.Second)
	if s := doc.Text("summary"); !strings.HasPrefix(s, "DRAINING (shutting down: finishing its jobs, refusing new ones) · up 90.0 s") {
		t.Errorf("summary %q", s)
	}
}

func wantRows(t *testing.T, doc *browser.Doc, id string, want [][]string) {
	t.Helper()
	got := doc.Rows(id)
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("#%s rows:\n got %q\nwant %q", id, got, want)
	}
}

// fakeHistory is an hour with proofs, stages and samples in its last three
// minutes.
func fakeHistory() func() history.Series {
	now := t0
	h := history.New(func() time.Time { return now })
	for m := range 3 {
		h.Completed("porep")
		h.Completed("wpost")
		h.Stage("synthesis", time.Duration(m+1)*time.Second)
		h.Stage("prove", 2*time.Second)
		h.Record(history.Sample{QueueDepth: m, Running: 1, BudgetUsed: 3 << 30, BudgetTotal: 8 << 30, ResidentAnon: 2 << 30})
		now = now.Add(time.Minute)
	}
	return h.Snapshot
}

func TestHistorySVG(t *testing.T) {
	srv := serveHistory(t, fakeStatus, fakeHistory())
	for _, c := range history.Charts() {
		resp, body := get(t, srv.URL+"/history.svg?chart="+string(c))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml; charset=utf-8" ||
			resp.Header.Get("Content-Security-Policy") != "default-src 'none'" {
			t.Fatalf("chart %s: %s %v", c, resp.Status, resp.Header)
		}
		if err := xml.Unmarshal(body, new(struct {
			XMLName xml.Name `xml:"svg"`
		})); err != nil || !bytes.Contains(body, []byte(`class="data"`)) {
			t.Errorf("chart %s: %v, or no data marks in\n%s", c, err, body)
		}
	}
	for _, bad := range []string{"", "pie", "completed%3Cx"} {
		if resp, body := get(t, srv.URL+"/history.svg?chart="+bad); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "chart:") {
			t.Errorf("chart=%s: %s %s", bad, resp.Status, body)
		}
	}
	// A daemon without history has no charts.
	if resp, _ := get(t, serve(t, fakeStatus).URL+"/history.svg?chart=completed"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("without history: %s", resp.Status)
	}
}
