package timeline

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

// stageColour is each stage's fill in the SVG (Tableau 10 colours).
func stageColour(stage string) string {
	switch stage {
	case statusdoc.StageSRSLoad:
		return "#b07aa1"
	case statusdoc.StageSynthesis:
		return "#4e79a7"
	case statusdoc.StageProve:
		return "#f28e2b"
	case statusdoc.StageFinish:
		return "#59a14f"
	case statusdoc.StageSelfCheck:
		return "#76b7b2"
	}
	return "#bab0ac"
}

// SVG layout, in pixels.
const (
	svgWidth  = 1200
	svgLabelW = 150
	svgRightW = 90 // utilisation column
	svgRowH   = 18
	svgBarH   = 13
)

// WriteSVG draws the timeline as an SVG picture: the lanes (workers) on
// top, each on a pale red ground so idle time stands out, with bars
// coloured by stage and labelled with the job letter and partition; below
// them one row per partition of each job, a grey line joining its stages
// so waits between them show. Every bar has a tooltip with its job,
// partition, stage, start and duration.
func (t *Timeline) WriteSVG(w io.Writer) error {
	plotW := float64(svgWidth - svgLabelW - svgRightW)
	x := func(d time.Duration) float64 {
		if t.Length <= 0 {
			return svgLabelW
		}
		return svgLabelW + float64(d)/float64(t.Length)*plotW
	}
	var b bytes.Buffer
	top := 78.0
	lanesTop := top + 22
	rowsTop := lanesTop + float64(len(t.Lanes))*svgRowH + 34
	height := rowsTop + float64(len(t.Rows))*svgRowH + 30 + float64(len(t.Jobs)+1)*14

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="monospace" font-size="11">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	nParts := 0
	for _, r := range t.Rows {
		if r.Partition >= 0 {
			nParts++
		}
	}
	_, proveLanes, proveUtil := t.LaneFamilyUtilisation("prove")
	title := fmt.Sprintf("cuzk pipeline: %d job(s), %d partition(s), %s", len(t.Jobs), nParts, fmtSeconds(t.Length))
	if proveLanes > 0 {
		title += fmt.Sprintf("; prover busy %.1f%%", 100*proveUtil)
	}
	text(&b, 10, 18, "start", "font-size=\"14\" font-weight=\"bold\"", title)
	text(&b, 10, 34, "start", "fill=\"#555\"", "from "+t.Origin.UTC().Format(time.RFC3339Nano)+" (the daemon's /status stage records)")
	// Legend.
	lx := 10.0
	for _, st := range []string{statusdoc.StageSRSLoad, statusdoc.StageSynthesis, statusdoc.StageProve, statusdoc.StageFinish, statusdoc.StageSelfCheck} {
		fmt.Fprintf(&b, `<rect x="%.1f" y="44" width="12" height="12" fill="%s"/>`+"\n", lx, stageColour(st))
		text(&b, lx+16, 54, "start", "", st)
		lx += 16 + float64(len(st))*7 + 18
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="44" width="12" height="12" fill="#fbe4e4" stroke="#e8b4b4"/>`+"\n", lx)
	text(&b, lx+16, 54, "start", "", "idle")

	// Time axis and grid.
	step := niceStep(t.Length, 10)
	gridBottom := rowsTop + float64(len(t.Rows))*svgRowH
	for at := time.Duration(0); step > 0 && at <= t.Length; at += step {
		gx := x(at)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", gx, top+4, gx, gridBottom)
		text(&b, gx, top, "middle", "fill=\"#555\"", fmtAxis(at))
	}

	text(&b, 10, lanesTop-6, "start", "font-weight=\"bold\"", "workers")
	text(&b, svgWidth-8, lanesTop-6, "end", "font-weight=\"bold\"", "busy")
	for i, l := range t.Lanes {
		y := lanesTop + float64(i)*svgRowH
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="#fbe4e4"/>`+"\n", x(0), y+2, plotW, svgBarH)
		text(&b, 10, y+svgBarH, "start", "", l.Name)
		text(&b, svgWidth-8, y+svgBarH, "end", "", fmt.Sprintf("%.1f%%", 100*l.Utilisation))
		for si := range t.Spans {
			s := &t.Spans[si]
			if s.Lane != l.Name {
				continue
			}
			label := t.partsLabel(s.Parts)
			t.bar(&b, x(s.Start), x(s.End), y+2, s, label)
		}
	}

	text(&b, 10, rowsTop-6, "start", "font-weight=\"bold\"", "job / partition")
	for i, r := range t.Rows {
		y := rowsTop + float64(i)*svgRowH
		text(&b, 10, y+svgBarH, "start", "", r.Label)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#999" stroke-dasharray="3,2"/>`+"\n",
			x(r.First), y+2+svgBarH/2.0, x(r.Last), y+2+svgBarH/2.0)
		for _, si := range r.Spans {
			s := &t.Spans[si]
			t.bar(&b, x(s.Start), x(s.End), y+2, s, "")
		}
	}

	y := gridBottom + 22
	text(&b, 10, y, "start", "font-weight=\"bold\"", "jobs")
	for i, j := range t.Jobs {
		text(&b, 10, y+float64(i+1)*14, "start", "", t.Letters[i]+"  "+j)
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// bar draws one span with a tooltip; label is written inside when it fits.
func (t *Timeline) bar(b *bytes.Buffer, x0, x1, y float64, s *Span, label string) {
	wd := max(x1-x0, 0.6)
	var tip strings.Builder
	for i, p := range s.Parts {
		if i > 0 {
			tip.WriteString(", ")
		}
		fmt.Fprintf(&tip, "%s partition %d", p.Job, p.Partition)
	}
	fmt.Fprintf(&tip, ": %s %s (+%s → +%s)", s.Stage, fmtSeconds(s.End-s.Start), fmtSeconds(s.Start), fmtSeconds(s.End))
	if s.Batch != 0 {
		fmt.Fprintf(&tip, ", batch %d", s.Batch)
	}
	if s.Circuit != "" {
		fmt.Fprintf(&tip, ", %s", s.Circuit)
	}
	if s.Lane != "" {
		fmt.Fprintf(&tip, ", lane %s", s.Lane)
	}
	fmt.Fprintf(b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%d" fill="%s" stroke="white" stroke-width="0.5"><title>`, x0, y, wd, svgBarH, stageColour(s.Stage))
	xml.EscapeText(b, []byte(tip.String()))
	b.WriteString("</title></rect>\n")
	if label != "" && float64(len(label))*6.6+4 < wd {
		text(b, x0+wd/2, y+svgBarH-3, "middle", "fill=\"white\" pointer-events=\"none\"", label)
	}
}

// partsLabel is "A0" for one partition, "A0+B0" for a batch.
func (t *Timeline) partsLabel(parts []PartRef) string {
	var s []string
	for _, p := range parts {
		if p.Partition < 0 {
			s = append(s, t.Letter(p.Job))
		} else {
			s = append(s, fmt.Sprintf("%s%d", t.Letter(p.Job), p.Partition))
		}
	}
	return strings.Join(s, "+")
}

func text(b *bytes.Buffer, x, y float64, anchor, attrs, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="%s" %s>`, x, y, anchor, attrs)
	xml.EscapeText(b, []byte(s))
	b.WriteString("</text>\n")
}
