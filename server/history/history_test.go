package history

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable clock for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newClock() *clock { return &clock{t: time.Date(2026, 1, 2, 3, 4, 30, 0, time.UTC)} }

func total(s Series, kind string) (n uint64) {
	for _, p := range s.Points {
		n += p.Completed[kind]
	}
	return n
}

// lastPoint is the current minute of s.
func lastPoint(s Series) Point { return s.Points[len(s.Points)-1] }

func TestSnapshotIsTheLastHourByMinute(t *testing.T) {
	c := newClock()
	h := New(c.now)
	h.Completed("porep")
	c.add(Step)
	h.Completed("porep")
	h.Completed("wpost")
	c.add(Window) // an hour later: the window is the last hour
	s := h.Snapshot()
	if len(s.Points) != Buckets {
		t.Fatalf("%d points, want %d", len(s.Points), Buckets)
	}
	c.add(-Window)
	s = h.Snapshot()
	if len(s.Points) != MinBuckets {
		t.Fatalf("%d points two minutes after the start, want %d", len(s.Points), MinBuckets)
	}
	for i := 1; i < len(s.Points); i++ {
		if d := s.Points[i].Start.Sub(s.Points[i-1].Start); d != Step {
			t.Fatalf("points %d and %d are %v apart, want %v", i-1, i, d, Step)
		}
	}
	last, prev := s.Points[len(s.Points)-1], s.Points[len(s.Points)-2]
	if !last.Start.Equal(time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)) || !s.End.Equal(last.Start.Add(Step)) {
		t.Errorf("last minute starts %v, series ends %v", last.Start, s.End)
	}
	if last.Completed["porep"] != 1 || last.Completed["wpost"] != 1 || prev.Completed["porep"] != 1 {
		t.Errorf("last minute %v, the one before %v; want porep 1 + wpost 1, porep 1", last.Completed, prev.Completed)
	}
	if got := s.Kinds(); !slices.Equal(got, []string{"porep", "wpost"}) {
		t.Errorf("Kinds = %v", got)
	}
}

// TestRollover: a minute older than the window leaves it, and its ring
// slot, reused an hour later, starts empty.
func TestRollover(t *testing.T) {
	c := newClock()
	h := New(c.now)
	for range 3 {
		h.Completed("porep")
	}
	h.Stage("prove", time.Second)
	h.Record(Sample{QueueDepth: 7})
	c.add(Window - Step) // the same slot's minute is still the oldest in the window
	if s := h.Snapshot(); total(s, "porep") != 3 || s.Points[0].Completed["porep"] != 3 || s.Points[0].Samples != 1 {
		t.Fatalf("59 minutes later: %d porep in the window, oldest minute %+v; want 3 in the oldest", total(s, "porep"), s.Points[0])
	}
	c.add(Step) // now it is an hour old: out, and the slot is this minute's
	s := h.Snapshot()
	if n := total(s, "porep"); n != 0 {
		t.Fatalf("an hour later %d porep proofs are still in the window", n)
	}
	h.Completed("porep")
	h.Record(Sample{QueueDepth: 1})
	s = h.Snapshot()
	last := lastPoint(s)
	if last.Completed["porep"] != 1 || last.Samples != 1 || last.Max.QueueDepth != 1 || last.Stages != nil {
		t.Errorf("the reused slot holds %+v; want only this minute's proof and sample", last)
	}
	// A long idle gap: everything is gone.
	c.add(5 * Window)
	if s := h.Snapshot(); total(s, "porep") != 0 || len(s.StageNames()) != 0 {
		t.Errorf("after five idle hours: %d proofs, stages %v", total(s, "porep"), s.StageNames())
	}
}

func TestRecordKeepsTheHighestReading(t *testing.T) {
	c := newClock()
	h := New(c.now)
	h.Record(Sample{QueueDepth: 2, Running: 1, BudgetUsed: 100, BudgetTotal: 1000, ResidentAnon: 50})
	h.Record(Sample{QueueDepth: 5, Running: 0, BudgetUsed: 40, BudgetTotal: 1000, ResidentAnon: 70})
	p := lastPoint(h.Snapshot())
	want := Sample{QueueDepth: 5, Running: 1, BudgetUsed: 100, BudgetTotal: 1000, ResidentAnon: 70}
	if p.Samples != 2 || p.Max != want {
		t.Errorf("got %d samples, max %+v; want 2, %+v", p.Samples, p.Max, want)
	}
}

// TestQuantilesMatchSortedData compares p50 and p95 with the nearest-rank
// quantiles of the sorted durations, over scales from microseconds to
// minutes: within one histogram bucket (2^(1/8), about 9%), in practice
// within half of one.
func TestQuantilesMatchSortedData(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, scale := range []time.Duration{time.Microsecond, 30 * time.Millisecond, 4 * time.Minute} {
		for _, n := range []int{1, 2, 19, 20, 101, 1000} {
			c := newClock()
			h := New(c.now)
			ds := make([]time.Duration, n)
			for i := range ds {
				// Log-normal-ish: a spread of two orders of magnitude.
				ds[i] = time.Duration(float64(scale) * math.Exp(rng.NormFloat64()))
				h.Stage("synthesis", ds[i])
			}
			slices.Sort(ds)
			q := lastPoint(h.Snapshot()).Stages["synthesis"]
			if q.N != uint64(n) {
				t.Fatalf("N = %d, want %d", q.N, n)
			}
			for _, c := range []struct {
				name string
				q    float64
				got  time.Duration
			}{{"p50", 0.5, q.P50}, {"p95", 0.95, q.P95}} {
				want := ds[int(math.Ceil(c.q*float64(n)))-1]
				ratio := float64(c.got) / float64(want)
				if lim := math.Exp2(1.0 / histPerOctave); ratio > lim || ratio < 1/lim {
					t.Errorf("scale %v n %d: %s = %v, sorted data say %v (ratio %.3f)", scale, n, c.name, c.got, want, ratio)
				}
			}
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	h := New(time.Now)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				h.Completed("k")
				h.Stage("prove", time.Duration(i+g)*time.Millisecond)
				h.Record(Sample{QueueDepth: i})
				_ = h.Snapshot()
			}
		})
	}
	wg.Wait()
	if n := total(h.Snapshot(), "k"); n != 800 {
		t.Errorf("%d completions counted, want 800", n)
	}
}

// svgOf draws chart c and checks that it is well-formed XML with an <svg>
// root; it returns the picture and the number of data marks in it.
func svgOf(t *testing.T, s Series, c Chart) (string, int) {
	t.Helper()
	var b bytes.Buffer
	if err := s.WriteSVG(&b, c); err != nil {
		t.Fatalf("WriteSVG(%s): %v", c, err)
	}
	dec := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	root, marks := "", 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart %s is not well-formed XML: %v\n%s", c, err, b.String())
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			for _, a := range se.Attr {
				if a.Name.Local == "class" && a.Value == "data" {
					marks++
				}
			}
		}
	}
	if root != "svg" {
		t.Fatalf("chart %s: root element %q, want svg", c, root)
	}
	return b.String(), marks
}

func TestChartsEmpty(t *testing.T) {
	s := New(newClock().now).Snapshot()
	for _, c := range Charts() {
		svg, marks := svgOf(t, s, c)
		if marks != 0 || !strings.Contains(svg, "no data in the last 5 minutes") {
			t.Errorf("empty chart %s: %d data marks, says no data: %v", c, marks, strings.Contains(svg, "no data"))
		}
	}
}

func TestChartsHaveDataAfterEvents(t *testing.T) {
	c := newClock()
	h := New(c.now)
	for m := range 3 {
		h.Completed("porep")
		h.Completed("<kind & co>") // escaped, not markup
		h.Stage("synthesis", time.Duration(m+1)*time.Second)
		h.Stage("prove", 2*time.Second)
		h.Record(Sample{QueueDepth: m, Running: 1, BudgetUsed: 1 << 30, BudgetTotal: 4 << 30, ResidentAnon: 2 << 30})
		c.add(Step)
	}
	s := h.Snapshot()
	want := map[Chart]int{
		ChartCompleted: 6, // 3 minutes × 2 kinds of bars
		ChartStages:    4, // 2 stages × p50, p95: one line each
		ChartQueue:     2,
		ChartMemory:    3,
	}
	for _, ch := range Charts() {
		svg, marks := svgOf(t, s, ch)
		if marks != want[ch] {
			t.Errorf("chart %s: %d data marks, want %d\n%s", ch, marks, want[ch], svg)
		}
		if strings.Contains(svg, "no data") {
			t.Errorf("chart %s with data says it has none", ch)
		}
	}
	svg, _ := svgOf(t, s, ChartCompleted)
	if !strings.Contains(svg, "&lt;kind &amp; co&gt;") {
		t.Errorf("the kind's name is not escaped in\n%s", svg)
	}
	// A stage seen in one minute alone is a dot, not an invisible line.
	c.add(2 * Step)
	h.Stage("finish", time.Millisecond)
	if svg, _ := svgOf(t, h.Snapshot(), ChartStages); !strings.Contains(svg, "<circle class=\"data\"") {
		t.Errorf("a lone minute of finish has no dot:\n%s", svg)
	}
}

// The daemon's five stages each have a legend entry in the stages chart
// (one for both of their lines), in their timeline colours.
func TestStagesLegend(t *testing.T) {
	h := New(newClock().now)
	stages := []string{"srs_load", "synthesis", "prove", "finish", "self_check"}
	for _, st := range stages {
		h.Stage(st, time.Second)
	}
	svg, marks := svgOf(t, h.Snapshot(), ChartStages)
	if marks != 2*len(stages) {
		t.Errorf("%d data marks, want a p50 and a p95 dot of each stage", marks)
	}
	for _, st := range stages {
		if n := strings.Count(svg, ">"+st+"</text>"); n != 1 {
			t.Errorf("%d legend entries of %s", n, st)
		}
		if !strings.Contains(svg, `fill="`+stageColours[st]+`"`) {
			t.Errorf("%s is not in its timeline colour %s", st, stageColours[st])
		}
	}
}

func TestChartUnknown(t *testing.T) {
	if err := New(time.Now).Snapshot().WriteSVG(io.Discard, "pie"); err == nil {
		t.Error("WriteSVG of an unknown chart did not fail")
	}
}

// TestWindowFitsTheLifetime: the charts cover the minutes since the
// history started (at least MinBuckets), up to the last hour.
func TestWindowFitsTheLifetime(t *testing.T) {
	c := newClock()
	h := New(c.now)
	for _, step := range []struct {
		after time.Duration
		want  int
	}{{0, MinBuckets}, {3 * Step, MinBuckets}, {4 * Step, MinBuckets}, {5 * Step, 6}, {20 * Step, 21}, {58 * Step, 59},
		{59 * Step, Buckets}, {60 * Step, Buckets}, {5 * Window, Buckets}} {
		c := &clock{t: c.now().Add(step.after)}
		h.now = c.now
		s := h.Snapshot()
		if len(s.Points) != step.want {
			t.Errorf("%v after the start: %d points, want %d", step.after, len(s.Points), step.want)
		}
		if step.want > MinBuckets && step.want < Buckets && !s.Points[0].Start.Equal(time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)) {
			t.Errorf("%v after the start: the first minute is %v, want the start's", step.after, s.Points[0].Start)
		}
	}
}

// yTicks returns the y tick labels of an SVG chart in order, one list per
// panel (a panel's labels start at 0).
func yTicks(t *testing.T, svg string) [][]string {
	t.Helper()
	var panels [][]string
	for _, m := range regexp.MustCompile(`<text class="ytick"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		if strings.HasPrefix(m[1], "0 ") || m[1] == "0" || len(panels) == 0 {
			panels = append(panels, nil)
		}
		panels[len(panels)-1] = append(panels[len(panels)-1], m[1])
	}
	return panels
}

// checkTicks fails unless labels are 0, s, 2s, … in one unit with s a
// round step (1, 2, 2.5 or 5 times a power of ten).
func checkTicks(t *testing.T, what string, labels []string) {
	t.Helper()
	if len(labels) < 3 {
		t.Errorf("%s: ticks %q, want at least three", what, labels)
		return
	}
	var unit string
	var vals []float64
	for i, l := range labels {
		num, u, _ := strings.Cut(l, " ")
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || (i > 0 && u != unit) {
			t.Errorf("%s: ticks %q are not numbers in one unit", what, labels)
			return
		}
		unit = u
		vals = append(vals, v)
	}
	step := vals[1] - vals[0]
	mant := step / math.Pow(10, math.Floor(math.Log10(step)))
	if vals[0] != 0 || !slices.ContainsFunc([]float64{1, 2, 2.5, 5}, func(m float64) bool { return math.Abs(m-mant) < 1e-9 }) {
		t.Errorf("%s: ticks %q do not start at 0 with a round step", what, labels)
	}
	for i := range vals {
		if math.Abs(vals[i]-float64(i)*step) > 1e-9*step*float64(i+1) {
			t.Errorf("%s: ticks %q are not evenly spaced", what, labels)
		}
	}
}

// TestTicksInOneUnit: memory in one binary unit at round steps (0, 1, 2,
// 3 GiB, not 0 B, 1000 MiB, 2.0 GiB), durations in one unit, and each
// stage on its own scale, so a prove of minutes leaves the other stages
// readable.
func TestTicksInOneUnit(t *testing.T) {
	c := newClock()
	h := New(c.now)
	for m := range 4 {
		h.Record(Sample{BudgetUsed: 2900 << 20, BudgetTotal: 12 << 30, ResidentAnon: int64(m+1) * 700 << 20})
		h.Completed("porep")
		h.Stage("synthesis", time.Duration(m+1)*300*time.Millisecond)
		h.Stage("prove", time.Duration(m+1)*time.Minute)
		h.Stage("self_check", 4*time.Millisecond)
		c.add(Step)
	}
	s := h.Snapshot()
	want := map[Chart][][]string{
		ChartMemory: {{"0 GiB", "2.5 GiB", "5 GiB", "7.5 GiB", "10 GiB", "12.5 GiB"}},
		// In pipeline order: synthesis, prove, self_check.
		ChartStages: {{"0 s", "1 s", "2 s"}, {"0 min", "2.5 min", "5 min"}, {"0 ms", "2.5 ms", "5 ms"}},
	}
	for _, ch := range Charts() {
		svg, _ := svgOf(t, s, ch)
		panels := yTicks(t, svg)
		for i, p := range panels {
			checkTicks(t, fmt.Sprintf("chart %s panel %d", ch, i), p)
		}
		if w, ok := want[ch]; ok && !slices.EqualFunc(panels, w, slices.Equal) {
			t.Errorf("chart %s: y ticks %q, want %q", ch, panels, w)
		}
	}
	// Below a GiB: MiB throughout.
	h = New(c.now)
	h.Record(Sample{BudgetUsed: 700 << 20, BudgetTotal: 1000 << 20})
	svg, _ := svgOf(t, h.Snapshot(), ChartMemory)
	if got := yTicks(t, svg); !slices.EqualFunc(got, [][]string{{"0 MiB", "250 MiB", "500 MiB", "750 MiB", "1000 MiB"}}, slices.Equal) {
		t.Errorf("memory below 1 GiB: ticks %q", got)
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct {
		v     float64
		whole bool
		want  float64
	}{{0, false, 1}, {0.3, false, 0.5}, {0.3, true, 1}, {1, false, 1}, {1.1, false, 2}, {2.1, false, 2.5}, {2.1, true, 5},
		{3, false, 5}, {7, true, 10}, {24, false, 25}, {24, true, 25}, {1100, false, 2000}} {
		if got := niceStep(c.v, c.whole); math.Abs(got-c.want) > 1e-9*c.want {
			t.Errorf("niceStep(%v, %v) = %v, want %v", c.v, c.whole, got, c.want)
		}
	}
}
