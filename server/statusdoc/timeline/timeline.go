package timeline

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// ErrNoTimings is returned when a timeline has no stage records to draw.
var ErrNoTimings = errors.New("no stage records (the daemon's /status lists its running jobs and the last 256 finished ones)")

// Record is one stage of one partition of a job (partition -1: the
// whole job), flattened out of the /status document (statusdoc.Stage with
// its job's id).
type Record struct {
	Job       string
	Partition int
	Stage     string
	Start     time.Time
	Duration  time.Duration
	Batch     uint64
	Circuit   string
	Worker    string
}

// End is when the stage ended.
func (r Record) End() time.Time { return r.Start.Add(r.Duration) }

// StageRecords collects the stage records of every job the /status
// document lists: the recently finished jobs and the running ones. keep,
// when not nil, selects jobs by id.
func StageRecords(st *statusdoc.Status, keep func(job string) bool) []Record {
	var out []Record
	add := func(job string, stages []statusdoc.Stage) {
		if keep != nil && !keep(job) {
			return
		}
		for _, s := range stages {
			out = append(out, Record{Job: job, Partition: s.Partition, Stage: s.Stage, Start: s.Start, Duration: s.Duration,
				Batch: s.Batch, Circuit: s.Circuit, Worker: s.Worker})
		}
	}
	for _, j := range st.RecentJobs {
		add(j.ID, j.Stages)
	}
	for _, j := range st.Jobs {
		add(j.ID, j.Stages)
	}
	return out
}

// PartRef names one partition of one job (partition -1: the whole job).
type PartRef struct {
	Job       string `json:"job"`
	Partition int    `json:"partition"`
}

// Span is one stage on one lane. Records of one batched item (the same
// stage, start and duration for several jobs' partitions) make one span
// with several parts.
type Span struct {
	Lane    string        `json:"lane"`
	Worker  string        `json:"worker,omitempty"` // the daemon's worker name (statusdoc.Worker*)
	Stage   string        `json:"stage"`
	Start   time.Duration `json:"start_ns"` // since the timeline's origin
	End     time.Duration `json:"end_ns"`
	Parts   []PartRef     `json:"parts"`
	Batch   uint64        `json:"batch,omitempty"`
	Circuit string        `json:"circuit,omitempty"`
}

// Gap is an idle stretch of a lane between two of its spans.
type Gap struct {
	Start time.Duration `json:"start_ns"`
	End   time.Duration `json:"end_ns"`
}

// Lane is one worker of the pipeline as the timeline reconstructs it.
type Lane struct {
	Name string `json:"name"`
	// Family is the stage family: "synth" (srs_load and synthesis),
	// "prove", "finish", "check" (self_check), or a stage's own name.
	Family      string        `json:"family"`
	Busy        time.Duration `json:"busy_ns"`
	Utilisation float64       `json:"utilisation"` // Busy over the timeline's length
	Gaps        []Gap         `json:"gaps"`        // idle gaps between the lane's spans
	LongestGap  Gap           `json:"longest_gap"`
}

// Row is one partition of one job: its stages in time order.
type Row struct {
	Job       string        `json:"job"`
	Partition int           `json:"partition"`
	Label     string        `json:"label"`
	Spans     []int         `json:"spans"` // indexes into Timeline.Spans
	First     time.Duration `json:"first_ns"`
	Last      time.Duration `json:"last_ns"`
}

// Timeline is the pipeline drawn from the daemon's stage records.
//
// The daemon names the worker of each stage but does not number its
// synthesis workers, so lanes are inferred: within a stage family, each
// span goes to the free lane that became free last (best fit), which keeps
// one item's srs_load and its partitions' syntheses on one lane, as one
// synthesis worker runs them, and never uses more lanes than spans
// overlap. The daemon's one prover and one finisher get one lane each.
type Timeline struct {
	Origin  time.Time     `json:"origin"`
	Length  time.Duration `json:"length_ns"`
	Records int           `json:"records"`
	Jobs    []string      `json:"jobs"` // in order of first activity
	Letters []string      `json:"letters"`
	Lanes   []Lane        `json:"lanes"`
	Rows    []Row         `json:"rows"`
	Spans   []Span        `json:"spans"`
}

func stageFamily(stage string) string {
	switch stage {
	case statusdoc.StageSRSLoad, statusdoc.StageSynthesis:
		return "synth"
	case statusdoc.StageProve:
		return "prove"
	case statusdoc.StageFinish:
		return "finish"
	case statusdoc.StageSelfCheck:
		return "check"
	}
	return stage
}

var familyOrder = []string{"synth", "prove", "finish", "check"}

// New builds the timeline of recs.
func New(recs []Record) (*Timeline, error) {
	if len(recs) == 0 {
		return nil, ErrNoTimings
	}
	t := &Timeline{Records: len(recs)}
	t.Origin = recs[0].Start
	var end time.Time
	for _, r := range recs {
		if r.Start.Before(t.Origin) {
			t.Origin = r.Start
		}
		if r.End().After(end) {
			end = r.End()
		}
	}
	t.Length = end.Sub(t.Origin)

	// One span per batched item and stage.
	type key struct {
		stage      string
		start, dur time.Duration
		batch      uint64
	}
	merged := map[key]int{}
	for _, r := range recs {
		s := Span{Worker: r.Worker, Stage: r.Stage, Start: r.Start.Sub(t.Origin), End: r.End().Sub(t.Origin), Batch: r.Batch, Circuit: r.Circuit}
		k := key{s.Stage, s.Start, r.Duration, r.Batch}
		if i, ok := merged[k]; ok && r.Batch != 0 {
			t.Spans[i].Parts = append(t.Spans[i].Parts, PartRef{r.Job, r.Partition})
			continue
		}
		s.Parts = []PartRef{{r.Job, r.Partition}}
		merged[k] = len(t.Spans)
		t.Spans = append(t.Spans, s)
	}
	slices.SortStableFunc(t.Spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})

	// Jobs in order of first activity, each with a letter.
	seen := map[string]bool{}
	for _, s := range t.Spans {
		for _, p := range s.Parts {
			if !seen[p.Job] {
				seen[p.Job] = true
				t.Jobs = append(t.Jobs, p.Job)
			}
		}
	}
	for i := range t.Jobs {
		t.Letters = append(t.Letters, jobLetter(i))
	}

	t.assignLanes()
	t.buildRows()
	return t, nil
}

const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// jobLetter names the i-th job; past 62 jobs the letters repeat.
func jobLetter(i int) string { return string(letters[i%len(letters)]) }

// Letter returns the letter of a job ("?" if unknown).
func (t *Timeline) Letter(job string) string {
	if i := slices.Index(t.Jobs, job); i >= 0 {
		return t.Letters[i]
	}
	return "?"
}

func (t *Timeline) assignLanes() {
	var families []string
	byFamily := map[string][]int{}
	for i, s := range t.Spans {
		f := stageFamily(s.Stage)
		if _, ok := byFamily[f]; !ok {
			families = append(families, f)
		}
		byFamily[f] = append(byFamily[f], i)
	}
	slices.SortStableFunc(families, func(a, b string) int {
		ia, ib := slices.Index(familyOrder, a), slices.Index(familyOrder, b)
		if ia < 0 {
			ia = len(familyOrder)
		}
		if ib < 0 {
			ib = len(familyOrder)
		}
		return cmp.Or(cmp.Compare(ia, ib), strings.Compare(a, b))
	})
	for _, f := range families {
		var lastEnd []time.Duration
		var members [][]int
		for _, i := range byFamily[f] { // in start order
			s := &t.Spans[i]
			best := -1
			for l, e := range lastEnd {
				if e <= s.Start && (best < 0 || e > lastEnd[best]) {
					best = l
				}
			}
			if best < 0 {
				best = len(lastEnd)
				lastEnd = append(lastEnd, 0)
				members = append(members, nil)
			}
			lastEnd[best] = s.End
			members[best] = append(members[best], i)
		}
		for l, idx := range members {
			name := f
			if len(members) > 1 || f == "synth" || f == "check" {
				name = fmt.Sprintf("%s %d", f, l+1)
			}
			lane := Lane{Name: name, Family: f}
			var prevEnd time.Duration = -1
			for _, i := range idx {
				s := &t.Spans[i]
				s.Lane = name
				lane.Busy += s.End - s.Start
				if prevEnd >= 0 && s.Start > prevEnd {
					g := Gap{prevEnd, s.Start}
					lane.Gaps = append(lane.Gaps, g)
					if g.End-g.Start > lane.LongestGap.End-lane.LongestGap.Start {
						lane.LongestGap = g
					}
				}
				prevEnd = max(prevEnd, s.End)
			}
			if t.Length > 0 {
				lane.Utilisation = float64(lane.Busy) / float64(t.Length)
			}
			t.Lanes = append(t.Lanes, lane)
		}
	}
}

func (t *Timeline) buildRows() {
	idx := map[PartRef]int{}
	for i, s := range t.Spans {
		for _, p := range s.Parts {
			r, ok := idx[p]
			if !ok {
				r = len(t.Rows)
				idx[p] = r
				label := t.Letter(p.Job) + " p" + fmt.Sprint(p.Partition)
				if p.Partition < 0 {
					label = t.Letter(p.Job) + " job"
				}
				t.Rows = append(t.Rows, Row{Job: p.Job, Partition: p.Partition, Label: label, First: s.Start, Last: s.End})
			}
			row := &t.Rows[r]
			row.Spans = append(row.Spans, i)
			row.First, row.Last = min(row.First, s.Start), max(row.Last, s.End)
		}
	}
	// Jobs in order of first activity, partitions in order, the job-wide
	// row (self_check) last.
	slices.SortStableFunc(t.Rows, func(a, b Row) int {
		ja, jb := slices.Index(t.Jobs, a.Job), slices.Index(t.Jobs, b.Job)
		pa, pb := a.Partition, b.Partition
		if pa < 0 {
			pa = math.MaxInt
		}
		if pb < 0 {
			pb = math.MaxInt
		}
		return cmp.Or(cmp.Compare(ja, jb), cmp.Compare(pa, pb))
	})
}

// LaneFamilyUtilisation is the busy time of a family's lanes (summed)
// over the timeline's length times its lane count.
func (t *Timeline) LaneFamilyUtilisation(family string) (busy time.Duration, lanes int, util float64) {
	for _, l := range t.Lanes {
		if l.Family == family {
			busy += l.Busy
			lanes++
		}
	}
	if lanes > 0 && t.Length > 0 {
		util = float64(busy) / float64(t.Length) / float64(lanes)
	}
	return busy, lanes, util
}

// stageChar marks a stage in the per-partition rows of the text view.
func stageChar(stage string) byte {
	switch stage {
	case statusdoc.StageSRSLoad:
		return 'l'
	case statusdoc.StageSynthesis:
		return 's'
	case statusdoc.StageProve:
		return 'P'
	case statusdoc.StageFinish:
		return 'f'
	case statusdoc.StageSelfCheck:
		return 'v'
	}
	return '?'
}

// WriteText draws the timeline as text, width columns of time: one row
// per lane (letters are jobs, '.' is idle), then one row per partition of
// each job (l srs_load, s synthesis, P prove, f finish, v self_check,
// '-' waiting between its stages), then the lanes' utilisation and longest
// idle gap.
func (t *Timeline) WriteText(w io.Writer, width int) error {
	width = max(width, 20)
	ew := &errWriter{w: w}
	scale := float64(t.Length) / float64(width)
	if scale <= 0 {
		scale = 1
	}
	labelW := len("partition")
	for _, l := range t.Lanes {
		labelW = max(labelW, len(l.Name))
	}
	for _, r := range t.Rows {
		labelW = max(labelW, len(r.Label))
	}
	nParts := 0
	for _, r := range t.Rows {
		if r.Partition >= 0 {
			nParts++
		}
	}
	ew.printf("cuzk pipeline timeline: %d job(s), %d partition(s), %d stage records, %s from %s\n",
		len(t.Jobs), nParts, t.Records, fmtSeconds(t.Length), t.Origin.UTC().Format(time.RFC3339Nano))
	ew.printf("one column = %s\n\n", fmtSeconds(time.Duration(scale)))
	axis := timeAxis(t.Length, width)
	ew.printf("%-*s  %s\n", labelW, "lane", axis)
	byLane := map[string][]int{}
	for i := range t.Spans {
		byLane[t.Spans[i].Lane] = append(byLane[t.Spans[i].Lane], i)
	}
	for _, l := range t.Lanes {
		line := t.columns(width, scale, byLane[l.Name], '.', func(s *Span) byte {
			if len(s.Parts) > 1 {
				return '*' // several jobs' partitions proved together
			}
			return t.Letter(s.Parts[0].Job)[0]
		}, 0, t.Length)
		ew.printf("%-*s |%s| busy %5.1f%%\n", labelW, l.Name, line, 100*l.Utilisation)
	}
	ew.printf("\n%-*s  %s\n", labelW, "partition", axis)
	for _, r := range t.Rows {
		line := t.columns(width, scale, r.Spans, '-', func(s *Span) byte { return stageChar(s.Stage) }, r.First, r.Last)
		ew.printf("%-*s |%s|\n", labelW, r.Label, line)
	}
	ew.printf("\nl srs_load  s synthesis  P prove  f finish  v self_check  - waiting  . idle  * a batch of several jobs\n")
	ew.printf("\n%-*s %8s %8s %6s  %s\n", labelW, "lane", "spans", "busy", "util", "longest idle gap")
	for _, l := range t.Lanes {
		n := len(byLane[l.Name])
		gap := "none"
		if g := l.LongestGap; g.End > g.Start {
			gap = fmt.Sprintf("%v (at +%s)", roundShort(g.End-g.Start), fmtSeconds(g.Start))
		}
		ew.printf("%-*s %8d %8s %5.1f%%  %s\n", labelW, l.Name, n, fmtSeconds(l.Busy), 100*l.Utilisation, gap)
	}
	ew.printf("\njobs:\n")
	for i, j := range t.Jobs {
		ew.printf("  %s  %s\n", t.Letters[i], j)
	}
	return ew.err
}

// columns renders the spans idx onto width columns: a column shows the
// span covering most of it, fill where none does inside [from, to), and
// ' ' outside.
func (t *Timeline) columns(width int, scale float64, idx []int, fill byte, mark func(*Span) byte, from, to time.Duration) string {
	line := make([]byte, width)
	cover := make([]float64, width)
	for c := range line {
		lo, hi := float64(c)*scale, float64(c+1)*scale
		if hi > float64(from) && lo < float64(to) || (from == to && lo <= float64(from) && float64(from) < hi) {
			line[c] = fill
		} else {
			line[c] = ' '
		}
	}
	for _, i := range idx {
		s := &t.Spans[i]
		first := int(float64(s.Start) / scale)
		last := int(float64(s.End) / scale)
		for c := max(first, 0); c <= min(last, width-1); c++ {
			lo, hi := float64(c)*scale, float64(c+1)*scale
			ov := math.Min(hi, float64(s.End)) - math.Max(lo, float64(s.Start))
			if s.End == s.Start {
				ov = 1e-9 // an instant still shows
			}
			if ov > 0 && ov >= cover[c] {
				cover[c] = ov
				line[c] = mark(s)
			}
		}
	}
	return string(line)
}

// timeAxis marks ticks over width columns of time: a '|' in the column
// of each tick, followed by its time.
func timeAxis(length time.Duration, width int) string {
	line := []byte(strings.Repeat(" ", width+8))
	step := niceStep(length, 8)
	last := -1
	for at := time.Duration(0); at <= length && step > 0; at += step {
		c := int(float64(at) / float64(length) * float64(width))
		label := "|" + fmtAxis(at)
		if c <= last || c+len(label) > len(line) {
			continue
		}
		copy(line[c:], label)
		last = c + len(label)
	}
	return strings.TrimRight(string(line), " ")
}

// niceStep is a 1-2-5 step giving about n ticks over length.
func niceStep(length time.Duration, n int) time.Duration {
	if length <= 0 {
		return 0
	}
	raw := float64(length) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return time.Duration(max(m*p, 1))
		}
	}
	return time.Duration(10 * p)
}

func fmtAxis(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	if d < time.Second {
		return fmt.Sprintf("%gms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%gs", d.Seconds())
}

// roundShort keeps about four significant digits: µs below a second, ms
// above.
func roundShort(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// fmtSeconds prints a duration in seconds with millisecond precision.
func fmtSeconds(d time.Duration) string { return fmt.Sprintf("%.3fs", d.Seconds()) }

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}
