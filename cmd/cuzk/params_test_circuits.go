package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/testparams"
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
	logs := fs.String("k", "10", fmt.Sprintf("comma-separated log2 of the rows of each test circuit to make (%d..%d)", testkind.MinLog, testkind.MaxLog))
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	fail := failer(stderr, "cuzk params test-circuits")
	if *dir == "" {
		return fail("--params is required")
	}
	ks, err := parseLogRows(*logs)
	if err != nil {
		return fail("%v", err)
	}
	for _, k := range ks {
		start := time.Now()
		if testparams.FilesAt(filepath.Join(*dir, testkind.FileBase(k))).Complete() {
			fmt.Fprintf(stdout, "test-k%d: already present in %s\n", k, *dir)
			continue
		}
		fmt.Fprintf(stderr, "generating test-k%d (2^%d rows) ...\n", k, k)
		if err := testkind.WriteParamsContext(ctx, *dir, k); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stdout, "test-k%d: %s (%v)\n", k, filepath.Join(*dir, testkind.FileBase(k)+".params"), time.Since(start).Round(time.Millisecond))
	}
	return exitOK
}

// parseLogRows parses "10,12" into distinct exponents within the test
// circuits' range.
func parseLogRows(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		k, err := strconv.Atoi(f)
		if err != nil || k < testkind.MinLog || k > testkind.MaxLog {
			return nil, fmt.Errorf("--k: %q is not a log2 of rows in %d..%d", f, testkind.MinLog, testkind.MaxLog)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, nil
}
