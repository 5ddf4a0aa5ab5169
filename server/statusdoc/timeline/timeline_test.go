package timeline

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// pipelineStatus is a /status document: job-a (two partitions, each its
// own item on its own synthesis worker) finished, then job-c and job-d
// batched together (synthesised one after the other, proved and finished
// as one item), job-d still running (its stages so far).
func pipelineStatus() *statusdoc.Status {
	st := &statusdoc.Status{}
	stages := map[string][]statusdoc.Stage{}
	stage := func(job string, part int, name string, startMs, durMs float64, batch int) {
		s := statusdoc.Stage{Partition: part, Stage: name, Start: t0.Add(time.Duration(startMs * float64(time.Millisecond))),
			Duration: time.Duration(durMs * float64(time.Millisecond)), Worker: "w"}
		if batch > 0 {
			s.Batch, s.Circuit = uint64(batch), "test-k10"
		}
		stages[job] = append(stages[job], s)
	}
	stage("job-a", 0, "srs_load", 0, 100, 1)
	stage("job-a", 1, "srs_load", 1, 99, 1)
	stage("job-a", 0, "synthesis", 100, 200, 1)
	stage("job-a", 1, "synthesis", 110, 180, 1)
	stage("job-a", 0, "prove", 300, 300, 1)
	stage("job-c", 0, "synthesis", 300, 200, 3)
	stage("job-d", 0, "synthesis", 500, 200, 3)
	stage("job-a", 0, "finish", 600, 50, 1)
	stage("job-a", 1, "prove", 600, 300, 1)
	stage("job-c", 0, "prove", 900, 300, 3)
	stage("job-d", 0, "prove", 900, 300, 3)
	stage("job-a", 1, "finish", 900, 50, 1)
	stage("job-a", -1, "self_check", 950, 10, 0)
	stage("job-c", 0, "finish", 1200, 50, 3)
	stage("job-d", 0, "finish", 1200, 50, 3)
	stage("job-c", -1, "self_check", 1250, 5, 0)
	stage("job-d", -1, "self_check", 1250, 6, 0)
	st.RecentJobs = []statusdoc.RecentJob{{ID: "job-a", Stages: stages["job-a"]}, {ID: "job-c", Stages: stages["job-c"]}}
	st.Jobs = []statusdoc.Job{{ID: "job-d", Stages: stages["job-d"]}, {ID: "job-e"}}
	return st
}

func testTimeline(t *testing.T) *Timeline {
	t.Helper()
	recs := StageRecords(pipelineStatus(), nil)
	if len(recs) != 17 {
		t.Fatalf("%d records", len(recs))
	}
	tl, err := New(recs)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func TestTimelineLanes(t *testing.T) {
	tl := testTimeline(t)
	if !tl.Origin.Equal(t0) || tl.Length != 1256*time.Millisecond || tl.Records != 17 {
		t.Fatalf("origin %v length %v", tl.Origin, tl.Length)
	}
	if strings.Join(tl.Jobs, ",") != "job-a,job-c,job-d" || strings.Join(tl.Letters, "") != "ABC" {
		t.Fatalf("jobs %v %v", tl.Jobs, tl.Letters)
	}
	var names []string
	for _, l := range tl.Lanes {
		names = append(names, l.Name)
	}
	if strings.Join(names, ",") != "synth 1,synth 2,prove,finish,check 1,check 2" {
		t.Fatalf("lanes %v", names)
	}
	lane := map[string][]string{}
	for _, s := range tl.Spans {
		lane[s.Lane] = append(lane[s.Lane], tl.partsLabel(s.Parts)+":"+s.Stage)
	}
	// Best fit keeps each item's load and synthesis on one worker, and a
	// batch's partitions proved together are one span.
	for name, want := range map[string]string{
		"synth 1": "A0:srs_load A0:synthesis B0:synthesis C0:synthesis",
		"synth 2": "A1:srs_load A1:synthesis",
		"prove":   "A0:prove A1:prove B0+C0:prove",
		"finish":  "A0:finish A1:finish B0+C0:finish",
		"check 1": "A:self_check B:self_check",
		"check 2": "C:self_check",
	} {
		if got := strings.Join(lane[name], " "); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	for _, l := range tl.Lanes {
		switch l.Name {
		case "prove":
			if l.Busy != 900*time.Millisecond || len(l.Gaps) != 0 {
				t.Errorf("prove: %+v", l)
			}
		case "finish":
			if l.Busy != 150*time.Millisecond || len(l.Gaps) != 2 || l.LongestGap != (Gap{650 * time.Millisecond, 900 * time.Millisecond}) {
				t.Errorf("finish: %+v", l)
			}
		}
	}
	if _, n, u := tl.LaneFamilyUtilisation("prove"); n != 1 || u < 0.716 || u > 0.717 {
		t.Errorf("prover utilisation %v over %d lanes", u, n)
	}
	var rows []string
	for _, r := range tl.Rows {
		rows = append(rows, fmt.Sprintf("%s/%d", r.Label, len(r.Spans)))
	}
	if strings.Join(rows, ",") != "A p0/4,A p1/4,A job/1,B p0/3,B job/1,C p0/3,C job/1" {
		t.Fatalf("rows %v", rows)
	}
}

func TestTimelineText(t *testing.T) {
	tl := testTimeline(t)
	var b bytes.Buffer
	if err := tl.WriteText(&b, 50); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	rowOf := func(label string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, label+" ") && strings.Contains(l, "|") {
				return l[strings.Index(l, "|")+1 : strings.LastIndex(l, "|")]
			}
		}
		t.Fatalf("no row %q in\n%s", label, out)
		return ""
	}
	// 50 columns over 1.256 s: 25.12 ms each. The prover is idle for the
	// first 300 ms (12 columns), then busy to the end of column 47.
	prove := rowOf("prove    ")
	if len(prove) != 50 || prove[:11] != strings.Repeat(".", 11) || prove[12:23] != strings.Repeat("A", 11) ||
		!strings.Contains(prove, strings.Repeat("*", 11)) || strings.Trim(prove[12:48], "A*") != "" {
		t.Errorf("prove row %q", prove)
	}
	a0 := rowOf("A p0")
	if !strings.HasPrefix(a0, "llll") || !strings.Contains(a0, "ssss") || !strings.Contains(a0, "PPPP") || !strings.Contains(a0, "ff") {
		t.Errorf("A p0 row %q", a0)
	}
	// B waits for the prover after its synthesis.
	if b0 := rowOf("B p0"); !strings.Contains(b0, "s---") {
		t.Errorf("B p0 row %q", b0)
	}
	for _, want := range []string{"3 job(s), 4 partition(s), 17 stage records, 1.256s", "A  job-a", "C  job-d", "250ms (at +0.650s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

func TestTimelineSVG(t *testing.T) {
	tl := testTimeline(t)
	var b bytes.Buffer
	if err := tl.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML; one titled rect per span in the lanes and per span
	// of each row.
	dec := xml.NewDecoder(&b)
	bars, inRect, inTitle := 0, false, false
	var titles []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "rect":
				inRect = true
			case "title":
				inTitle = inRect
			}
		case xml.CharData:
			if inTitle {
				bars++
				titles = append(titles, string(el))
			}
		case xml.EndElement:
			switch el.Name.Local {
			case "rect":
				inRect = false
			case "title":
				inTitle = false
			}
		}
	}
	want := len(tl.Spans)
	for _, r := range tl.Rows {
		want += len(r.Spans)
	}
	if bars != want {
		t.Fatalf("%d titled bars, want %d", bars, want)
	}
	joined := strings.Join(titles, "\n")
	for _, s := range []string{"job-c partition 0, job-d partition 0: prove 0.300s (+0.900s → +1.200s), batch 3, test-k10, lane prove",
		"job-a partition -1: self_check"} {
		if !strings.Contains(joined, s) {
			t.Errorf("no tooltip %q in\n%s", s, joined)
		}
	}
}

func TestTimelineEmpty(t *testing.T) {
	if _, err := New(nil); !errors.Is(err, ErrNoTimings) {
		t.Fatal(err)
	}
	if recs := StageRecords(&statusdoc.Status{Jobs: []statusdoc.Job{{ID: "planning"}}}, nil); len(recs) != 0 {
		t.Fatal(recs)
	}
}

// The records come out of the JSON document as the daemon writes it, from
// running and finished jobs, and keep selects jobs.
func TestStageRecordsFromJSON(t *testing.T) {
	doc := `{"jobs": [{"job_id": "run", "state": "running", "stages": [
			{"partition": 1, "stage": "synthesis", "start": "2026-01-02T03:04:05.5Z", "duration_ns": 12500000, "batch": 4, "circuit": "porep-2k", "worker": "synthesis"}]}],
		"recent_jobs": [{"job_id": "done", "state": "completed", "stages": [
			{"partition": -1, "stage": "self_check", "start": "2026-01-02T03:04:05Z", "duration_ns": 1000, "worker": "verifier"}]}],
		"future_field": 1}`
	var st statusdoc.Status
	if err := json.Unmarshal([]byte(doc), &st); err != nil {
		t.Fatal(err)
	}
	recs := StageRecords(&st, nil)
	want := []Record{
		{Job: "done", Partition: -1, Stage: "self_check", Start: t0, Duration: time.Microsecond, Worker: "verifier"},
		{Job: "run", Partition: 1, Stage: "synthesis", Start: t0.Add(500 * time.Millisecond), Duration: 12500 * time.Microsecond,
			Batch: 4, Circuit: "porep-2k", Worker: "synthesis"},
	}
	if len(recs) != 2 || recs[0] != want[0] || recs[1] != want[1] {
		t.Fatalf("%+v", recs)
	}
	if recs := StageRecords(&st, func(job string) bool { return job == "run" }); len(recs) != 1 || recs[0].Job != "run" {
		t.Fatalf("%+v", recs)
	}
	tl, err := New(recs)
	if err != nil || len(tl.Spans) != 2 || tl.Spans[0].Worker != "verifier" || tl.Spans[1].Lane != "synth 1" {
		t.Fatalf("%v %+v", err, tl)
	}
}
