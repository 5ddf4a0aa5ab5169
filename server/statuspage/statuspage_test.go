package statuspage_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
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
		Pipeline: statusdoc.Pipeline{SynthesisWorkers: 2, SynthesisConcurrency: 1, Lookahead: 1, Enabled: true,
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
	// The pipeline's name-value rows have no (empty) header row; the
	// partitions synthesizing are counted against the workers (not the
	// batches allowed in synthesis, which made "2 of 1").
	if rows := doc.Rows("pipeline"); len(rows) < 2 || rows[0][0] != "synthesis queued" ||
		!slices.Equal(rows[1], []string{"synthesizing", "1 of 2 workers"}) {
		t.Errorf("#pipeline rows %q: want synthesis queued first, then synthesizing 1 of 2 workers", rows)
	}
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
	if b := doc.Text("banner"); b != "" {
		t.Errorf("a daemon that is not draining has the banner %q", b)
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

// A draining daemon says so first thing on its page, in a banner across
// it (red, white text), which a daemon that is not draining does not show.
func TestPageShowsDrainingInBrowser(t *testing.T) {
	browser.Path(t)
	srv := serve(t, func() statusdoc.Status {
		st := fakeStatus()
		st.Draining = true
		return st
	})
	p := browser.Open(t, srv.URL+"/", 1280, 900)
	p.WaitFor("the page's first update", `document.getElementById("updated").textContent !== ""`, time.Minute)
	var banner struct {
		Hidden                   bool
		Text, Background, Colour string
		X, Y, W, H               float64
	}
	p.Eval(`(() => { const b = document.getElementById("banner"), r = b.getBoundingClientRect(), cs = getComputedStyle(b);
		return {Hidden: b.hidden, Text: b.textContent, Background: cs.backgroundColor, Colour: cs.color,
			X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, &banner)
	if banner.Hidden || !strings.HasPrefix(banner.Text, "DRAINING: ") || banner.Background != "rgb(183, 28, 28)" || banner.Colour != "rgb(255, 255, 255)" {
		t.Errorf("banner %+v, want shown, red with white text", banner)
	}
	if banner.Y > 40 || banner.W < 1000 || banner.H < 30 {
		t.Errorf("banner at %+v: want it across the top of the page", banner)
	}
	// In the screenshot: the banner's box is red, with its text in it.
	img := p.Screenshot()
	box := image.Rect(int(banner.X), int(banner.Y), int(banner.X+banner.W), int(banner.Y+banner.H))
	if n, area := browser.Colourful(img, box), box.Dx()*box.Dy(); n < area/2 {
		t.Errorf("the banner's box has %d coloured pixels of %d", n, area)
	}
	var summary string
	p.Eval(`document.getElementById("summary").textContent`, &summary)
	if !strings.HasPrefix(summary, "up 90.0 s") {
		t.Errorf("summary %q", summary)
	}
	// Not draining: no banner.
	q := browser.Open(t, serve(t, fakeStatus).URL+"/", 1280, 900)
	q.WaitFor("the page's first update", `document.getElementById("updated").textContent !== ""`, time.Minute)
	var shown bool
	q.Eval(`document.getElementById("banner").offsetHeight > 0`, &shown)
	if shown {
		t.Error("a daemon that is not draining shows the banner")
	}
}

// busyStatus is fakeStatus with 256 finished jobs (every other one failed
// with a long error), ids of 60 characters that differ only in their middle
// and end, and a long parameter path: what a busy daemon keeps.
func busyStatus() statusdoc.Status {
	st := fakeStatus()
	done, failed := st.RecentJobs[0], st.RecentJobs[1]
	st.RecentJobs = nil
	for i := range statuspage.MaxRecent {
		r := done
		if i%2 == 1 {
			r = failed
			r.Error = "synthesis: partition 3: the vanilla proof of challenge 17 does not verify against comm_r_last " +
				"0x1234567890abcdef1234567890abcdef1234567890abcdef (sector 4711, miner f01234)"
		}
		if i%2 == 0 {
			// A 32 GiB PoRep's ten partitions: each step's sum over them
			// and the longest partition's, in every column.
			r.Partitions = 10
			r.Timings.ProveSteps = nil
			for j, step := range []string{"msm l", "msm a", "msm b_g1", "msm b_g2", "h", "msm h", "assemble"} {
				max := time.Duration(j+1)*7*time.Second + 123*time.Millisecond
				r.Timings.ProveSteps = append(r.Timings.ProveSteps, statusdoc.StepTotal{Step: step, Sum: 10*max - time.Second, Max: max})
			}
		}
		r.ID = fmt.Sprintf("curio-porep-c2-sector-%06d-%08x-8a2b-4c3d-9e8f-%012x", i, i*7919, i*104729)
		st.RecentJobs = append(st.RecentJobs, r)
	}
	st.Jobs[0].ID = "running-job-with-a-long-request-id-6e2d1f0c-8a2b-4c3d-9e8f-0123456789ab"
	st.Params[1].File = "/var/tmp/filecoin-proof-parameters/v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params"
	return st
}

// TestPageFitsIn1280InBrowser: with 256 recent jobs, long ids, long errors,
// a long parameter path and every prove step of ten-partition jobs, the page at 1280 px has no horizontal
// overflow, nothing in it scrolls sideways, and the error column is on
// screen with its text; ids are cut in their middle with the whole id as
// the tooltip. The charts' y ticks are in one unit at round steps, and a
// daemon up for minutes fills its charts' width.
func TestPageFitsIn1280InBrowser(t *testing.T) {
	browser.Path(t)
	st := busyStatus()
	srv := serveHistory(t, func() statusdoc.Status { return st }, fakeHistory())
	p := browser.Open(t, srv.URL+"/", 1280, 900)
	p.WaitFor("the page's charts", `document.querySelectorAll("#chart-memory svg").length === 1`, time.Minute)

	var page struct{ ScrollWidth, ClientWidth int }
	p.Eval(`({ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth})`, &page)
	if page.ClientWidth != 1280 || page.ScrollWidth > page.ClientWidth {
		t.Errorf("page %+v: wider than the window", page)
	}
	var sideways []string
	p.Eval(`[...document.querySelectorAll(".wide")].filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.id)`, &sideways)
	if len(sideways) != 0 {
		t.Errorf("sections scroll sideways: %q", sideways)
	}

	// The error column: every failed job's error cell lies inside the
	// window, wide enough to read.
	var errs []struct {
		Text        string
		Left, Right float64
		Top, Bottom float64
	}
	p.Eval(`[...document.querySelectorAll("#recent td.text")].map((c) => { const r = c.getBoundingClientRect();
		return {Text: c.textContent, Left: r.left, Right: r.right, Top: r.top + scrollY, Bottom: r.bottom + scrollY}; })`, &errs)
	if len(errs) != 20 {
		t.Fatalf("%d error cells in the recent jobs, want 20 (its rows)", len(errs))
	}
	for _, e := range errs {
		if e.Right > float64(page.ClientWidth) || e.Right-e.Left < 150 {
			t.Errorf("error cell %q at x %.0f..%.0f: not all in the %d px window", e.Text, e.Left, e.Right, page.ClientWidth)
		}
	}
	// In a screenshot of the first failed job's row, its error cell has
	// text (dark pixels) in it.
	var first int
	for i, e := range errs {
		if e.Text != "" {
			first = i
			break
		}
	}
	e := errs[first]
	p.Eval(fmt.Sprintf("window.scrollTo(0, %d)", int(e.Top)-10), nil)
	img := p.Screenshot()
	cell := image.Rect(int(e.Left), 10, int(e.Right), 10+int(e.Bottom-e.Top))
	if n := browser.Dark(img, cell); n < 200 {
		t.Errorf("the error cell %v has %d dark pixels in the screenshot: its text does not show", cell, n)
	}

	// Ids: the whole id is the tooltip and the cell's text; a long one is
	// cut (its head overflows, with an ellipsis) but its tail shows.
	var ids []struct {
		Title, Text, Tail string
		Cut               bool
	}
	p.Eval(`[...document.querySelectorAll("#recent .id, #jobs .id, #partitions .id, #params .id")].map((e) => {
		const head = e.querySelector(".head"), tail = e.querySelector(".tail");
		return {Title: e.title, Text: e.textContent, Tail: tail ? tail.textContent : "", Cut: !!head && head.scrollWidth > head.clientWidth}; })`, &ids)
	cut := 0
	for _, id := range ids {
		if id.Title != id.Text {
			t.Errorf("id %q has tooltip %q", id.Text, id.Title)
		}
		if id.Cut {
			cut++
			if id.Tail == "" || !strings.HasSuffix(id.Text, id.Tail) {
				t.Errorf("cut id %q shows no tail (%q)", id.Text, id.Tail)
			}
		}
	}
	if cut < 20 {
		t.Errorf("%d of %d ids cut: the long ones are not", cut, len(ids))
	}

	// Ticks, per chart (the stages chart: per panel).
	var ticks map[string][]string
	p.Eval(`Object.fromEntries(["completed", "stages", "queue", "memory"].map((c) =>
		[c, [...document.querySelectorAll("#chart-" + c + " text.ytick")].map((e) => e.textContent)]))`, &ticks)
	for c, labels := range ticks {
		var panels [][]string
		for _, l := range labels {
			if l == "0" || strings.HasPrefix(l, "0 ") {
				panels = append(panels, nil)
			}
			if len(panels) == 0 {
				t.Fatalf("chart %s: ticks %q do not start at 0", c, labels)
			}
			panels[len(panels)-1] = append(panels[len(panels)-1], l)
		}
		for _, ls := range panels {
			checkTicks(t, "chart "+c, ls)
		}
	}
	if !slices.Equal(ticks["memory"], []string{"0 GiB", "2 GiB", "4 GiB", "6 GiB", "8 GiB"}) {
		t.Errorf("memory ticks %q", ticks["memory"])
	}
	// The history holds three minutes of proofs: their bars fill more than
	// half of the completed chart's width, not a sliver of an hour.
	var span struct{ Data, Plot float64 }
	p.Eval(`(() => { const svg = document.querySelector("#chart-completed svg");
		const bars = [...svg.querySelectorAll(".data")].map((e) => e.getBBox());
		const frame = [...svg.querySelectorAll("rect")].find((r) => r.getAttribute("fill") === "none").getBBox();
		return {Data: Math.max(...bars.map((b) => b.x + b.width)) - Math.min(...bars.map((b) => b.x)), Plot: frame.width}; })()`, &span)
	if span.Data < span.Plot/2 {
		t.Errorf("three minutes of proofs span %.0f of the chart's %.0f px", span.Data, span.Plot)
	}
}

// checkTicks fails unless labels are 0, s, 2s, … in one unit with s a
// round step (1, 2, 2.5 or 5 times a power of ten).
func checkTicks(t *testing.T, what string, labels []string) {
	t.Helper()
	if len(labels) < 3 {
		t.Errorf("%s: ticks %q, want at least three", what, labels)
		return
	}
	var unit string
	var vals []float64
	for i, l := range labels {
		num, u, _ := strings.Cut(l, " ")
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || (i > 0 && u != unit) {
			t.Errorf("%s: ticks %q are not numbers in one unit", what, labels)
			return
		}
		unit = u
		vals = append(vals, v)
	}
	step := vals[1] - vals[0]
	mant := step / math.Pow(10, math.Floor(math.Log10(step)))
	if vals[0] != 0 || !slices.ContainsFunc([]float64{1, 2, 2.5, 5}, func(m float64) bool { return math.Abs(m-mant) < 1e-9 }) {
		t.Errorf("%s: ticks %q do not start at 0 with a round step", what, labels)
	}
	for i := range vals {
		if math.Abs(vals[i]-float64(i)*step) > 1e-9*step*float64(i+1) {
			t.Errorf("%s: ticks %q are not evenly spaced", what, labels)
		}
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
