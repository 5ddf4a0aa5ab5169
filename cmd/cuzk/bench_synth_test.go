package main

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/synthbench"
)

// The 2 KiB PoRep partition's constraint count, pinned by the PoRep
// circuit's test (rust-fil-proofs' R1CS at 2 KiB).
const porep2KiBConstraints, porep2KiBAux, porep2KiBInputs = 2687921, 2685673, 40

const rustBench = "../../testdata/rustref/bench.json"

func synthJSON(t *testing.T, args ...string) synthbench.Report {
	t.Helper()
	code, out, stderr := runCmd(t, append([]string{"bench", "synth", "--json"}, args...)...)
	var rep synthbench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitOK {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, out, stderr)
	}
	return rep
}

func TestBenchSynthCount2KiB(t *testing.T) {
	rep := synthJSON(t, "--cs", "count", "-i", "2", "--rust-bench", rustBench)
	if len(rep.Iterations) != 2 {
		t.Fatalf("%d iterations", len(rep.Iterations))
	}
	for _, it := range rep.Iterations {
		if it.Constraints != porep2KiBConstraints || it.Aux != porep2KiBAux || it.Inputs != porep2KiBInputs || it.Partition != 0 || it.NsPerRow <= 0 {
			t.Fatalf("%+v", it)
		}
	}
	if math.Abs(rep.BellpersonNsRow-636.9746670431603) > 1e-9 || rep.PeakRSSBytes == 0 {
		t.Fatalf("bellperson %v, peak RSS %d", rep.BellpersonNsRow, rep.PeakRSSBytes)
	}
	code, out, _ := runCmd(t, "bench", "synth", "--cs", "count", "-i", "1", "--rust-bench", rustBench, "--partition", "0")
	for _, re := range []string{
		`(?m)^0\s+0\s+count\s+2687921\s+40\s+2685673\s+\S+(\s+[\d.]+){6}\s+\d+ MiB$`,
		`(?m)^median [\d.]+ ns/constraint \(count\), CPU [\d.]+ ns/constraint, peak RSS \d+ MiB`,
		`(?m)^bellperson .*637\.0 ns/constraint → cuzk \(count\)/bellperson = [\d.]+$`,
	} {
		if code != exitOK || !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s:\n%s", re, out)
		}
	}
	for _, bad := range [][]string{
		{"bench", "synth", "--cs", "bogus"},
		{"bench", "synth", "--cs", "count", "--partition", "1"}, // 2 KiB has one partition
		{"bench", "synth", "--c1", "/nonexistent.json"},
	} {
		if code, _, stderr := runCmd(t, bad...); code != exitError || stderr == "" {
			t.Errorf("%v: exit %d %q", bad, code, stderr)
		}
	}
}

// The proving and templated constraint systems see the same circuit the
// counter does, and report the figures the issue asks for.
func TestBenchSynthProving2KiB(t *testing.T) {
	testenv.Short(t, "synthesises 2.7 M constraints twice")
	for _, cs := range []string{"proving", "templated"} {
		rep := synthJSON(t, "--cs", cs, "-i", "1", "--rust-bench", rustBench)
		it := rep.Iterations[0]
		if it.Constraints != porep2KiBConstraints || it.Aux != porep2KiBAux || it.Inputs != porep2KiBInputs || it.NsPerRow <= 0 || it.PeakRSS == 0 ||
			rep.BellpersonNsRow == 0 || string(rep.CS) != cs {
			t.Fatalf("%s: %+v", cs, rep)
		}
		t.Logf("%s: %.1f ns/constraint, %.3f bytes and %.6f allocs per constraint, peak RSS %d MiB, cuzk/bellperson %.2f",
			cs, it.NsPerRow, it.BytesPerRow, it.AllocsPerRw, rep.PeakRSSBytes>>20, rep.MedianNsPerRow/rep.BellpersonNsRow)
	}
}

// --compare runs an A/B of two builds, alternating; here the binary
// against itself, so the ratio is about 1.
func TestBenchSynthCompare(t *testing.T) {
	testenv.Short(t, "builds the cuzk binary")
	bin := filepath.Join(t.TempDir(), "cuzk")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "bench", "synth", "--cs=count", "-i=3", "--compare="+bin, "--partition", "0").Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := len(regexp.MustCompile(`(?m)^round \d: this [\d.]+ ns/constraint, other [\d.]+, ratio [\d.]+; CPU this [\d.]+, other [\d.]+, ratio [\d.]+$`).FindAllString(string(out), -1)); n != 3 {
		t.Fatalf("%d rounds:\n%s", n, out)
	}
	m := regexp.MustCompile(`ratio this/other ([\d.]+) \(min ([\d.]+), max ([\d.]+) over 3 rounds\)`).FindStringSubmatch(string(out))
	if m == nil || strings.Contains(string(out), "NaN") {
		t.Fatalf("no ratio:\n%s", out)
	}
}

// --synthetic builds a partition of random C1-shaped inputs with the real
// partition's rows: 2 KiB PoRep and WindowPoSt counts equal the sealed and
// published ones; reduced 32 GiB partitions stay cheap to count (a 32 GiB
// WindowPoSt sector is 53,333 rows and 54,024 aux variables: 2,349 of them
// are the published 125,279,217 rows).
func TestBenchSynthSynthetic(t *testing.T) {
	for _, c := range []struct {
		args              []string
		rows, inputs, aux int
		synthetic         string
	}{
		{[]string{"--sector-size", "2KiB"}, porep2KiBConstraints, porep2KiBInputs, porep2KiBAux, "porep-c2 2KiB partition (StackedDrg2KiBV1_1), 2 of 2 challenges, seed 1"},
		{[]string{"--sector-size", "2KiB", "--kind", "window-post"}, 21866, 23, 22128, "window-post 2KiB partition (StackedDrgWindow2KiBV1_2), 2 of 2 sectors × 10 challenges, seed 1"},
		{[]string{"--sector-size", "32GiB", "--challenges", "1", "--seed", "3"}, 7238236, 22, 7232200, "porep-c2 32GiB partition (StackedDrg32GiBV1_1), 1 of 18 challenges, seed 3"},
		{[]string{"--sector-size", "32GiB", "--kind", "window-post", "--sectors", "2"}, 106666, 23, 108048, "window-post 32GiB partition (StackedDrgWindow32GiBV1_2), 2 of 2349 sectors × 10 challenges, seed 1"},
	} {
		rep := synthJSON(t, append([]string{"--synthetic", "--cs", "count", "-i", "1"}, c.args...)...)
		it := rep.Iterations[0]
		if it.Constraints != c.rows || it.Inputs != c.inputs || it.Aux != c.aux || rep.Synthetic != c.synthetic || rep.BellpersonNsRow != 0 {
			t.Errorf("%v: %+v, %q", c.args, it, rep.Synthetic)
		}
	}
	for _, bad := range [][]string{
		{"bench", "synth", "--synthetic"},                                            // no size
		{"bench", "synth", "--sector-size", "2KiB"},                                  // size without --synthetic
		{"bench", "synth", "--synthetic", "--sector-size", "2KiB", "--kind", "x"},    // unknown kind
		{"bench", "synth", "--synthetic", "--sector-size", "2KiB", "--sectors", "1"}, // porep has challenges
	} {
		if code, _, stderr := runCmd(t, bad...); code != exitError || stderr == "" {
			t.Errorf("%v: exit %d %q", bad, code, stderr)
		}
	}
}

// --omit-c measures the assignment without c that the CPU prover takes,
// exact and templated; it is refused where there is no c to omit. Every
// iteration reports its CPU time and page faults.
func TestBenchSynthOmitC(t *testing.T) {
	for _, cs := range []string{"proving", "templated"} {
		rep := synthJSON(t, "--synthetic", "--sector-size", "2KiB", "--kind", "window-post", "--cs", cs, "--omit-c", "-i", "2")
		if !rep.OmitC || string(rep.CS) != cs || len(rep.Iterations) != 2 || rep.MedianCPUNsPerRow <= 0 {
			t.Fatalf("%s: %+v", cs, rep)
		}
		for _, it := range rep.Iterations {
			if it.Constraints != 21866 || it.UserNs+it.SysNs <= 0 || it.MinorFaults < 0 {
				t.Errorf("%s: %+v", cs, it)
			}
		}
	}
	for _, cs := range []string{"witness", "count"} {
		if code, _, stderr := runCmd(t, "bench", "synth", "--synthetic", "--sector-size", "2KiB", "--cs", cs, "--omit-c"); code != exitError || !strings.Contains(stderr, "--omit-c") {
			t.Errorf("%s --omit-c: exit %d %q", cs, code, stderr)
		}
	}
}
