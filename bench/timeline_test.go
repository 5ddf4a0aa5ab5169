package bench

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/server/statusdoc/timeline"
)

// Timeline keeps the jobs whose id starts with one of the prefixes, from
// running and finished jobs alike; an empty prefix keeps nothing.
func TestTimelineJobs(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stages := func(start time.Duration) []statusdoc.Stage {
		return []statusdoc.Stage{{Partition: 0, Stage: "synthesis", Start: t0.Add(start), Duration: time.Second, Worker: "synthesis"}}
	}
	st := &statusdoc.Status{
		Jobs:       []statusdoc.Job{{ID: "abc-run", Stages: stages(0)}, {ID: "planning"}},
		RecentJobs: []statusdoc.RecentJob{{ID: "abd-done", Stages: stages(time.Second)}, {ID: "xyz-done", Stages: stages(2 * time.Second)}},
	}
	jobsOf := func(tl *timeline.Timeline) []string {
		var out []string
		for _, s := range tl.Spans {
			for _, p := range s.Parts {
				out = append(out, p.Job)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		jobs string
		want []string
	}{
		{"", []string{"abc-run", "abd-done", "xyz-done"}},
		{"ab", []string{"abc-run", "abd-done"}},
		{"abc,xyz", []string{"abc-run", "xyz-done"}},
		{",xyz-done", []string{"xyz-done"}},
	} {
		tl, err := Timeline(st, c.jobs)
		if err != nil {
			t.Fatalf("%q: %v", c.jobs, err)
		}
		if got := jobsOf(tl); !slices.Equal(got, c.want) {
			t.Errorf("%q: jobs %v, want %v", c.jobs, got, c.want)
		}
	}
	for _, jobs := range []string{"none", ",", "planning"} {
		if _, err := Timeline(st, jobs); !errors.Is(err, timeline.ErrNoTimings) {
			t.Errorf("%q: %v, want ErrNoTimings", jobs, err)
		}
	}
}
