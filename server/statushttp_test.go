package server_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/server"
)

// get sends GET path to base with the Host header host ("" leaves the
// URL's) and an optional bearer token, and returns the status code.
func getHost(t *testing.T, base, path, host, token string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+path, nil)
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("GET %s (Host %q): %v", path, host, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestStatusHostCheck: the status listener answers only to loopback
// names, the address it was reached at and status_hosts; any other Host
// (the forms a DNS rebinding page would send, and addresses that are not
// this listener's) gets 421 before authentication; pprof is off unless
// enabled, and behind the token when one is configured (issue 34 item 4).
func TestStatusHostCheck(t *testing.T) {
	d := startSecured(t, "unix", server.Security{TokenFile: writeFile(t, t.TempDir(), "tokens", tokAlice)},
		server.WithStatusHosts("Status.Example.NET", "fd00::5"))
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(d.http, "http://"))
	for _, host := range []string{"", "localhost", "LOCALHOST.:" + port, "127.0.0.1:" + port, "127.9.8.7", "[::1]:" + port,
		"[::ffff:127.0.0.1]", "status.example.net", "status.example.net.:" + port, "[fd00::5]:" + port} {
		if c := getHost(t, d.http, "/status", host, tokAlice); c != http.StatusOK {
			t.Errorf("Host %q: %d, want 200", host, c)
		}
	}
	for _, host := range []string{"evil.example", "evil.example:" + port, "localhost.evil.example", "evil.localhost", "0.0.0.0:" + port,
		"2130706433", "127.1", "0x7f000001", "[::]:" + port, "10.1.2.3", "status.example.net.evil", "[fd00::6]", "%6cocalhost"} {
		for _, path := range []string{"/status", "/metrics", "/", "/login", "/debug/pprof/"} {
			if c := getHost(t, d.http, path, host, tokAlice); c != http.StatusMisdirectedRequest {
				t.Errorf("Host %q %s: %d, want 421", host, path, c)
			}
		}
	}
	// pprof is off by default, and behind the token when on.
	if c := getHost(t, d.http, "/debug/pprof/", "", tokAlice); c != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without WithPprof: %d, want 404", c)
	}
	on := startSecured(t, "unix", server.Security{TokenFile: writeFile(t, t.TempDir(), "tokens", tokAlice)}, server.WithPprof(true))
	if c := getHost(t, on.http, "/debug/pprof/cmdline", "", ""); c != http.StatusUnauthorized {
		t.Errorf("/debug/pprof/cmdline without the token: %d, want 401", c)
	}
	if c := getHost(t, on.http, "/debug/pprof/cmdline", "", tokAlice); c != http.StatusOK {
		t.Errorf("/debug/pprof/cmdline with the token: %d, want 200", c)
	}
	// Without authentication the Host rule holds all the same.
	open := startDaemon(t, "unix", engine.Config{}, 0)
	if c := getHost(t, open.http, "/status", "rebind.example", ""); c != http.StatusMisdirectedRequest {
		t.Errorf("no auth, foreign Host: %d, want 421", c)
	}
	if c := getHost(t, open.http, "/debug/pprof/", "", ""); c != http.StatusNotFound {
		t.Errorf("no auth, pprof: %d, want 404", c)
	}
}

// TestStatusListenerLimits: headers above MaxHeaderBytes are refused; a
// connection that sends no request, a trickled header, or idles after a
// request is closed by the server after its timeout (issue 34 item 4).
func TestStatusListenerLimits(t *testing.T) {
	defer server.SetStatusTimeouts(300*time.Millisecond, 300*time.Millisecond)()
	d := startDaemon(t, "unix", engine.Config{}, 0)
	addr := strings.TrimPrefix(d.http, "http://")

	req, _ := http.NewRequest(http.MethodGet, d.http+"/status", nil)
	req.Header.Set("X-Filler", strings.Repeat("x", 64<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("64 KiB of headers: %s, want 431", resp.Status)
	}

	closedWithin := func(what string, c net.Conn, d time.Duration) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(d))
		_, err := io.Copy(io.Discard, c)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("%s: connection still open after %v", what, d)
				return
			}
		}
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	closedWithin("no request", dial(), 5*time.Second)
	c := dial()
	io.WriteString(c, "GET /status HTTP/1.1\r\nHost: localhost\r\n")
	closedWithin("a header never finished", c, 5*time.Second)

	c = dial()
	io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err = http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("keep-alive request: %v %v", resp, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	start := time.Now()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("idle keep-alive connection: %v after %v, want EOF", err, time.Since(start))
	}
}

// TestLoginSession: /login answers with a random session id, not the
// token; it wants the form posted from its own origin; the form's page
// cannot be framed and loads nothing; failed logins are rate-limited per
// address (even the right token waits); a session ends with its token's
// removal from the file (issue 34 item 5).
func TestLoginSession(t *testing.T) {
	dir := t.TempDir()
	tokens := writeFile(t, dir, "tokens", "alice "+tokAlice+"\nbob "+tokBob+"\n")
	d := startSecured(t, "unix", server.Security{TokenFile: tokens, Recheck: time.Millisecond})
	// The form and the 401 page a browser gets carry the framing and
	// content rules.
	for _, path := range []string{"/login", "/status"} {
		req, _ := http.NewRequest(http.MethodGet, d.http+path, nil)
		req.Header.Set("Accept", "text/html")
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") ||
			!strings.Contains(csp, "form-action 'self'") || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: CSP %q, X-Frame-Options %q", path, csp, h.Get("X-Frame-Options"))
		}
	}
	// Another origin, or none, is refused whatever the token.
	for _, origin := range []string{"", "http://evil.example", "null", "https://" + strings.TrimPrefix(d.http, "http://"), d.http + ".evil.example"} {
		if r := login(t, d.http, tokAlice, origin); r.StatusCode != http.StatusForbidden || len(r.Cookies()) != 0 {
			t.Errorf("login with Origin %q: %d, cookies %v; want 403 and none", origin, r.StatusCode, r.Cookies())
		}
	}
	// A Referer of the page does when there is no Origin.
	req, _ := http.NewRequest(http.MethodPost, d.http+"/login", strings.NewReader("token="+tokBob))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", d.http+"/login")
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("login with a same-origin Referer: %s %v", resp.Status, resp.Cookies())
	}
	bobCookie := resp.Cookies()[0]

	// Two logins: two sessions, each id 256 random bits, neither the token.
	ids := map[string]bool{}
	var alice *http.Cookie
	for range 2 {
		r := login(t, d.http, tokAlice, d.http)
		if r.StatusCode != http.StatusSeeOther || len(r.Cookies()) != 1 {
			t.Fatalf("login: %d %v", r.StatusCode, r.Cookies())
		}
		alice = r.Cookies()[0]
		if alice.Value == tokAlice || strings.Contains(alice.Value, tokAlice) || len(alice.Value) < 43 || ids[alice.Value] {
			t.Fatalf("session cookie %q: want a fresh random id, not the token", alice.Value)
		}
		if alice.MaxAge <= 0 || alice.MaxAge > 24*3600 {
			t.Errorf("session cookie Max-Age %d, want an expiry within a day", alice.MaxAge)
		}
		ids[alice.Value] = true
	}
	status := func(ck *http.Cookie) int {
		req, _ := http.NewRequest(http.MethodGet, d.http+"/status", nil)
		req.AddCookie(ck)
		resp, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := status(alice); c != http.StatusOK {
		t.Fatalf("GET /status with the session: %d", c)
	}
	for _, forged := range []string{tokAlice, alice.Value + "x", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} {
		if c := status(&http.Cookie{Name: server.SessionCookie, Value: forged}); c != http.StatusUnauthorized {
			t.Errorf("session cookie %.12q…: %d, want 401", forged, c)
		}
	}
	// Removing bob's token from the file ends his session, not alice's.
	if err := os.WriteFile(tokens+".new", []byte("alice "+tokAlice+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tokens+".new", tokens); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "bob's session to end", func() bool { return status(bobCookie) == http.StatusUnauthorized })
	if c := status(alice); c != http.StatusOK {
		t.Errorf("alice's session after bob's token went: %d", c)
	}

	// Failed logins: after ten from one address, even the right token
	// waits, with Retry-After.
	for i := range 10 {
		if r := login(t, d.http, tokEve, d.http); r.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failed login %d: %d, want 401", i+1, r.StatusCode)
		}
	}
	r := login(t, d.http, tokAlice, d.http)
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || len(r.Cookies()) != 0 {
		t.Errorf("login after 10 failures: %d, Retry-After %q, cookies %v; want 429", r.StatusCode, r.Header.Get("Retry-After"), r.Cookies())
	}
	// Bearer tokens are not held back by the form's limit.
	if c := getHost(t, d.http, "/status", "", tokAlice); c != http.StatusOK {
		t.Errorf("bearer token during the login limit: %d", c)
	}
}
