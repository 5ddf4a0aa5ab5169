package engine_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/engine"
	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/prover/cpu"
)

// BenchmarkPipelineEfficiency measures how close a stream of jobs gets to
// the pipeline's bound: steady-state throughput (partitions/s) divided by
// 1/max(S, P), where S is one partition's synthesis time and P its prove
// time (Start + Finish), both measured in isolation (pipeline off). Run it
// with -benchtime=1x -v to see a timeline of the first six jobs.
//
// The circuit is test-k$CUZK_BENCH_LOG (default 16: about a second of
// proving on two cores). Configurations:
//
//	prove-bound  synthesis is cheap (testcircuits.Mixed), the prover gets
//	             every core: the pipeline must keep the prover busy.
//	balanced     synthesis repeated until S ≈ P; prover and synthesis one
//	             core each: the pipeline must overlap the two stages.
func BenchmarkPipelineEfficiency(b *testing.B) {
	k := 16
	if v, err := strconv.Atoi(os.Getenv("CUZK_BENCH_LOG")); err == nil {
		k = v
	}
	if err := testkind.WriteParams(paramDir, k); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name          string
		proverThreads int
		balance       bool
	}{
		{"prove-bound", 0, false},
		{"balanced", 1, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				repeat := 1
				if bc.balance {
					s1, p := isolate(b, k, bc.proverThreads, 1)
					repeat = max(1, int(float64(p)/float64(s1)+0.5))
				}
				s, p := isolate(b, k, bc.proverThreads, repeat)
				const jobs, parts = 8, 2
				recs := runStream(b, k, bc.proverThreads, repeat, jobs, parts, engine.Config{SynthesisWorkers: 1, Lookahead: 1})
				tput := steadyThroughput(recs, 2)
				eff := tput * max(s, p).Seconds()
				// The same ratio against the stage times measured inside the
				// stream: on a shared 2-core machine the stages slow each
				// other down, and this isolates the pipeline's own idle time.
				inS, inStart, inFinish := streamStageMeans(recs)
				streamEff := tput * max(inS, inStart, inFinish).Seconds()
				b.ReportMetric(streamEff, "stream-efficiency")
				b.ReportMetric(s.Seconds()*1000, "synth-ms/partition")
				b.ReportMetric(p.Seconds()*1000, "prove-ms/partition")
				b.ReportMetric(tput, "partitions/s")
				b.ReportMetric(eff, "efficiency")
				b.Logf("%s: S = %v, P = %v (synthesis ×%d, prover threads %d), steady throughput %.3f partitions/s, bound %.3f, efficiency %.3f",
					bc.name, s.Round(time.Millisecond), p.Round(time.Millisecond), repeat, bc.proverThreads, tput, 1/max(s, p).Seconds(), eff)
				b.Logf("in the stream: S = %v, Start = %v, Finish = %v; throughput × max = %.3f",
					inS.Round(time.Millisecond), inStart.Round(time.Millisecond), inFinish.Round(time.Millisecond), streamEff)
				b.Logf("timeline of the first 6 jobs (%d partitions each):\n%s", parts, renderTimeline(recs, 6, 100*time.Millisecond))
			}
		})
	}
}

// isolate proves three one-partition jobs with the pipeline off and returns
// the median synthesis and prove (Start + Finish) time of a partition.
func isolate(b *testing.B, k, proverThreads, repeat int) (s, p time.Duration) {
	recs := runStream(b, k, proverThreads, repeat, 3, 1, engine.Config{SynthesisWorkers: 1, NoPipeline: true})
	var ss, ps []time.Duration
	prove := map[string]time.Duration{}
	for _, r := range recs {
		switch r.Stage {
		case "synthesis":
			ss = append(ss, r.Duration)
		case "prove", "finish":
			prove[r.Job] += r.Duration
		}
	}
	for _, d := range prove {
		ps = append(ps, d)
	}
	return median(ss), median(ps)
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

// runStream submits jobs at once (a stream arriving faster than it is
// served) and returns the stage records.
func runStream(b *testing.B, k, proverThreads, repeat, jobs, parts int, cfg engine.Config) []engine.StageRecord {
	b.Helper()
	e := testkit.NewEngine(b, testkit.EngineOptions{Config: cfg, Locator: testkind.Locator(paramDir), Budget: 8 << 30,
		Backend: &cpu.Backend{Workers: proverThreads}})
	if _, _, err := e.Params.Preload(context.Background(), testkind.CircuitID(k), 0); err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range jobs {
		q := testReq(fmt.Sprintf("j%d", i), k, testkind.Options{Partitions: parts, SynthesisRepeat: repeat})
		if _, err := e.Submit(context.Background(), q); err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.Await(context.Background(), q.RequestID, 0)
			if err != nil || res.State != engine.StateCompleted {
				b.Errorf("%s: %v %v %v", q.RequestID, err, res.State, res.Err)
			}
		}()
	}
	wg.Wait()
	// Every job is final: their stages are in the recent jobs.
	var recs []engine.StageRecord
	for _, j := range e.Status().RecentJobs {
		recs = append(recs, j.Stages...)
	}
	return recs
}

// streamStageMeans averages the stage durations of a stream's records.
func streamStageMeans(recs []engine.StageRecord) (s, start, finish time.Duration) {
	sum := map[string]time.Duration{}
	n := map[string]int{}
	for _, r := range recs {
		sum[r.Stage] += r.Duration
		n[r.Stage]++
	}
	mean := func(st string) time.Duration {
		if n[st] == 0 {
			return 0
		}
		return sum[st] / time.Duration(n[st])
	}
	return mean("synthesis"), mean("prove"), mean("finish")
}

// steadyThroughput is partitions finished per second after the first skip
// completions (pipeline fill).
func steadyThroughput(recs []engine.StageRecord, skip int) float64 {
	var ends []time.Time
	for _, r := range recs {
		if r.Stage == "finish" {
			ends = append(ends, r.End())
		}
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	if len(ends) <= skip+1 {
		return 0
	}
	w := ends[len(ends)-1].Sub(ends[skip])
	return float64(len(ends)-1-skip) / w.Seconds()
}

// renderTimeline draws one row per partition of the first n jobs: S for
// synthesis, P for prove (Start), F for finish, one column per step.
func renderTimeline(recs []engine.StageRecord, n int, step time.Duration) string {
	type row struct {
		job  int
		part int
		recs []engine.StageRecord
	}
	rows := map[[2]int]*row{}
	var t0 time.Time
	for _, r := range recs {
		if r.Partition < 0 || !strings.HasPrefix(r.Job, "j") {
			continue
		}
		j, err := strconv.Atoi(r.Job[1:])
		if err != nil || j >= n {
			continue
		}
		key := [2]int{j, r.Partition}
		if rows[key] == nil {
			rows[key] = &row{job: j, part: r.Partition}
		}
		rows[key].recs = append(rows[key].recs, r)
		if t0.IsZero() || r.Start.Before(t0) {
			t0 = r.Start
		}
	}
	keys := make([][2]int, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "one column = %v; S synthesis, P prove (Start), F finish\n", step)
	fmt.Fprintf(&sb, "%-8s %-22s %-22s %-22s\n", "job/part", "synthesis [s]", "prove [s]", "finish [s]")
	span := func(r engine.StageRecord) string {
		return fmt.Sprintf("%7.3f–%7.3f", r.Start.Sub(t0).Seconds(), r.End().Sub(t0).Seconds())
	}
	var chart strings.Builder
	for _, k := range keys {
		rw := rows[k]
		cols := map[string]string{}
		line := []byte{}
		for _, r := range rw.recs {
			cols[r.Stage] = span(r)
			c := map[string]byte{"synthesis": 'S', "prove": 'P', "finish": 'F'}[r.Stage]
			if c == 0 {
				continue
			}
			from, to := int(r.Start.Sub(t0)/step), int(r.End().Sub(t0)/step)
			for len(line) <= to {
				line = append(line, ' ')
			}
			for i := from; i <= to; i++ {
				line[i] = c
			}
		}
		fmt.Fprintf(&sb, "j%d/p%d    %-22s %-22s %-22s\n", rw.job, rw.part, cols["synthesis"], cols["prove"], cols["finish"])
		fmt.Fprintf(&chart, "j%d/p%d |%s\n", rw.job, rw.part, line)
	}
	return sb.String() + "\n" + chart.String()
}
