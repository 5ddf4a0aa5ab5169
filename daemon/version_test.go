package daemon

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionInfo: what the build info holds comes out on its line, and
// what it lacks is said to be unknown rather than left out.
func TestVersionInfo(t *testing.T) {
	stamped := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/cuzk-dev/cuzk", Version: "v0.3.1"},
		Settings: []debug.BuildSetting{
			{Key: "-tags", Value: "cuda"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-01T09:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	clean := &debug.BuildInfo{Main: debug.Module{Path: "github.com/cuzk-dev/cuzk", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fedcba"}, {Key: "vcs.modified", Value: "false"}}}
	for _, tc := range []struct {
		name  string
		bi    *debug.BuildInfo
		cuda  bool
		want  []string
		avoid []string
	}{
		{"stamped cuda build", stamped, true, []string{
			"cuzk v0.3.1\n", "module      github.com/cuzk-dev/cuzk\n",
			"commit      0123456789abcdef0123456789abcdef01234567 (2026-12-01T09:00:00Z, modified: built with uncommitted changes)\n",
			"go          go1.26.8 " + runtime.GOOS + "/" + runtime.GOARCH + "\n", "tags        cuda\n",
			"backends    cpu, cuda\n", "arithmetic  scalar (test)\n",
		}, []string{"unknown"}},
		{"clean checkout, cpu only", clean, false, []string{
			"cuzk (devel)\n", "commit      fedcba (clean)\n", "go          " + runtime.Version() + " ",
			"backends    cpu (cuda: build with -tags cuda",
		}, []string{"modified", "\ntags ", "cpu, cuda"}},
		{"no build info", nil, false, []string{
			"cuzk unknown (no build info)\n", "commit      unknown (built without VCS information)\n",
		}, []string{"module "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			NewVersionInfo(tc.bi, tc.cuda, "scalar (test)").Write(&b)
			got := b.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("output lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tc.avoid {
				if strings.Contains(got, a) {
					t.Errorf("output has %q:\n%s", a, got)
				}
			}
		})
	}
}
