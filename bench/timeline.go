package bench

import (
	"slices"
	"strings"

	"github.com/cuzk-dev/cuzk/server/statusdoc"
	"github.com/cuzk-dev/cuzk/server/statusdoc/timeline"
)

// Timeline is the pipeline drawn from the stage records of a /status
// document (its running jobs and the finished ones it keeps). jobs, when
// not empty, keeps only the jobs whose id starts with one of its
// comma-separated prefixes, so that an operator can paste the short ids
// the status page shows. It fails with timeline.ErrNoTimings when no
// kept job has a stage record.
func Timeline(st *statusdoc.Status, jobs string) (*timeline.Timeline, error) {
	var keep func(string) bool
	if jobs != "" {
		want := strings.Split(jobs, ",")
		keep = func(job string) bool {
			return slices.ContainsFunc(want, func(p string) bool { return p != "" && strings.HasPrefix(job, p) })
		}
	}
	return timeline.New(timeline.StageRecords(st, keep))
}
