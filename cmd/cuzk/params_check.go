package main

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
)

// progressEvery is how often params check reports its progress through
// a big file.
const progressEvery = 5 * time.Second

// runParamsCheck is `cuzk params check`: every parameter file of the
// official manifest (or of --manifest), or a sector size's, is present in
// the parameter directory with the manifest's digest. Exit 0: all of them;
// 1: some are missing, have another digest or are cuzk's INSECURE test
// parameters; 2: usage, an unreadable manifest or file, or interrupted.
func runParamsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("params check", stderr)
	dir := fs.String("params", "", "parameter `directory` (default: $"+filecoin.ParameterCacheEnv+" or "+filecoin.DefaultParameterCacheDir+")")
	deprecatedFlag(fs, "dir", "params")
	manifestPath := fs.String("manifest", "", "paramfetch manifest `file` (default: the official v28 parameters.json, built in)")
	var size sectorSizeFlag // a --manifest may list any size
	fs.Var(&size, "sector-size", "check only this sector size's .params and .vk files: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk params check")
	*dir = filecoin.ParamDir(*dir, os.LookupEnv)
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		if err == nil {
			err = errors.New("not a directory")
		}
		return fail("parameter directory %s: %v", *dir, err)
	}
	check := paramcheck.DirCheck{Dir: *dir, ManifestPath: *manifestPath, JSON: *asJSON, ProgressEvery: progressEvery}
	if size.set {
		check.SectorSize = size.v
	}
	count, err := check.Run(ctx, stdout, stderr)
	switch {
	case err != nil:
		return fail("%v", err)
	case count.Bad() > 0:
		return exitInvalid
	case count.Unreadable() > 0:
		return exitError
	}
	return exitOK
}
