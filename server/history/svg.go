package history

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"io"
	"math"
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

// Layout, in pixels.
const (
	svgW, svgH        = 560, 220
	padL, padR        = 64, 12
	padT, padB        = 26, 44
	plotW, plotH      = svgW - padL - padR, svgH - padT - padB
	legendY           = svgH - 8
	noDataFontSize    = 13
	xTickEveryMinutes = 10
	gridLines         = 4
	strokeWidth       = "1.8"
)

// Size is the width and height of every chart, in pixels.
func Size() image.Point { return image.Pt(svgW, svgH) }

// PlotArea is where a chart draws its data, in its pixels.
func PlotArea() image.Rectangle { return image.Rect(padL, padT, padL+plotW, padT+plotH) }

// stageColours are the timeline's colours of the pipeline stages
// (server/statusdoc/timeline), so a stage looks the same in both pictures
// and keeps its colour when another stage appears.
var stageColours = map[string]string{
	"srs_load": "#b07aa1", "synthesis": "#4e79a7", "prove": "#f28e2b", "finish": "#59a14f", "self_check": "#76b7b2",
}

// series is one line (or one layer of stacked bars) of a chart.
type series struct {
	name   string
	legend string // "": no legend entry of its own (one entry stands for a stage's two lines)
	colour string
	dashed bool
	// values per point; NaN: no value in that minute (a gap in the line).
	values []float64
}

// WriteSVG draws chart c of s: a self-contained SVG picture (no script,
// no external reference) with the minutes of the last hour along x. Every
// data mark has class "data", so a reader can tell a chart with data from
// an empty one; a chart without data says so in its plot area.
func (s Series) WriteSVG(w io.Writer, c Chart) error {
	var (
		title  string
		unit   func(float64) string
		ss     []series
		stack  bool
		floorY float64
	)
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
	switch c {
	case ChartCompleted:
		title, unit, stack = "proofs completed per minute, by kind", count, true
		for i, k := range s.Kinds() {
			ss = append(ss, series{name: k, legend: k, colour: palette[i%len(palette)], values: val(func(p Point) (float64, bool) {
				return float64(p.Completed[k]), true
			})})
		}
	case ChartStages:
		title, unit = "stage duration per minute: p50 solid, p95 dashed", seconds
		for i, st := range s.StageNames() {
			col, ok := stageColours[st]
			if !ok {
				col = palette[(len(stageColours)+i)%len(palette)]
			}
			legend := st
			for _, q := range []struct {
				name   string
				dashed bool
				get    func(Quantiles) time.Duration
			}{{"p50", false, func(q Quantiles) time.Duration { return q.P50 }}, {"p95", true, func(q Quantiles) time.Duration { return q.P95 }}} {
				ss = append(ss, series{name: st + " " + q.name, legend: legend, colour: col, dashed: q.dashed, values: val(func(p Point) (float64, bool) {
					qs, ok := p.Stages[st]
					return q.get(qs).Seconds(), ok
				})})
				legend = ""
			}
		}
	case ChartQueue:
		title, unit = "jobs queued and running (highest of each minute)", count
		ss = []series{
			{name: "queued", legend: "queued", colour: palette[0], values: val(func(p Point) (float64, bool) { return float64(p.Max.QueueDepth), p.Samples > 0 })},
			{name: "running", legend: "running", colour: palette[2], values: val(func(p Point) (float64, bool) { return float64(p.Max.Running), p.Samples > 0 })},
		}
	case ChartMemory:
		title, unit = "memory in use (highest of each minute)", bytesUnit
		ss = []series{
			{name: "budget reserved", legend: "budget reserved", colour: palette[0], values: val(func(p Point) (float64, bool) { return float64(p.Max.BudgetUsed), p.Samples > 0 })},
			{name: "resident (anonymous)", legend: "resident (anonymous)", colour: palette[1], values: val(func(p Point) (float64, bool) { return float64(p.Max.ResidentAnon), p.Samples > 0 })},
			{name: "budget", legend: "budget", colour: "#999999", dashed: true, values: val(func(p Point) (float64, bool) {
				return float64(p.Max.BudgetTotal), p.Samples > 0 && p.Max.BudgetTotal > 0
			})},
		}
	default:
		return fmt.Errorf("history: no chart %q (want one of %v)", c, Charts())
	}

	// The y scale: from floorY to the highest value (stacked: the highest
	// sum), rounded up to a readable number.
	top, hasData := 0.0, false
	for i := range n {
		sum := 0.0
		for _, sr := range ss {
			v := sr.values[i]
			if math.IsNaN(v) {
				continue
			}
			if v > 0 || !stack {
				hasData = true
			}
			if stack {
				sum += v
			} else {
				top = max(top, v)
			}
		}
		top = max(top, sum)
	}
	if stack && top == 0 {
		hasData = false
	}
	// Whole steps for counts: a grid line at 1.25 proofs reads as noise.
	// Bytes step in their binary unit (5 GiB, not 4.7).
	u := 1.0
	for c == ChartMemory && top/gridLines/u >= 1024 {
		u *= 1024
	}
	top = niceStep(top/gridLines/u, c == ChartCompleted || c == ChartQueue) * u * gridLines
	x := func(i float64) float64 { return padL + i*plotW/float64(max(n, 1)) }
	y := func(v float64) float64 { return padT + plotH - (v-floorY)/(top-floorY)*plotH }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11" data-chart="%s">`+"\n",
		svgW, svgH, svgW, svgH, esc(string(c)))
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgW, svgH)
	fmt.Fprintf(&b, `<text x="%d" y="16" font-size="13" font-weight="bold">%s</text>`+"\n", padL, esc(title))
	// Grid and y labels.
	for g := 0; g <= gridLines; g++ {
		v := floorY + (top-floorY)*float64(g)/gridLines
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e4e4e4"/>`, padL, padL+plotW, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="#555">%s</text>`+"\n", padL-4, y(v)+4, esc(unit(v)))
	}
	// x labels: minutes before the end.
	for m := 0; m <= n; m += xTickEveryMinutes {
		label, anchor := fmt.Sprintf("-%d min", n-m), "middle"
		if m == n {
			label, anchor = s.End.Local().Format("15:04"), "end"
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="%s" fill="#555">%s</text>`, x(float64(m)), padT+plotH+14, anchor, esc(label))
	}
	fmt.Fprintf(&b, "\n"+`<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>`+"\n", padL, padT, plotW, plotH)

	if !hasData {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="#888" font-size="%d" font-style="italic">no data in the last hour</text>`+"\n",
			padL+plotW/2, padT+plotH/2, noDataFontSize)
	} else if stack {
		bw := float64(plotW) / float64(n)
		base := make([]float64, n)
		for _, sr := range ss {
			for i, v := range sr.values {
				if math.IsNaN(v) || v <= 0 {
					continue
				}
				y0, y1 := y(base[i]+v), y(base[i])
				fmt.Fprintf(&b, `<rect class="data" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
					x(float64(i))+0.5, y0, max(bw-1, 1), y1-y0, sr.colour, esc(s.Points[i].Start.Local().Format("15:04")), esc(sr.name), esc(unit(v)))
				base[i] += v
			}
		}
	} else {
		for _, sr := range ss {
			writeLine(&b, sr, s, x, y, unit)
		}
	}
	// Legend, on one line: what does not fit is left out (the lines keep
	// their names as tooltips).
	lx := float64(padL)
	for _, sr := range ss {
		w := 18 + 6.5*float64(len(sr.legend)) + 14
		if sr.legend == "" || lx+w-14 > svgW-padR {
			continue
		}
		dash := ""
		if sr.dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`, lx, lx+14, legendY-4, legendY-4, sr.colour, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`+"\n", lx+18, legendY, esc(sr.legend))
		lx += w
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeLine draws sr as a polyline per run of minutes with a value, and a
// dot on a minute that stands alone (a one-point line would not show).
func writeLine(b *bytes.Buffer, sr series, s Series, x, y func(float64) float64, unit func(float64) string) {
	dash := ""
	if sr.dashed {
		dash = ` stroke-dasharray="4 3"`
	}
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

func count(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func seconds(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 1e-3:
		return fmt.Sprintf("%.0f µs", v*1e6)
	case v < 1:
		return fmt.Sprintf("%.0f ms", v*1e3)
	case v < 120:
		return fmt.Sprintf("%.1f s", v)
	}
	return fmt.Sprintf("%.1f min", v/60)
}

func bytesUnit(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 || v >= 10 {
		return fmt.Sprintf("%.0f %s", v, units[i])
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a strings.Builder does not fail
	return b.String()
}
