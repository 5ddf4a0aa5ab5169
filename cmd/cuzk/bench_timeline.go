package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/cuzk-dev/cuzk/bench"
	"github.com/cuzk-dev/cuzk/engine"
)

// runBenchTimeline is `cuzk bench timeline`: the pipeline drawn from the
// daemon's stage timing lines, as text and SVG.
func runBenchTimeline(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench timeline", stderr)
	logPath := fs.String("log", "-", "daemon log `file` with stage timing lines (CUZK_TIMING=1 or --log-level debug); - reads stdin")
	svgPath := fs.String("svg", "", "also write the picture to this SVG `file`")
	jobs := fs.String("jobs", "", "only these jobs: comma-separated ids or id prefixes")
	width := fs.Int("width", 100, "text width in columns of time")
	asJSON := fs.Bool("json", false, "print the timeline (spans, lanes, rows) as JSON instead of text")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk bench timeline")
	var in io.Reader = os.Stdin
	if *logPath != "-" {
		f, err := os.Open(*logPath)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		in = f
	}
	recs, lines, err := bench.ReadTimingLog(in)
	if err != nil {
		return fail("%v", err)
	}
	if *jobs != "" {
		want := strings.Split(*jobs, ",")
		recs = slices.DeleteFunc(recs, func(r engine.TimingRecord) bool {
			return !slices.ContainsFunc(want, func(p string) bool { return p != "" && strings.HasPrefix(r.Job, p) })
		})
	}
	tl, err := bench.NewTimeline(recs)
	if err != nil {
		return fail("%s (%d lines read): %v", *logPath, lines, err)
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
