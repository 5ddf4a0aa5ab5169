package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Page is a page open in headless Chromium and driven over the DevTools
// protocol, for what the dumped DOM cannot tell: layout (widths, what is
// visible), computed styles, script-evaluated facts. Chromium speaks the
// protocol over a pipe (--remote-debugging-pipe: commands on its fd 3,
// answers and events on its fd 4, each message NUL-terminated), so no port
// is opened and no WebSocket client is needed.
type Page struct {
	t       testing.TB
	cmd     *exec.Cmd
	in      *os.File // our end of Chromium's fd 3
	session string

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan reply
	readErr error
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Open loads url in headless Chromium with a viewport of width×height CSS
// pixels (device scale 1) and returns the page once its document has
// loaded; its scripts keep running in real time. The browser is closed
// when t ends.
func Open(t testing.TB, url string, width, height int) *Page {
	t.Helper()
	bin := Path(t)
	toChrome, ours, err := os.Pipe() // Chromium reads its fd 3
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromChrome, err := os.Pipe() // Chromium writes its fd 4
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--disable-dev-shm-usage", "--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting %s: %v", bin, err)
	}
	toChrome.Close()
	fromChrome.Close()
	p := &Page{t: t, cmd: cmd, in: ours, waiting: map[int]chan reply{}}
	go p.read(theirs)
	t.Cleanup(func() {
		p.send("", "Browser.close", nil) //nolint:errcheck // killed below if it did not close
		ours.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }() //nolint:errcheck // it was told to close
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cancel()
			<-done
		}
		cancel()
		theirs.Close()
	})

	var target struct {
		TargetID string `json:"targetId"`
	}
	p.must("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var att struct {
		SessionID string `json:"sessionId"`
	}
	p.must("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att)
	p.session = att.SessionID
	p.must(p.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	p.must(p.session, "Page.navigate", map[string]any{"url": url}, nil)
	p.WaitFor("the document of "+url, `document.readyState === "complete" && location.href !== "about:blank"`, time.Minute)
	return p
}

// read dispatches Chromium's answers to their callers; events are
// dropped.
func (p *Page) read(r *os.File) {
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			p.mu.Lock()
			p.readErr = fmt.Errorf("reading Chromium's DevTools pipe: %w", err)
			for id, ch := range p.waiting {
				close(ch)
				delete(p.waiting, id)
			}
			p.mu.Unlock()
			return
		}
		var m struct {
			ID int `json:"id"`
			reply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		p.mu.Lock()
		ch := p.waiting[m.ID]
		delete(p.waiting, m.ID)
		p.mu.Unlock()
		if ch != nil {
			ch <- m.reply
		}
	}
}

// send runs one DevTools command (in session, or on the browser when
// session is "") and returns its result.
func (p *Page) send(session, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	if p.readErr != nil {
		p.mu.Unlock()
		return nil, p.readErr
	}
	p.nextID++
	id := p.nextID
	ch := make(chan reply, 1)
	p.waiting[id] = ch
	p.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	if _, err := p.in.Write(append(b, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			p.mu.Lock()
			defer p.mu.Unlock()
			return nil, fmt.Errorf("%s: %w", method, p.readErr)
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		return r.Result, nil
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("%s: no answer from Chromium in a minute", method)
	}
}

func (p *Page) must(session, method string, params, out any) {
	p.t.Helper()
	res, err := p.send(session, method, params)
	if err != nil {
		p.t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(res, out); err != nil {
			p.t.Fatalf("%s: %v in %s", method, err, res)
		}
	}
}

// Eval evaluates the JavaScript expression expr in the page (awaiting it
// when it is a promise) and decodes its value, as JSON, into out (nil:
// ignore it). An exception fails the test.
func (p *Page) Eval(expr string, out any) {
	p.t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	p.must(p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if r.Exception != nil {
		p.t.Fatalf("evaluating %s: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			p.t.Fatalf("evaluating %s: %v in %s", expr, err, r.Result.Value)
		}
	}
}

// WaitFor evaluates the boolean expression expr until it is true, failing
// the test, which names what, after limit.
func (p *Page) WaitFor(what, expr string, limit time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var ok bool
		p.Eval("Boolean("+expr+")", &ok)
		if ok {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out after %v waiting for %s (%s)", limit, what, expr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Screenshot is what the viewport shows now.
func (p *Page) Screenshot() image.Image {
	p.t.Helper()
	var r struct {
		Data string `json:"data"`
	}
	p.must(p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		p.t.Fatalf("the screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		p.t.Fatalf("the screenshot: %v", err)
	}
	return img
}
