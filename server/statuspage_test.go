package server_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/client"
	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/browser"
	"github.com/cuzk-dev/cuzk/server"
	"github.com/cuzk-dev/cuzk/server/history"
)

// TestStatusPageShowsRunningJob loads the daemon's status page in headless
// Chromium while a job is in synthesis and checks that the rendered page
// shows the job running and its partition's stage, the finished job
// before it with its stage times and in the timeline picture, and that
// the client-chosen ids stay text.
func TestStatusPageShowsRunningJob(t *testing.T) {
	browser.Path(t) // skip before starting a daemon when there is no browser
	d := startDaemon(t, "tcp", engine.Config{SynthesisWorkers: 1}, 0)
	ctx := context.Background()

	resp, err := http.Get(d.http + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>cuzk daemon status</title>") {
		t.Fatalf("GET /: %s\n%s", resp.Status, body)
	}

	const evil = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">`
	done, running := "done-"+evil, "page-"+evil
	if _, err := d.c.Prove(ctx, client.TestRequest(done, 10, nil)); err != nil {
		t.Fatal(err)
	}
	// Many slow partitions on one synthesis worker: the job stays in
	// synthesis for minutes unless cancelled, which ends it between two
	// partitions.
	if _, err := d.c.Submit(ctx, client.TestRequest(running, 10, opts(testkind.Options{Partitions: 64, SynthesisDelayMS: 2000}))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := d.c.Cancel(context.Background(), running); err != nil {
			t.Errorf("cancel: %v", err)
		}
		if _, err := d.c.Await(context.Background(), running, 0); !errors.Is(err, client.ErrCancelled) {
			t.Errorf("await after cancel: %v", err)
		}
	})
	waitFor(t, "the job in synthesis", func() bool { return d.eng.Status().Pipeline.Synthesizing == 1 })

	doc := browser.Load(t, d.http+"/", 2*time.Second)
	if title := doc.Title(); title != "cuzk daemon status" {
		t.Errorf("title %q: the page ran a job id as script", title)
	}
	if n := doc.Count("img"); n != 0 {
		t.Errorf("%d <img> elements: a job id was rendered as markup", n)
	}
	if e := doc.Text("error"); e != "" {
		t.Errorf("the page reports %q", e)
	}
	jobs := doc.Rows("jobs")
	if len(jobs) != 2 || !slices.Equal(jobs[1][:6], []string{running, "test", "test-k10", "normal", "running", "1"}) || jobs[1][7] != "64" {
		t.Errorf("running jobs table: %q", jobs)
	}
	synthesizing := 0
	for _, r := range doc.Rows("partitions")[1:] {
		if r[0] != running {
			t.Errorf("partition row %q", r)
		}
		if r[2] == "synthesizing" {
			synthesizing++
		}
	}
	if synthesizing != 1 {
		t.Errorf("%d partitions shown synthesizing: %q", synthesizing, doc.Rows("partitions"))
	}
	queues := doc.Rows("queues")
	if !slices.ContainsFunc(queues, func(r []string) bool { return slices.Equal(r, []string{"test", "normal", "0", "0", "1"}) }) {
		t.Errorf("queues table: %q", queues)
	}
	recent := doc.Rows("recent")
	if len(recent) != 2 || recent[1][0] != done || recent[1][4] != "completed" || recent[1][11] == "0" {
		t.Errorf("recent jobs table: %q", recent)
	}
	params := doc.Rows("params")
	if len(params) < 2 || params[1][0] != "test-k10" || params[1][1] != "hot" || params[1][7] != "INSECURE test parameters" {
		t.Errorf("parameter sets table: %q", params)
	}
	if tl := doc.Text("timeline"); !strings.Contains(tl, "cuzk pipeline: ") || !strings.Contains(tl, done) {
		t.Errorf("timeline: %q", tl)
	}
	// After one proof the last hour has data: the proof, its stages, and
	// the sampler's readings of the queue and memory.
	for _, c := range history.Charts() {
		if n := doc.CountClass("chart-"+string(c), "data"); n == 0 {
			t.Errorf("chart %s has no data marks: %q", c, doc.Text("chart-"+string(c)))
		}
	}
}

// Behind a token file the page and its picture are guarded like /status:
// a browser without the login cookie gets the login form, with it the
// page (and the page's own requests carry the cookie).
func TestStatusPageBehindToken(t *testing.T) {
	d := startSecured(t, "unix", server.Security{TokenFile: writeFile(t, t.TempDir(), "tokens", tokAlice)})
	get := func(path string, cookie *http.Cookie) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, d.http+path, nil)
		req.Header.Set("Accept", "text/html")
		if cookie != nil {
			req.AddCookie(cookie)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	for _, path := range []string{"/", "/timeline.svg"} {
		if resp, body := get(path, nil); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `action="/login"`) {
			t.Errorf("GET %s without a token: %s %.100q", path, resp.Status, body)
		}
	}
	r := login(t, d.http, tokAlice, d.http)
	if r.StatusCode != http.StatusSeeOther || len(r.Cookies()) != 1 {
		t.Fatalf("login: %s, cookies %v", r.Status, r.Cookies())
	}
	ck := r.Cookies()[0]
	if resp, body := get("/", ck); resp.StatusCode != http.StatusOK || !strings.Contains(body, "<title>cuzk daemon status</title>") ||
		!strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Errorf("GET / with the cookie: %s %v", resp.Status, resp.Header)
	}
	if resp, _ := get("/timeline.svg", ck); resp.StatusCode != http.StatusNoContent {
		t.Errorf("GET /timeline.svg with the cookie and no jobs: %s", resp.Status)
	}
}

// TestStatusPageDuringDrainInBrowser: a daemon that proved 256 jobs with
// long ids (a quarter of them failed), then drains while one more runs,
// shows the DRAINING banner on its page, which fits a 1280 px window with
// the error column on screen.
func TestStatusPageDuringDrainInBrowser(t *testing.T) {
	browser.Path(t)
	d := startDaemon(t, "tcp", engine.Config{SynthesisWorkers: 1}, 0)
	ctx := context.Background()
	fail := 0
	for i := range engine.MaxRecentJobs {
		var o []byte
		if i%4 == 3 {
			o = opts(testkind.Options{FailPartition: &fail})
		}
		if _, err := d.c.Submit(ctx, client.TestRequest(fmt.Sprintf("curio-sector-%06d-6e2d1f0c-8a2b-4c3d-9e8f-%012x", i, i*104729), 10, o)); err != nil {
			t.Fatal(err)
		}
	}
	waitWithin(t, "256 finished jobs", 2*time.Minute, func() bool { return len(d.eng.Status().RecentJobs) == engine.MaxRecentJobs })
	if _, err := d.c.Submit(ctx, client.TestRequest("held-while-draining", 10, opts(testkind.Options{Partitions: 2, SynthesisDelayMS: 60_000}))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the job in synthesis", func() bool { return d.eng.Status().Pipeline.Synthesizing == 1 })
	sctx, endDrain := context.WithTimeout(ctx, time.Minute)
	stopped := make(chan struct{})
	go func() {
		_ = d.srv.Shutdown(sctx)
		close(stopped)
	}()
	t.Cleanup(func() { endDrain(); <-stopped })
	waitFor(t, "the engine draining", func() bool { return d.eng.Status().Draining })

	p := browser.Open(t, d.http+"/", 1280, 900)
	p.WaitFor("the page's first update", `document.getElementById("updated").textContent !== ""`, time.Minute)
	var page struct {
		Banner                   string
		BannerHeight             float64
		ScrollWidth, ClientWidth int
		Errors                   int
		ErrorsRight              float64
	}
	p.Eval(`(() => { const b = document.getElementById("banner"), errs = [...document.querySelectorAll("#recent td.text")];
		return {Banner: b.textContent, BannerHeight: b.getBoundingClientRect().height,
			ScrollWidth: document.documentElement.scrollWidth, ClientWidth: document.documentElement.clientWidth,
			Errors: errs.filter((c) => c.textContent !== "").length,
			ErrorsRight: Math.max(...errs.map((c) => c.getBoundingClientRect().right))}; })()`, &page)
	if !strings.HasPrefix(page.Banner, "DRAINING") || page.BannerHeight < 30 {
		t.Errorf("while draining the banner is %q, %.0f px high", page.Banner, page.BannerHeight)
	}
	if page.ScrollWidth > page.ClientWidth || page.ErrorsRight > float64(page.ClientWidth) || page.Errors == 0 {
		t.Errorf("page %+v: want no overflow at 1280 px and the failed jobs of the last 20 with their errors on screen", page)
	}
	img := p.Screenshot()
	if n := browser.Colourful(img, image.Rect(0, 0, 1280, int(page.BannerHeight))); n < 1280*int(page.BannerHeight)/2 {
		t.Errorf("the banner's strip has %d coloured pixels: it does not show", n)
	}
}
