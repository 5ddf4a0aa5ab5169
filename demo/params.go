package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/testparams"
)

// ParamsDir is where the demo's INSECURE test parameters for circuit c
// go: dir, or testparams.DefaultDir when it is empty. It refuses up front,
// before anything is sealed or generated, parameters that cannot fit in
// memTotal (config.ReadMemTotal for this machine) and the official
// parameter cache.
func ParamsDir(c filecoin.CircuitID, dir string, memTotal func() (uint64, error)) (string, error) {
	if err := testparams.CheckFits(c, memTotal); err != nil {
		return "", err
	}
	if dir != "" && filecoin.IsParameterCache(dir, os.LookupEnv) {
		return "", fmt.Errorf("%s is the official parameter cache: the demo's INSECURE test parameters do not belong there", dir)
	}
	if dir == "" {
		dir = testparams.DefaultDir(os.LookupEnv)
	}
	return dir, nil
}

// Params returns the test parameters of circuit c in dir and their
// verifying key, generating them when missing (generated says so).
func Params(ctx context.Context, c filecoin.CircuitID, dir string, workers int, progress func(groth16.SetupProgress)) (
	files testparams.Files, vk *groth16.VerifyingKey, generated bool, err error) {
	files, generated, err = testparams.EnsureCircuit(ctx, c, dir, testparams.Options{Workers: workers, Progress: progress})
	if err != nil {
		return files, nil, false, err
	}
	vk, err = groth16.ReadVerifyingKeyFile(files.VK)
	return files, vk, generated, err
}

// GenOptions are `cuzk params gen`'s: Force regenerates test parameters
// already there. MemAvailable, when set, is the memory the setup may take
// (config.ReadMemAvailable for this machine): a larger setup is refused
// before it starts. HeapLimit, when set, is the process's Go memory limit
// (debug.SetMemoryLimit) for the setup's planned heap, set once the setup
// is planned (daemon.HeapLimit, the daemon's headroom): the setup's
// garbage would otherwise grow the heap to twice its live vectors before
// the collector runs. It is the caller's to ask, as the limit holds for
// the whole process.
type GenOptions struct {
	Workers      int
	Force        bool
	Progress     func(groth16.SetupProgress)
	MemAvailable func() (uint64, error)
	HeapLimit    func(planned int64) int64
}

// GenParams writes the INSECURE test parameters of circuit c into dir
// unless they are there (or Force). Guarding the official parameter cache
// is the caller's (filecoin.IsParameterCache), as only it knows whether
// the operator insisted.
func GenParams(ctx context.Context, c filecoin.CircuitID, dir string, opt GenOptions) (files testparams.Files, generated bool, err error) {
	var planned func(groth16.SetupPlan)
	if opt.HeapLimit != nil {
		planned = func(p groth16.SetupPlan) { debug.SetMemoryLimit(opt.HeapLimit(p.Memory)) }
	}
	return testparams.EnsureCircuit(ctx, c, dir, testparams.Options{Workers: opt.Workers, Force: opt.Force, Progress: opt.Progress,
		MemAvailable: opt.MemAvailable, Planned: planned})
}

// ProgressLines returns a progress callback for parameter generation that
// reports to w, each line naming what: a line at every phase change, at
// the end of each phase and at least every every, with the phase's
// count, the whole setup's share done and the time left, fit for
// terminals and logs alike.
func ProgressLines(w io.Writer, what string, every time.Duration) func(groth16.SetupProgress) {
	start := time.Now()
	var last string
	var lastAt time.Time
	return func(p groth16.SetupProgress) {
		now := time.Now()
		if p.Phase == last && now.Sub(lastAt) < every && (p.Total == 0 || p.Done < p.Total) {
			return
		}
		last, lastAt = p.Phase, now
		line := fmt.Sprintf("[%6.1fs] %s: %s", now.Sub(start).Seconds(), what, p.Phase)
		if p.Total > 0 {
			unit := "points"
			if strings.HasPrefix(p.Phase, "fold") || p.Phase == "count" {
				unit = "rows"
			}
			line += fmt.Sprintf(" %3.0f%% (%d of %d %s)", 100*float64(p.Done)/float64(p.Total), p.Done, p.Total, unit)
		} else if p.Done > 0 {
			line += fmt.Sprintf(" (%d rows)", p.Done)
		}
		if p.Fraction < 1 {
			line += fmt.Sprintf(", %.0f%% of the setup", 100*p.Fraction)
			if p.Remaining > 0 {
				line += ", about " + p.Remaining.Round(time.Second).String() + " left"
			}
		}
		fmt.Fprintln(w, line)
	}
}
