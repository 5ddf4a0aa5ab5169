package history

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Chart names one of the pictures WriteSVG draws.
type Chart string

// The charts, as the status page's /history.svg?chart= names them.
const (
	ChartCompleted Chart = "completed" // proofs completed per minute, stacked by kind
	ChartStages    Chart = "stages"    // p50 (solid) and p95 (dashed) of each stage's duration per minute
	ChartQueue     Chart = "queue"     // the highest queue depth and running jobs of each minute
	ChartMemory    Chart = "memory"    // the highest budget reservation and anonymous resident memory of each minute
)

// Charts are every chart, in the order the status page shows them.
func Charts() []Chart { return []Chart{ChartCompleted, ChartStages, ChartQueue, ChartMemory} }

// palette: Tableau 10, the timeline's colours.
var palette = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

// Layout, in pixels. The stages chart has one panel per stage, each
// stagePanelH high with a label above it, so it is taller than the others.
const (
	svgW, svgH     = 560, 220
	padL, padR     = 64, 12
	padT, padB     = 26, 44
	plotW, plotH   = svgW - padL - padR, svgH - padT - padB
	stagePanelH    = 56
	stageLabelH    = 16 // above each stage's panel: its name
	stageGap       = 10 // below each stage's panel
	noDataFontSize = 13
	strokeWidth    = "1.8"
)

// Size is the width and height of every chart but the stages chart, in
// pixels; the stages chart is as wide and grows by one panel per stage.
func Size() image.Point { return image.Pt(svgW, svgH) }

// PlotArea is where a chart draws its data, in its pixels (the stages
// chart: its first panels).
func PlotArea() image.Rectangle { return image.Rect(padL, padT, padL+plotW, padT+plotH) }

// stageColours are the timeline's colours of the pipeline stages
// (server/statusdoc/timeline), so a stage looks the same in both pictures
// and keeps its colour when another stage appears.
var stageColours = map[string]string{
	"srs_load": "#b07aa1", "synthesis": "#4e79a7", "prove": "#f28e2b", "finish": "#59a14f", "self_check": "#76b7b2",
}

// stageOrder is the pipeline's order of its stages, the stages chart's
// panels from top to bottom; a stage not listed goes after them.
var stageOrder = []string{"srs_load", "synthesis", "prove", "finish", "self_check"}

func stageRank(st string) int {
	if i := slices.Index(stageOrder, st); i >= 0 {
		return i
	}
	return len(stageOrder)
}

// series is one line (or one layer of stacked bars) of a chart.
type series struct {
	name   string
	legend string // "": no legend entry of its own
	colour string
	dashed bool
	// values per point; NaN: no value in that minute (a gap in the line).
	values []float64
}

// panel is one plot area with its own y axis: the whole chart, or one
// stage of the stages chart.
type panel struct {
	label  string // drawn above the panel ("": none)
	colour string // the label's swatch
	top, h int    // in the picture's pixels
	ss     []series
	stack  bool
	q      quantity
	steps  []int // the grid intervals the y axis may have (niceAxis)
}

// WriteSVG draws chart c of s: a self-contained SVG picture (no script,
// no external reference) with the minutes of s along x. Every data mark
// has class "data", so a reader can tell a chart with data from an empty
// one; a chart without data says so in its plot area. Each y axis is in
// one unit at round steps from 0 (y tick labels have class "ytick", x
// tick labels, clock times on whole minutes, "xtick").
func (s Series) WriteSVG(w io.Writer, c Chart) error {
	n := len(s.Points)
	val := func(f func(Point) (float64, bool)) []float64 {
		v := make([]float64, n)
		for i, p := range s.Points {
			x, ok := f(p)
			if !ok {
				x = math.NaN()
			}
			v[i] = x
		}
		return v
	}
	var (
		title  string
		panels []panel
		legend []series // entries only, below the plot
	)
	whole := []int{4, 5, 3, 2}
	switch c {
	case ChartCompleted:
		title = "proofs completed per minute, by kind"
		p := panel{top: padT, h: plotH, stack: true, q: quantityCount, steps: whole}
		for i, k := range s.Kinds() {
			p.ss = append(p.ss, series{name: k, legend: k, colour: palette[i%len(palette)], values: val(func(p Point) (float64, bool) {
				return float64(p.Completed[k]), true
			})})
		}
		panels, legend = []panel{p}, p.ss
	case ChartStages:
		// One panel per stage, each on its own scale: a prove p95 of
		// minutes would flatten a synthesis of seconds to 0 on a shared
		// one.
		title = "stage duration per minute: p50 solid, p95 dashed"
		names := s.StageNames()
		slices.SortStableFunc(names, func(a, b string) int { return stageRank(a) - stageRank(b) })
		for i, st := range names {
			col, ok := stageColours[st]
			if !ok {
				col = palette[(len(stageColours)+i)%len(palette)]
			}
			p := panel{label: st, colour: col, top: padT + stageLabelH + i*(stageLabelH+stagePanelH+stageGap), h: stagePanelH,
				q: quantitySeconds, steps: []int{2}}
			for _, q := range []struct {
				name   string
				dashed bool
				get    func(Quantiles) time.Duration
			}{{"p50", false, func(q Quantiles) time.Duration { return q.P50 }}, {"p95", true, func(q Quantiles) time.Duration { return q.P95 }}} {
				p.ss = append(p.ss, series{name: st + " " + q.name, colour: col, dashed: q.dashed, values: val(func(p Point) (float64, bool) {
					qs, ok := p.Stages[st]
					return q.get(qs).Seconds(), ok
				})})
			}
			panels = append(panels, p)
		}
		if len(panels) == 0 {
			panels = []panel{{top: padT, h: plotH, q: quantitySeconds, steps: whole}}
		}
		legend = []series{{legend: "p50", colour: "#555555"}, {legend: "p95", colour: "#555555", dashed: true}}
	case ChartQueue:
		title = "jobs queued and running (highest of each minute)"
		p := panel{top: padT, h: plotH, q: quantityCount, steps: whole, ss: []series{
			{name: "queued", legend: "queued", colour: palette[0], values: val(func(p Point) (float64, bool) { return float64(p.Max.QueueDepth), p.Samples > 0 })},
			{name: "running", legend: "running", colour: palette[2], values: val(func(p Point) (float64, bool) { return float64(p.Max.Running), p.Samples > 0 })},
		}}
		panels, legend = []panel{p}, p.ss
	case ChartMemory:
		title = "memory in use (highest of each minute)"
		p := panel{top: padT, h: plotH, q: quantityBytes, steps: whole, ss: []series{
			{name: "budget reserved", legend: "budget reserved", colour: palette[0], values: val(func(p Point) (float64, bool) { return float64(p.Max.BudgetUsed), p.Samples > 0 })},
			{name: "resident (anonymous)", legend: "resident (anonymous)", colour: palette[1], values: val(func(p Point) (float64, bool) { return float64(p.Max.ResidentAnon), p.Samples > 0 })},
			{name: "budget", legend: "budget", colour: "#999999", dashed: true, values: val(func(p Point) (float64, bool) {
				return float64(p.Max.BudgetTotal), p.Samples > 0 && p.Max.BudgetTotal > 0
			})},
		}}
		panels, legend = []panel{p}, p.ss
	default:
		return fmt.Errorf("history: no chart %q (want one of %v)", c, Charts())
	}

	last := panels[len(panels)-1]
	height := last.top + last.h + padB
	x := func(i float64) float64 { return padL + i*plotW/float64(max(n, 1)) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11" data-chart="%s">`+"\n",
		svgW, height, svgW, height, esc(string(c)))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, height)
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="13" font-weight="bold">%s</text>`+"\n", padL, esc(title))
	hasData := false
	for _, p := range panels {
		if p.draw(&b, s, x) {
			hasData = true
		}
	}
	// x labels: clock times on whole minutes, under the last panel, with
	// a faint line through every panel.
	every := xTickMinutes(n)
	for i := 0; i <= n; i++ {
		var at time.Time
		if i < n {
			at = s.Points[i].Start
		} else {
			at = s.End
		}
		if at.Unix()/60%int64(every) != 0 {
			continue
		}
		anchor := "middle"
		switch i {
		case 0:
			anchor = "start"
		case n:
			anchor = "end"
		}
		for _, p := range panels {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#f0f0f0"/>`, x(float64(i)), x(float64(i)), p.top, p.top+p.h)
		}
		fmt.Fprintf(&b, `<text class="xtick" x="%.1f" y="%d" text-anchor="%s" fill="#555">%s</text>`+"\n",
			x(float64(i)), last.top+last.h+14, anchor, esc(at.Local().Format("15:04")))
	}
	if !hasData {
		what := "in the last hour"
		if n < Buckets {
			what = fmt.Sprintf("in the last %d minutes", n)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#888" font-size="%d" font-style="italic">no data %s</text>`+"\n",
			padL+plotW/2, panels[0].top+panels[0].h/2, noDataFontSize, what)
	}
	// Legend, on one line: what does not fit is left out (the lines keep
	// their names as tooltips).
	lx, ly := float64(padL), height-8
	for _, sr := range legend {
		w := 18 + 6.5*float64(len(sr.legend)) + 14
		if sr.legend == "" || lx+w-14 > svgW-padR {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`, lx, lx+14, ly-4, ly-4, sr.colour, dashAttr(sr.dashed))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", lx+18, ly, esc(sr.legend))
		lx += w
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// draw draws the panel's label, grid, y axis and data; it reports whether
// the panel has data.
func (p panel) draw(b *bytes.Buffer, s Series, x func(float64) float64) bool {
	n := len(s.Points)
	// The y scale: from 0 to the highest value (stacked: the highest
	// sum), rounded up to a round number of a round step.
	top, hasData := 0.0, false
	for i := range n {
		sum := 0.0
		for _, sr := range p.ss {
			v := sr.values[i]
			if math.IsNaN(v) {
				continue
			}
			if v > 0 || !p.stack {
				hasData = true
			}
			if p.stack {
				sum += v
			} else {
				top = max(top, v)
			}
		}
		top = max(top, sum)
	}
	if p.stack && top == 0 {
		hasData = false
	}
	ax := niceAxis(top, p.q, p.steps)
	y := func(v float64) float64 { return float64(p.top+p.h) - v/ax.top*float64(p.h) }
	if p.label != "" {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"/>`, padL, padL+14, p.top-7, p.top-7, p.colour)
		fmt.Fprintf(b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", padL+18, p.top-3, esc(p.label))
	}
	for g := 0; g <= ax.steps; g++ {
		v := ax.top * float64(g) / float64(ax.steps)
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e4e4e4"/>`, padL, padL+plotW, y(v), y(v))
		fmt.Fprintf(b, `<text class="ytick" x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", padL-4, y(v)+4, esc(ax.label(v)))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>`+"\n", padL, p.top, plotW, p.h)
	if !hasData {
		return false
	}
	if p.stack {
		bw := float64(plotW) / float64(n)
		base := make([]float64, n)
		for _, sr := range p.ss {
			for i, v := range sr.values {
				if math.IsNaN(v) || v <= 0 {
					continue
				}
				y0, y1 := y(base[i]+v), y(base[i])
				fmt.Fprintf(b, `<rect class="data" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
					x(float64(i))+0.5, y0, max(bw-1, 1), y1-y0, sr.colour, esc(s.Points[i].Start.Local().Format("15:04")), esc(sr.name), esc(ax.value(v)))
				base[i] += v
			}
		}
		return true
	}
	for _, sr := range p.ss {
		writeLine(b, sr, s, x, y, ax.value)
	}
	return true
}

// xTickMinutes is the minutes between x labels for a window of n
// minutes: about five to ten labels.
func xTickMinutes(n int) int {
	switch {
	case n <= 6:
		return 1
	case n <= 12:
		return 2
	case n <= 30:
		return 5
	}
	return 10
}

func dashAttr(dashed bool) string {
	if dashed {
		return ` stroke-dasharray="4 3"`
	}
	return ""
}

// writeLine draws sr as a polyline per run of minutes with a value, and a
// dot on a minute that stands alone (a one-point line would not show).
func writeLine(b *bytes.Buffer, sr series, s Series, x, y func(float64) float64, unit func(float64) string) {
	dash := dashAttr(sr.dashed)
	var run []string
	flush := func(last int) {
		switch len(run) {
		case 0:
		case 1:
			v := sr.values[last]
			fmt.Fprintf(b, `<circle class="data" cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s %s: %s</title></circle>`+"\n",
				x(float64(last)+0.5), y(v), sr.colour, esc(s.Points[last].Start.Local().Format("15:04")), esc(sr.name), esc(unit(v)))
		default:
			fmt.Fprintf(b, `<polyline class="data" fill="none" stroke="%s" stroke-width="%s"%s points="%s"><title>%s</title></polyline>`+"\n",
				sr.colour, strokeWidth, dash, strings.Join(run, " "), esc(sr.name))
		}
		run = run[:0]
	}
	for i, v := range sr.values {
		if math.IsNaN(v) {
			flush(i - 1)
			continue
		}
		run = append(run, fmt.Sprintf("%.1f,%.1f", x(float64(i)+0.5), y(v)))
	}
	flush(len(sr.values) - 1)
}

// niceStep rounds the grid step v up to 1, 2, 2.5 or 5 times a power of
// ten (1 for v <= 0), so the grid lines fall on readable values; whole
// steps are at least 1 and skip 2.5 below 10.
func niceStep(v float64, whole bool) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	if whole && v <= 1 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m == 2.5 && whole && p < 10 {
			continue
		}
		if m*p >= v*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// quantity is what a y axis measures, which sets its units.
type quantity int

const (
	quantityCount   quantity = iota // whole numbers, no unit
	quantityBytes                   // B, KiB, MiB, GiB, TiB
	quantitySeconds                 // µs, ms, s, min
)

type unit struct {
	name string
	size float64 // in the quantity's base unit
}

var (
	byteUnits   = []unit{{"B", 1}, {"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}}
	secondUnits = []unit{{"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"min", 60}}
)

// axis is a y axis: grid lines at 0, step, 2·step, … steps·step = top,
// every label in the one unit u.
type axis struct {
	top   float64 // in the quantity's base unit
	steps int
	u     unit
	// decimals the labels need (2.5 GiB: 1).
	decimals int
}

// niceAxis is the axis for values up to maxV: the largest unit maxV has
// one of (seconds stay seconds up to 2 minutes), and of the step counts
// allowed, the one whose round step (niceStep) puts the top line lowest
// above maxV, the first listed on a tie. Counts and bytes step in whole
// units of at least 1.
func niceAxis(maxV float64, q quantity, steps []int) axis {
	u := unit{"", 1}
	switch q {
	case quantityBytes:
		u = byteUnits[0]
		for _, c := range byteUnits {
			if maxV >= c.size {
				u = c
			}
		}
	case quantitySeconds:
		u = secondUnits[0]
		for _, c := range secondUnits {
			if maxV >= c.size && (c.name != "min" || maxV >= 120) {
				u = c
			}
		}
	}
	whole := q == quantityCount || u.name == "B"
	best := axis{u: u}
	for _, k := range steps {
		st := niceStep(maxV/u.size/float64(k), whole)
		if top := st * float64(k) * u.size; best.steps == 0 || top < best.top*(1-1e-9) {
			best.top, best.steps = top, k
		}
	}
	step := best.top / float64(best.steps) / u.size
	for best.decimals < 3 && math.Abs(step*math.Pow(10, float64(best.decimals))-math.Round(step*math.Pow(10, float64(best.decimals)))) > 1e-6 {
		best.decimals++
	}
	return best
}

// label is v, a grid value, in the axis' unit.
func (a axis) label(v float64) string {
	s := strconv.FormatFloat(v/a.u.size, 'f', a.decimals, 64)
	if a.decimals > 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if a.u.name == "" {
		return s
	}
	return s + " " + a.u.name
}

// value is v, any value on the axis, in its unit to two decimals (a data
// mark's tooltip).
func (a axis) value(v float64) string {
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v/a.u.size, 'f', 2, 64), "0"), ".")
	if a.u.name == "" {
		return s
	}
	return s + " " + a.u.name
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a strings.Builder does not fail
	return b.String()
}
