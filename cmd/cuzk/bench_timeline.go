package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// runBenchTimeline is `cuzk bench timeline`: the pipeline drawn from the
// stage records of the daemon's /status (its running jobs and the last
// 256 finished ones), as text and SVG.
func runBenchTimeline(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench timeline", stderr)
	statusAddr := fs.String("status-addr", "", "daemon status HTTP `address` (its status_listen): unix:///path.sock, host:port or http://host:port")
	statusFile := fs.String("status-file", "", "read a saved GET /status document from this `file` instead (- reads stdin)")
	svgPath := fs.String("svg", "", "also write the picture to this SVG `file`")
	jobs := fs.String("jobs", "", "only these jobs: comma-separated ids or id prefixes")
	width := fs.Int("width", 100, "text width in columns of time")
	asJSON := fs.Bool("json", false, "print the timeline (spans, lanes, rows) as JSON instead of text")
	creds := addCredentialFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench timeline")
	var st *statusdoc.Status
	var from string
	switch {
	case (*statusAddr == "") == (*statusFile == ""):
		return fail("give one of --status-addr and --status-file")
	case *statusAddr != "":
		sc, err := bench.NewStatusClient(*statusAddr)
		if err == nil {
			err = sc.WithCredentials(*creds)
		}
		if err != nil {
			return fail("%v", err)
		}
		if st, _, err = sc.Status(ctx); err != nil {
			return fail("%v", err)
		}
		from = *statusAddr
	default:
		var raw []byte
		var err error
		if *statusFile == "-" {
			raw, err = io.ReadAll(os.Stdin)
		} else {
			raw, err = os.ReadFile(*statusFile)
		}
		if err != nil {
			return fail("%v", err)
		}
		st = &statusdoc.Status{}
		if err := json.Unmarshal(raw, st); err != nil {
			return fail("%s: %v", *statusFile, err)
		}
		from = *statusFile
	}
	tl, err := bench.Timeline(st, *jobs)
	if err != nil {
		return fail("%s (%d running, %d recent jobs): %v", from, len(st.Jobs), len(st.RecentJobs), err)
	}
	if *svgPath != "" {
		f, err := os.Create(*svgPath)
		if err != nil {
			return fail("%v", err)
		}
		err = tl.WriteSVG(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fail("%s: %v", *svgPath, err)
		}
	}
	if *asJSON {
		if err := printJSON(stdout, tl); err != nil {
			return fail("%v", err)
		}
		return exitOK
	}
	if err := tl.WriteText(stdout, *width); err != nil {
		return fail("%v", err)
	}
	if *svgPath != "" {
		fmt.Fprintf(stdout, "\nwrote %s\n", *svgPath)
	}
	return exitOK
}
