package server

// The status listener's side of authentication. Programs (Prometheus,
// cuzk bench --status-addr, curl) send "Authorization: Bearer <token>". A
// browser cannot add a header to a page it navigates to, so /login takes
// the token once in a form and answers with a session cookie (HttpOnly,
// SameSite=Strict, Secure over TLS): a random id that names a session
// held here, never the token, so a cookie that leaks (a shared browser
// profile, a backup) opens nothing after it expires or the token is
// removed from the file. Tokens never go in URLs, where browser history,
// proxies and logs would keep them.

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SessionCookie is the cookie /login sets: a session id.
const SessionCookie = "cuzk_session"

// Sessions and failed logins. A session lasts a working day; a person
// logs in again the next. Sessions are bounded so that logins (which
// need a valid token) cannot grow the map without end: past
// maxSessions the oldest is dropped. Failed logins are limited per
// remote address and in all: a token has at least 128 bits, so the limit
// does not protect it from guessing as much as it keeps a scanner from
// spending the daemon's CPU and log on tries; the global limit covers
// scanners with many addresses, at the price of locking the form (not
// bearer tokens) for a minute while one runs.
const (
	sessionTTL          = 12 * time.Hour
	maxSessions         = 1024
	loginWindow         = time.Minute
	loginFailuresPerIP  = 10
	loginFailuresGlobal = 100
	// maxLoginAddrs bounds the per-address counters; when full, the
	// oldest windows go first.
	maxLoginAddrs = 4096
)

// httpHandler wraps h so that every request is authenticated; /login is
// served here when tokens are required.
func (a *Auth) httpHandler(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	if a.tokens != nil {
		mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) { loginPage(w, http.StatusOK, "") })
		mux.HandleFunc("POST /login", a.login)
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var session string
		if c, err := r.Cookie(SessionCookie); err == nil {
			session = c.Value
		}
		if _, err := a.authenticate(unixRequest(r), r.TLS, r.Header.Values("Authorization"), session); err != nil {
			a.denied(r.Method+" "+truncate(r.URL.Path, 80), r.RemoteAddr, err)
			if a.tokens != nil {
				w.Header().Set("WWW-Authenticate", `Bearer realm="cuzk"`)
			}
			if a.tokens != nil && strings.Contains(r.Header.Get("Accept"), "text/html") {
				loginPage(w, http.StatusUnauthorized, err.Error())
				return
			}
			http.Error(w, "unauthenticated: "+err.Error(), http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	return mux
}

// login checks the posted token (and the client certificate, when TLS
// requires one) and opens a session. The form must come from a page of
// this listener (Origin or Referer), so another site cannot log the
// browser in to a session of its choosing (login CSRF), and failures are
// rate-limited.
func (a *Auth) login(w http.ResponseWriter, r *http.Request) {
	if err := sameOrigin(r); err != nil {
		a.denied("POST /login", r.RemoteAddr, err)
		loginHeaders(w)
		http.Error(w, "forbidden: "+err.Error(), http.StatusForbidden)
		return
	}
	now := time.Now()
	addr := remoteIP(r)
	if wait := a.logins.wait(addr, now); wait > 0 {
		loginHeaders(w)
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Round(time.Second)/time.Second)+1))
		http.Error(w, "too many failed logins: try again later", http.StatusTooManyRequests)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	if _, err := a.authenticate(unixRequest(r), r.TLS, []string{"Bearer " + tok}, ""); err != nil {
		a.logins.failed(addr, now)
		a.denied("POST /login", r.RemoteAddr, err)
		loginPage(w, http.StatusUnauthorized, err.Error())
		return
	}
	id, err := a.sessions.open(sha256.Sum256([]byte(tok)), now)
	if err != nil {
		a.log.Error("opening a status page session", "err", err)
		http.Error(w, "cannot open a session", http.StatusInternalServerError)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: id, Path: "/", HttpOnly: true, MaxAge: int(sessionTTL / time.Second),
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// sameOrigin checks that a form post came from a page of the host it is
// sent to: its Origin (every current browser sends one with a POST), or
// else its Referer, must be this scheme and Host. A post with neither is
// refused: a browser always sends one of them, and programs use a bearer
// header instead of the form.
func sameOrigin(r *http.Request) error {
	from := r.Header.Get("Origin")
	what := "Origin"
	if from == "" {
		from, what = r.Header.Get("Referer"), "Referer"
	}
	if from == "" {
		return errUnauthenticated{"login form posted without Origin or Referer"}
	}
	u, err := url.Parse(from)
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if err != nil || u.Scheme != scheme || !strings.EqualFold(u.Host, r.Host) {
		return errUnauthenticated{"login form posted from another origin (" + what + " " + strconv.Quote(truncate(from, 80)) + ")"}
	}
	return nil
}

// remoteIP is the address failed logins are counted under: the client's
// IP without its port (one counter for a unix socket).
func remoteIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}

// unixRequest says r came over a unix socket.
func unixRequest(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && a.Network() == "unix"
}

// loginHeaders keep the login form out of frames (clickjacking: a page
// that shows the form under its own decoy) and let it load nothing and
// post only to this listener.
func loginHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// Not no-referrer: with it a browser sends "Origin: null" with the
	// form's POST, which sameOrigin refuses.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

func loginPage(w http.ResponseWriter, code int, msg string) {
	loginHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	p := ""
	if msg != "" {
		p = "<p>" + html.EscapeString(msg) + "</p>"
	}
	_, _ = w.Write([]byte(`<!doctype html><meta charset="utf-8"><title>cuzk: log in</title>` + p +
		`<form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password" autofocus></label> <button>Log in</button></form>`))
}

// sessionStore holds the status page's sessions, by id.
type sessionStore struct {
	mu sync.Mutex
	m  map[string]session
}

type session struct {
	token   [sha256.Size]byte // digest of the token the session was opened with
	expires time.Time
}

func newSessionStore() *sessionStore { return &sessionStore{m: map[string]session{}} }

// open starts a session for the token of digest sum and returns its id:
// 256 bits from crypto/rand, so an id cannot be guessed.
func (s *sessionStore) open(sum [sha256.Size]byte, now time.Time) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := base64.RawURLEncoding.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.m) >= maxSessions {
		var oldest string
		for k, v := range s.m {
			if !now.Before(v.expires) {
				delete(s.m, k)
			} else if oldest == "" || v.expires.Before(s.m[oldest].expires) {
				oldest = k
			}
		}
		if len(s.m) >= maxSessions {
			delete(s.m, oldest)
		}
	}
	s.m[id] = session{token: sum, expires: now.Add(sessionTTL)}
	return id, nil
}

// lookup returns the token digest of a live session.
func (s *sessionStore) lookup(id string, now time.Time) ([sha256.Size]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	if !ok {
		return [sha256.Size]byte{}, false
	}
	if !now.Before(v.expires) {
		delete(s.m, id)
		return [sha256.Size]byte{}, false
	}
	return v.token, true
}

// loginLimiter counts failed logins in fixed windows of loginWindow, per
// remote address and in all.
type loginLimiter struct {
	mu     sync.Mutex
	global window
	addrs  map[string]*window
}

type window struct {
	start time.Time
	n     int
}

func newLoginLimiter() *loginLimiter { return &loginLimiter{addrs: map[string]*window{}} }

// count is w's failures at now (0 once its window has passed).
func (w *window) count(now time.Time) int {
	if now.Sub(w.start) >= loginWindow {
		return 0
	}
	return w.n
}

// wait says how long addr must wait before its next try (0: it may try).
func (l *loginLimiter) wait(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var until time.Time
	if l.global.count(now) >= loginFailuresGlobal {
		until = l.global.start.Add(loginWindow)
	}
	if w := l.addrs[addr]; w != nil && w.count(now) >= loginFailuresPerIP {
		if t := w.start.Add(loginWindow); t.After(until) {
			until = t
		}
	}
	if until.IsZero() {
		return 0
	}
	return until.Sub(now)
}

// failed counts a failed login from addr.
func (l *loginLimiter) failed(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.global.add(now)
	w := l.addrs[addr]
	if w == nil {
		if len(l.addrs) >= maxLoginAddrs {
			l.pruneLocked(now)
		}
		w = &window{}
		l.addrs[addr] = w
	}
	w.add(now)
}

func (w *window) add(now time.Time) {
	if now.Sub(w.start) >= loginWindow {
		w.start, w.n = now, 0
	}
	w.n++
}

// pruneLocked drops the windows that have passed, and if none has, the
// oldest one: many addresses can reset their own counters this way, which
// the global counter still bounds.
func (l *loginLimiter) pruneLocked(now time.Time) {
	var oldest string
	for k, w := range l.addrs {
		if w.count(now) == 0 {
			delete(l.addrs, k)
		} else if oldest == "" || w.start.Before(l.addrs[oldest].start) {
			oldest = k
		}
	}
	if len(l.addrs) >= maxLoginAddrs {
		delete(l.addrs, oldest)
	}
}
