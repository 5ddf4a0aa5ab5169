package benchspec

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cuzk-dev/cuzk/engine/testkind"
	"github.com/cuzk-dev/cuzk/testparams"
)

// The log2 of the rows of the daemon's test circuits (test-k<K>).
const (
	TestMinLog = testkind.MinLog
	TestMaxLog = testkind.MaxLog
)

// TestOptions are a test circuit request's options: optionsJSON (an
// engine/testkind.Options; unknown fields refused, so that a misspelt
// option fails instead of proving another circuit) when not empty, or else
// partitions when above one.
func TestOptions(optionsJSON string, partitions int) (testkind.Options, error) {
	var opt testkind.Options
	if optionsJSON != "" {
		dec := json.NewDecoder(strings.NewReader(optionsJSON))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&opt); err != nil {
			return opt, err
		}
	} else if partitions > 1 {
		opt.Partitions = partitions
	}
	return opt, nil
}

// ParseTestLogRows parses "10,12" into distinct exponents within the test
// circuits' range, in their first order.
func ParseTestLogRows(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		k, err := strconv.Atoi(f)
		if err != nil || k < testkind.MinLog || k > testkind.MaxLog {
			return nil, fmt.Errorf("%q is not a log2 of rows in %d..%d", f, testkind.MinLog, testkind.MaxLog)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// EnsureTestParams makes the parameters of test circuit k in the daemon's
// parameter directory dir (under their own names, never an official one)
// unless a complete set is there already. generating, when not nil, is
// called before a generation starts, which takes minutes for large k.
func EnsureTestParams(ctx context.Context, dir string, k int, generating func()) (params string, generated bool, err error) {
	f := testparams.FilesAt(filepath.Join(dir, testkind.FileBase(k)))
	if f.Complete() {
		return f.Params, false, nil
	}
	if generating != nil {
		generating()
	}
	if err := testkind.WriteParamsContext(ctx, dir, k); err != nil {
		return f.Params, false, err
	}
	return f.Params, true, nil
}
