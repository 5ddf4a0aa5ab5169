package statuspage

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/cuzk-dev/cuzk/server/history"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/server/statusdoc/timeline"
)

// Paths the Handler serves; the daemon routes them to it.
const (
	PagePath     = "/"
	TimelinePath = "/timeline.svg"
	// HistoryPath draws one chart of the last hour, ?chart= naming it
	// (history.Chart).
	HistoryPath = "/history.svg"
)

// Timeline picture: running jobs plus the last DefaultRecent finished ones
// unless ?recent= says otherwise, at most MaxRecent (what /status keeps).
const (
	DefaultRecent = 8
	MaxRecent     = 256
)

//go:embed page.html
var page []byte

// pageCSP admits the page's one inline script and one inline style by
// their hashes, fetches from its own origin, and nothing else.
var pageCSP = mustPageCSP(page)

func mustPageCSP(html []byte) string {
	script, err := inline(html, "script")
	if err != nil {
		panic(err)
	}
	style, err := inline(html, "style")
	if err != nil {
		panic(err)
	}
	return "default-src 'none'; script-src '" + hash(script) + "'; style-src '" + hash(style) +
		"'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

// inline returns the text of the one <tag> element of html.
func inline(html []byte, tag string) ([]byte, error) {
	open, end := []byte("<"+tag+">"), []byte("</"+tag+">")
	if bytes.Count(html, open) != 1 || bytes.Count(html, end) != 1 {
		return nil, fmt.Errorf("statuspage: page.html must have exactly one <%s> element without attributes", tag)
	}
	_, rest, _ := bytes.Cut(html, open)
	body, _, _ := bytes.Cut(rest, end)
	return body, nil
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// Handler serves the page (PagePath), the timeline picture
// (TimelinePath) and the charts of the last hour (HistoryPath).
type Handler struct {
	status  func() statusdoc.Status
	history func() history.Series
	log     *slog.Logger
}

// New returns the handler; status returns a fresh /status document on
// each call, hist the last hour (nil: the daemon keeps none, and
// HistoryPath is not found).
func New(status func() statusdoc.Status, hist func() history.Series, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Handler{status: status, history: hist, log: log}
}

// ServeHTTP answers GET and HEAD on PagePath, TimelinePath and
// HistoryPath.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	switch r.URL.Path {
	case PagePath:
		hd.Set("Content-Type", "text/html; charset=utf-8")
		hd.Set("Content-Security-Policy", pageCSP)
		w.Write(page)
	case TimelinePath:
		h.timeline(w, r)
	case HistoryPath:
		h.chart(w, r)
	default:
		http.NotFound(w, r)
	}
}

// timeline draws the running jobs and the last ?recent= finished ones; 204
// when they have no stage records yet.
func (h *Handler) timeline(w http.ResponseWriter, r *http.Request) {
	n := DefaultRecent
	if s := r.URL.Query().Get("recent"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 || v > MaxRecent {
			http.Error(w, fmt.Sprintf("recent: %q is not a number of finished jobs from 0 to %d", s, MaxRecent), http.StatusBadRequest)
			return
		}
		n = v
	}
	st := h.status()
	keep := make(map[string]bool, len(st.Jobs)+n)
	for _, j := range st.Jobs {
		keep[j.ID] = true
	}
	for _, j := range st.RecentJobs[max(len(st.RecentJobs)-n, 0):] {
		keep[j.ID] = true
	}
	tl, err := timeline.New(timeline.StageRecords(&st, func(id string) bool { return keep[id] }))
	if errors.Is(err, timeline.ErrNoTimings) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var b bytes.Buffer
	if err := tl.WriteSVG(&b); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	if _, err := w.Write(b.Bytes()); err != nil {
		h.log.Debug("writing "+TimelinePath, "err", err)
	}
}

// chart draws ?chart= of the last hour.
func (h *Handler) chart(w http.ResponseWriter, r *http.Request) {
	if h.history == nil {
		http.NotFound(w, r)
		return
	}
	c := history.Chart(r.URL.Query().Get("chart"))
	var b bytes.Buffer
	if err := h.history().WriteSVG(&b, c); err != nil {
		http.Error(w, fmt.Sprintf("chart: %q is not one of %v", c, history.Charts()), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	if _, err := w.Write(b.Bytes()); err != nil {
		h.log.Debug("writing "+HistoryPath, "err", err)
	}
}
