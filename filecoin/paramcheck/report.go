package paramcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/internal/bytesize"
)

// DirCheck is `cuzk params check`: a parameter directory against the
// official manifest or another, for people.
type DirCheck struct {
	Dir string
	// ManifestPath is a paramfetch manifest file; empty means Official.
	ManifestPath string
	// SectorSize, when not zero, checks only that size's .params and .vk
	// files.
	SectorSize filecoin.SectorSize
	// JSON writes the results as JSON instead of one line per file.
	JSON bool
	// ProgressEvery is how often the progress through a big file is
	// reported (a 32 GiB PoRep .params file is about 47 GB).
	ProgressEvery time.Duration
}

// Tally counts a check's results by state.
type Tally map[State]int

// Bad is the number of files that are not the manifest's: missing, with
// another digest or cuzk's INSECURE test parameters.
func (t Tally) Bad() int { return t[Missing] + t[Mismatch] + t[Insecure] }

// Unreadable is the number of files that could not be read.
func (t Tally) Unreadable() int { return t[Unreadable] }

// Run checks the directory, writing the results to out and the progress
// and a summary line to log. The digests are recorded beside the files
// (where this user may write), so that the daemon's own digest check reads
// them instead of hashing every file again on its first load. An error
// means the check could not be made or finish (an unreadable manifest, a
// size it lists nothing for, ctx done); the results so far are written
// first.
func (c DirCheck) Run(ctx context.Context, out, log io.Writer) (Tally, error) {
	m := Official()
	if c.ManifestPath != "" {
		raw, err := os.ReadFile(c.ManifestPath)
		if err != nil {
			return nil, err
		}
		if m, err = ParseManifest(raw); err != nil {
			return nil, fmt.Errorf("%s: %w", c.ManifestPath, err)
		}
	}
	sectorSize := uint64(c.SectorSize)
	if sectorSize != 0 && !slices.ContainsFunc(m, func(e Entry) bool {
		return e.SectorSize == sectorSize && strings.HasSuffix(e.Name, filecoin.ParamsExt)
	}) {
		return nil, fmt.Errorf("the manifest lists no .params file for %v sectors", c.SectorSize)
	}
	start := time.Now()
	res, err := Check(ctx, c.Dir, m, Options{SectorSize: sectorSize, Progress: HashProgress(log, c.ProgressEvery), Record: NewVerifier(m, nil)})
	if err != nil {
		WriteResults(out, res)
		return nil, fmt.Errorf("interrupted after %d of %d files (%w)", len(res), len(m.Select(sectorSize)), err)
	}
	if c.JSON {
		if err := writeJSON(out, res); err != nil {
			return nil, err
		}
	} else {
		WriteResults(out, res)
	}
	count := Tally{}
	var bytes int64
	for _, r := range res {
		count[r.State]++
		bytes += r.Size
	}
	scope := "all sector sizes"
	if sectorSize != 0 {
		scope = c.SectorSize.String() + " sectors"
	}
	fmt.Fprintf(log, "%d files for %s in %s (%s read in %v): %d ok, %d missing, %d wrong digest, %d INSECURE test parameters, %d unreadable\n",
		len(res), scope, c.Dir, bytesize.Format(bytes), time.Since(start).Round(time.Millisecond),
		count[OK], count[Missing], count[Mismatch], count[Insecure], count[Unreadable])
	return count, nil
}

// writeJSON writes the results indented, each with its error as text.
func writeJSON(w io.Writer, res []Result) error {
	type result struct {
		Result
		Error string `json:"error,omitempty"`
	}
	out := make([]result, len(res))
	for i, r := range res {
		out[i].Result = r
		if r.Err != nil {
			out[i].Error = r.Err.Error()
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteResults writes one line per file: its state, its name, and what
// was found when it is not ok.
func WriteResults(w io.Writer, res []Result) {
	for _, r := range res {
		var line string
		switch r.State {
		case OK:
			line = "ok         " + r.Name
			if r.Marker != "" {
				line += fmt.Sprintf(" (the official file; the INSECURE-TEST-PARAMETERS marker %s beside it is stale)", r.Marker)
			}
		case Missing:
			line = "MISSING    " + r.Name
		case Mismatch:
			line = fmt.Sprintf("WRONG      %s: digest %s, the manifest says %s", r.Name, r.Got, r.Digest)
		case Insecure:
			line = fmt.Sprintf("INSECURE   %s: cuzk's INSECURE test parameters (marker %s), not the official file", r.Name, r.Marker)
		case Unreadable:
			line = fmt.Sprintf("UNREADABLE %s: %v", r.Name, r.Err)
		}
		fmt.Fprintln(w, line)
	}
}

// HashProgress reports to w, at most every interval, how far the hashing
// of a file has got (an Options.Progress).
func HashProgress(w io.Writer, every time.Duration) func(r *Result, done int64) {
	var name string
	var start, last time.Time
	return func(r *Result, done int64) {
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
		fmt.Fprintf(w, "hashing %s: %s of %s (%.0f%%), %s/s\n", r.Name, bytesize.Format(done), bytesize.Format(r.Size),
			100*float64(done)/float64(max(r.Size, 1)), bytesize.Format(int64(rate)))
	}
}
