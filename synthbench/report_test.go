package synthbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// Summarize takes the upper median of an even count, per wall and per
// CPU time, whatever the order of the runs.
func TestReportSummarize(t *testing.T) {
	its := []Iteration{
		{NsPerRow: 30, UserNs: 900, SysNs: 100, Constraints: 10},
		{NsPerRow: 10, UserNs: 100, SysNs: 0, Constraints: 10},
		{NsPerRow: 20, UserNs: 300, SysNs: 100, Constraints: 10},
		{NsPerRow: 40, UserNs: 1000, SysNs: 1000, Constraints: 10},
	}
	var r Report
	r.Summarize(its)
	if r.MedianNsPerRow != 20 || r.MedianCPUNsPerRow != 40 || len(r.Iterations) != 4 || r.GoVersion == "" || r.GOMAXPROCS < 1 {
		t.Fatalf("%+v", r)
	}
}

// The repository's rustref figures hold a single-core run, found from
// this package's directory; a file without one is an error.
func TestReadRustBench(t *testing.T) {
	path := FindUp("testdata/rustref/bench.json")
	if !filepath.IsAbs(path) {
		t.Fatalf("FindUp did not find testdata/rustref/bench.json: %q", path)
	}
	ns, err := ReadRustBench(path)
	if err != nil || ns <= 0 {
		t.Fatalf("%v ns/constraint, %v", ns, err)
	}
	two := filepath.Join(t.TempDir(), "bench.json")
	if err := os.WriteFile(two, []byte(`{"runs":[{"threads":2,"synthesis_ns_per_constraint":5}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRustBench(two); err == nil || !strings.Contains(err.Error(), "no single-core") {
		t.Fatalf("two-thread only: %v", err)
	}
	if got := FindUp("no/such/file"); got != "no/such/file" {
		t.Fatalf("FindUp of a missing path: %q", got)
	}
}

// A synthetic input is one partition with its description; a C1 file that
// is not one fails with its name.
func TestInputs(t *testing.T) {
	in, err := SyntheticInput(filecoin.SectorSize(2048), proofkind.WinningPoSt, 0, 0, 1)
	if err != nil || len(in.Circuits) != 1 || !strings.Contains(in.Synthetic, "2KiB") {
		t.Fatalf("%+v, %v", in, err)
	}
	bad := filepath.Join(t.TempDir(), "c1.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadC1(context.Background(), bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("bad C1: %v", err)
	}
}
