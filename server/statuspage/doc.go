// Package statuspage is the HTML page the daemon serves at / on its status
// listener (status_listen): queues by kind and priority, running jobs and
// their partitions' stages, the memory budget (parameter sets and working
// sets), loaded parameter sets, recent jobs with their stage times, the
// pipeline timeline, and charts of the last hour (server/history).
//
// The page is one static file (page.html, embedded) with its CSS and
// JavaScript inline: no build step, no external assets. Its script polls
// the daemon's GET /status document (server/statusdoc) and GET
// /timeline.svg, which this package draws from the same document with
// server/statusdoc/timeline, the drawing `cuzk bench timeline --svg` uses,
// and GET /history.svg?chart=, the daemon's own last hour drawn by
// server/history. Pictures are fetched and swapped in place, so a refresh
// does not flicker.
//
// The page fits a 1280 px window whatever the daemon reports: ids and
// paths are cut in the middle (the whole text is the tooltip), free text
// (errors) wraps in the width the other columns leave, and a draining
// daemon shows a banner across the top. Its browser tests measure that
// layout in headless Chromium over the DevTools protocol
// (internal/browser.Open).
//
// Job ids are chosen by clients, so nothing the daemon reports is ever
// turned into markup: the script writes text nodes only, the SVG escapes
// its text, and a Content-Security-Policy that admits only the page's own
// inline script and style (by hash) keeps an escaping mistake from
// running anything.
package statuspage
