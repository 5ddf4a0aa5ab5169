// Package timeline draws the daemon's pipeline from the stage records of
// its GET /status document (server/statusdoc): which worker ran which
// stage of which partition when, as text (`cuzk bench timeline`) and as an
// SVG picture (that command's --svg, and the status page the daemon
// serves at / on its status listener, from live data).
//
// It imports only the standard library and the status document, so both
// the daemon (server) and the tools that read a daemon from outside
// (bench, cmd/cuzk) draw with this one implementation.
//
// Lanes are inferred, not reported: the daemon names each stage's worker
// but does not number its synthesis workers (see Timeline). Everything a
// client chose (job ids) is escaped in the SVG.
package timeline
