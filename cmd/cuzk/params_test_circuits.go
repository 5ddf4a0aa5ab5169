package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cuzk-dev/cuzk/benchspec"
)

// runParamsTestCircuits is `cuzk params test-circuits`: the parameters of
// the daemon's built-in test circuits (proof_kind 1000, served with
// --enable-test-circuits), which `cuzk bench --type test --log-rows K`
// asks for. They go into the daemon's parameter directory under their own
// names (cuzk-test-mixed-k<K>), never under an official one.
func runParamsTestCircuits(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("params test-circuits", stderr)
	dir := fs.String("params", "", "the daemon's parameter `directory` (its [srs] param_cache or --params)")
	deprecatedFlag(fs, "dir", "params")
	logs := fs.String("k", "10", fmt.Sprintf("comma-separated log2 of the rows of each test circuit to make (%d..%d)", benchspec.TestMinLog, benchspec.TestMaxLog))
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk params test-circuits")
	if *dir == "" {
		return fail("--params is required")
	}
	ks, err := benchspec.ParseTestLogRows(*logs)
	if err != nil {
		return fail("--k: %v", err)
	}
	for _, k := range ks {
		start := time.Now()
		params, generated, err := benchspec.EnsureTestParams(ctx, *dir, k, func() {
			fmt.Fprintf(stderr, "generating test-k%d (2^%d rows) ...\n", k, k)
		})
		if err != nil {
			return fail("%v", err)
		}
		if !generated {
			fmt.Fprintf(stdout, "test-k%d: already present in %s\n", k, *dir)
			continue
		}
		fmt.Fprintf(stdout, "test-k%d: %s (%v)\n", k, params, time.Since(start).Round(time.Millisecond))
	}
	return exitOK
}
