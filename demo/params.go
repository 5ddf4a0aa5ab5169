package demo

import (
	"context"
	"fmt"
	"os"

	"github.com/cuzk-dev/cuzk/config"
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
// already there; Planned is told of the setup's plan (see
// testparams.Options).
type GenOptions struct {
	Workers  int
	Force    bool
	Progress func(groth16.SetupProgress)
	Planned  func(groth16.SetupPlan)
}

// GenParams writes the INSECURE test parameters of circuit c into dir
// unless they are there (or Force), refusing a setup larger than this
// machine's available memory before it starts. Guarding the official
// parameter cache is the caller's (filecoin.IsParameterCache), as only
// it knows whether the operator insisted.
func GenParams(ctx context.Context, c filecoin.CircuitID, dir string, opt GenOptions) (files testparams.Files, generated bool, err error) {
	return testparams.EnsureCircuit(ctx, c, dir, testparams.Options{Workers: opt.Workers, Force: opt.Force, Progress: opt.Progress,
		MemAvailable: config.ReadMemAvailable, Planned: opt.Planned})
}
