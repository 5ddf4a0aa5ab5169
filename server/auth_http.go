package server

// The status listener's side of authentication. Programs (Prometheus,
// cuzk bench --status-addr, curl) send "Authorization: Bearer <token>". A
// browser cannot add a header to a page it navigates to, so /login takes
// the token once in a form and keeps it in a cookie (HttpOnly,
// SameSite=Strict, Secure over TLS). Tokens never go in URLs, where
// browser history, proxies and logs would keep them.

import (
	"html"
	"net"
	"net/http"
	"strings"
)

// TokenCookie is the cookie /login sets.
const TokenCookie = "cuzk_token"

// httpHandler wraps h so that every request is authenticated; /login is
// served here when tokens are required.
func (a *Auth) httpHandler(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	if a.tokens != nil {
		mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) { loginPage(w, http.StatusOK, "") })
		mux.HandleFunc("POST /login", a.login)
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var cookie string
		if c, err := r.Cookie(TokenCookie); err == nil {
			cookie = c.Value
		}
		if _, err := a.authenticate(unixRequest(r), r.TLS, r.Header.Values("Authorization"), cookie); err != nil {
			a.denied(r.Method+" "+r.URL.Path, r.RemoteAddr, err)
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
// requires one) and keeps the token in a cookie.
func (a *Auth) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	if _, err := a.authenticate(unixRequest(r), r.TLS, []string{"Bearer " + tok}, ""); err != nil {
		a.denied("POST /login", r.RemoteAddr, err)
		loginPage(w, http.StatusUnauthorized, err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: tok, Path: "/", HttpOnly: true,
		Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// unixRequest says r came over a unix socket.
func unixRequest(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return ok && a.Network() == "unix"
}

func loginPage(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	p := ""
	if msg != "" {
		p = "<p>" + html.EscapeString(msg) + "</p>"
	}
	_, _ = w.Write([]byte(`<!doctype html><meta charset="utf-8"><title>cuzk: log in</title>` + p +
		`<form method="post" action="/login"><label>Token <input type="password" name="token" autocomplete="current-password" autofocus></label> <button>Log in</button></form>`))
}
