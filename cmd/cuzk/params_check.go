package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/budget"
	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
)

// progressEvery is how often params check reports its progress through
// a big file.
const progressEvery = 5 * time.Second

// runParamsCheck is `cuzk params check`: every parameter file of the
// official manifest (or of --manifest), or a sector size's, is present in
// the parameter directory with the manifest's digest. Exit 0: all of them;
// 1: some are missing, have another digest or are cuzk's INSECURE test
// parameters; 2: usage, an unreadable manifest or file, or interrupted.
func runParamsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("params check", stderr)
	dir := fs.String("params", "", "parameter `directory` (default: $"+filecoin.ParameterCacheEnv+" or "+filecoin.DefaultParameterCacheDir+")")
	deprecatedFlag(fs, "dir", "params")
	manifestPath := fs.String("manifest", "", "paramfetch manifest `file` (default: the official v28 parameters.json, built in)")
	var size sectorSizeFlag // a --manifest may list any size
	fs.Var(&size, "sector-size", "check only this sector size's .params files (and every .vk, as paramfetch does): 2KiB, 8MiB, 512MiB, 32GiB, 64GiB")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk params check")
	*dir = filecoin.ParamDir(*dir, os.LookupEnv)
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return fail("parameter directory %s: %v", *dir, err)
	}
	m := paramcheck.Official()
	if *manifestPath != "" {
		raw, err := os.ReadFile(*manifestPath)
		if err != nil {
			return fail("%v", err)
		}
		if m, err = paramcheck.ParseManifest(raw); err != nil {
			return fail("%s: %v", *manifestPath, err)
		}
	}
	var sectorSize uint64
	if size.set {
		sectorSize = uint64(size.v)
		if !slices.ContainsFunc(m, func(e paramcheck.Entry) bool {
			return e.SectorSize == sectorSize && strings.HasSuffix(e.Name, filecoin.ParamsExt)
		}) {
			return fail("the manifest lists no .params file for %v sectors", size.v)
		}
	}

	start := time.Now()
	// The digests are recorded beside the files (where this user may
	// write), so the daemon's own digest check reads them instead of
	// hashing every file again on its first load.
	res, err := paramcheck.Check(ctx, *dir, m, paramcheck.Options{SectorSize: sectorSize, Progress: newHashProgress(stderr, progressEvery),
		Record: paramcheck.NewVerifier(m, nil)})
	if err != nil {
		printResults(stdout, res)
		return fail("interrupted after %d of %d files (%v)", len(res), len(m.Select(sectorSize)), err)
	}
	if *asJSON {
		type result struct {
			paramcheck.Result
			Error string `json:"error,omitempty"`
		}
		out := make([]result, len(res))
		for i, r := range res {
			out[i].Result = r
			if r.Err != nil {
				out[i].Error = r.Err.Error()
			}
		}
		if err := printJSON(stdout, out); err != nil {
			return fail("%v", err)
		}
	} else {
		printResults(stdout, res)
	}
	count := map[paramcheck.State]int{}
	var bytes int64
	for _, r := range res {
		count[r.State]++
		bytes += r.Size
	}
	scope := "all sector sizes"
	if size.set {
		scope = size.v.String() + " sectors"
	}
	fmt.Fprintf(stderr, "%d files for %s in %s (%s read in %v): %d ok, %d missing, %d wrong digest, %d INSECURE test parameters, %d unreadable\n",
		len(res), scope, *dir, budget.FormatBytes(bytes), time.Since(start).Round(time.Millisecond),
		count[paramcheck.OK], count[paramcheck.Missing], count[paramcheck.Mismatch], count[paramcheck.Insecure], count[paramcheck.Unreadable])
	switch {
	case count[paramcheck.Missing]+count[paramcheck.Mismatch]+count[paramcheck.Insecure] > 0:
		return exitInvalid
	case count[paramcheck.Unreadable] > 0:
		return exitError
	}
	return exitOK
}

// printResults writes one line per file: its state, its name, and what
// was found when it is not ok.
func printResults(w io.Writer, res []paramcheck.Result) {
	for _, r := range res {
		var line string
		switch r.State {
		case paramcheck.OK:
			line = "ok         " + r.Name
			if r.Marker != "" {
				line += fmt.Sprintf(" (the official file; the INSECURE-TEST-PARAMETERS marker %s beside it is stale)", r.Marker)
			}
		case paramcheck.Missing:
			line = "MISSING    " + r.Name
		case paramcheck.Mismatch:
			line = fmt.Sprintf("WRONG      %s: digest %s, the manifest says %s", r.Name, r.Got, r.Digest)
		case paramcheck.Insecure:
			line = fmt.Sprintf("INSECURE   %s: cuzk's INSECURE test parameters (marker %s), not the official file", r.Name, r.Marker)
		case paramcheck.Unreadable:
			line = fmt.Sprintf("UNREADABLE %s: %v", r.Name, r.Err)
		}
		fmt.Fprintln(w, line)
	}
}

// newHashProgress reports, at most every interval, how far the hashing
// of a file has got: a 32 GiB PoRep .params file is about 47 GB.
func newHashProgress(w io.Writer, every time.Duration) func(r *paramcheck.Result, done int64) {
	var name string
	var start, last time.Time
	return func(r *paramcheck.Result, done int64) {
		now := time.Now()
		if r.Name != name {
			name, start, last = r.Name, now, now
			return
		}
		if now.Sub(last) < every && done < r.Size {
			return
		}
		last = now
		if done >= r.Size && now.Sub(start) < every {
			return // a file quick enough to need no report
		}
		rate := float64(done) / max(now.Sub(start).Seconds(), 1e-9)
		fmt.Fprintf(w, "hashing %s: %s of %s (%.0f%%), %s/s\n", r.Name, budget.FormatBytes(done), budget.FormatBytes(r.Size),
			100*float64(done)/float64(max(r.Size, 1)), budget.FormatBytes(int64(rate)))
	}
}
