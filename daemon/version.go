package daemon

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/cuzk-dev/cuzk/internal/ifma"
	"github.com/cuzk-dev/cuzk/prover/gpu"
)

// VersionInfo is what `cuzk version` reports: enough to tell, from a bug
// report, which source built the binary and which provers it can run.
type VersionInfo struct {
	Module  string // module path, "" when the binary carries no build info
	Version string // module version: a tag, a pseudo-version, or "(devel)"
	// Commit, CommitTime and Modified come from the VCS stamp `go build`
	// writes in a checkout (absent under -buildvcs=false and in tests).
	Commit, CommitTime string
	Modified           string // "true", "false" or "" (no stamp)
	Tags               string // the build's -tags, e.g. "cuda"
	Go, Platform       string
	Backends           []string
	Arithmetic         string // the CPU field arithmetic (internal/ifma)
}

// NewVersionInfo reads bi (as debug.ReadBuildInfo returns it; nil when
// the binary has none) and the capabilities compiled into this binary.
func NewVersionInfo(bi *debug.BuildInfo, cudaBuilt bool, arithmetic string) VersionInfo {
	v := VersionInfo{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Arithmetic: arithmetic, Backends: []string{"cpu"}}
	if cudaBuilt {
		v.Backends = append(v.Backends, "cuda")
	}
	if bi == nil {
		return v
	}
	v.Module, v.Version = bi.Main.Path, bi.Main.Version
	if bi.GoVersion != "" {
		v.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value
		case "-tags":
			v.Tags = s.Value
		}
	}
	return v
}

// Write prints v as `cuzk version` shows it, one fact a line.
func (v VersionInfo) Write(w io.Writer) {
	version := v.Version
	if version == "" {
		version = "unknown (no build info)"
	}
	fmt.Fprintf(w, "cuzk %s\n", version)
	if v.Module != "" {
		fmt.Fprintf(w, "module      %s\n", v.Module)
	}
	if v.Commit != "" {
		var notes []string
		if v.CommitTime != "" {
			notes = append(notes, v.CommitTime)
		}
		switch v.Modified {
		case "true":
			notes = append(notes, "modified: built with uncommitted changes")
		case "false":
			notes = append(notes, "clean")
		}
		line := v.Commit
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, ", ") + ")"
		}
		fmt.Fprintf(w, "commit      %s\n", line)
	} else {
		fmt.Fprintln(w, "commit      unknown (built without VCS information)")
	}
	fmt.Fprintf(w, "go          %s %s\n", v.Go, v.Platform)
	if v.Tags != "" {
		fmt.Fprintf(w, "tags        %s\n", v.Tags)
	}
	backends := strings.Join(v.Backends, ", ")
	if len(v.Backends) == 1 {
		backends += " (cuda: build with -tags cuda, scripts/build-gpu.sh)"
	}
	fmt.Fprintf(w, "backends    %s\n", backends)
	fmt.Fprintf(w, "arithmetic  %s\n", v.Arithmetic)
}

// CurrentVersion is this binary's VersionInfo. ifma.Current runs the
// kernels' known-answer check once (about a millisecond), so the
// arithmetic line says what the prover would really use.
func CurrentVersion() VersionInfo {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return NewVersionInfo(bi, gpu.Built, ifma.Current().String())
}
