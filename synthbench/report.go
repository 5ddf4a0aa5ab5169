package synthbench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Input is what `cuzk bench synth` measures: the partitions of a sealed
// sector's C1, or one synthetic partition.
type Input struct {
	Circuits []r1cs.Circuit
	// Synthetic describes a synthetic circuit for the report; "" for a C1.
	Synthetic string
}

// SyntheticInput is Synthetic's one partition as an Input.
func SyntheticInput(size filecoin.SectorSize, kind proofkind.Kind, challenges, sectors int, seed uint64) (Input, error) {
	c, what, err := Synthetic(size, kind, challenges, sectors, seed)
	if err != nil {
		return Input{}, err
	}
	return Input{Circuits: []r1cs.Circuit{c}, Synthetic: what}, nil
}

// LoadC1 reads a C1 output file (plain or Curio-wrapped) and plans its
// partitions (FromC1). For path "" it seals the default 2 KiB sector
// (porep/seal's default input and seed), so the benchmark runs with no
// file at hand.
func LoadC1(ctx context.Context, path string) (Input, error) {
	var o *c1.Output
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return Input{}, err
		}
		if o, _, err = c1.ParseAny(raw); err != nil {
			return Input{}, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		pc, err := filecoin.PoRepCircuitID(2048)
		if err != nil {
			return Input{}, err
		}
		p, err := pc.SealProof()
		if err != nil {
			return Input{}, err
		}
		if o, _, err = seal.Seal(ctx, seal.DefaultInput(p), seal.DefaultSeed, 0); err != nil {
			return Input{}, fmt.Errorf("sealing the default sector: %w", err)
		}
	}
	circuits, err := FromC1(ctx, o)
	if err != nil {
		return Input{}, err
	}
	return Input{Circuits: circuits}, nil
}

// Report is `cuzk bench synth --json`'s report; --compare reads it back
// from each build it runs.
type Report struct {
	C1             string      `json:"c1"`
	Synthetic      string      `json:"synthetic,omitempty"` // the synthetic circuit, e.g. "porep 32GiB, 18 challenges"
	CS             CSKind      `json:"cs"`
	OmitC          bool        `json:"omit_c,omitempty"`
	Iterations     []Iteration `json:"iterations"`
	MedianNsPerRow float64     `json:"median_ns_per_constraint"`
	// MedianCPUNsPerRow is the median of the process's user+system CPU
	// time per row: on a shared machine the measure that neighbours
	// disturb least.
	MedianCPUNsPerRow float64 `json:"median_cpu_ns_per_constraint"`
	PeakRSSBytes      uint64  `json:"peak_rss_bytes"`
	GoVersion         string  `json:"go_version"`
	GOMAXPROCS        int     `json:"gomaxprocs"`
	BellpersonNsRow   float64 `json:"bellperson_ns_per_constraint,omitempty"`
}

// Summarize records its and their medians (the upper one of an even
// count, so a figure is always a measured run), with the Go runtime's
// facts. its must not be empty.
func (r *Report) Summarize(its []Iteration) {
	r.GoVersion, r.GOMAXPROCS = runtime.Version(), runtime.GOMAXPROCS(0)
	r.Iterations = its
	ns := make([]float64, len(its))
	cpu := make([]float64, len(its))
	for i, it := range its {
		ns[i] = it.NsPerRow
		cpu[i] = float64(it.UserNs+it.SysNs) / float64(max(it.Constraints, 1))
	}
	slices.Sort(ns)
	slices.Sort(cpu)
	r.MedianNsPerRow = ns[(len(ns)-1)/2]
	r.MedianCPUNsPerRow = cpu[(len(cpu)-1)/2]
}

// ReadRustBench reads the single-core synthesis ns/constraint that
// tools/rustref bench recorded.
func ReadRustBench(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var v struct {
		Runs []struct {
			Threads         int     `json:"threads"`
			NsPerConstraint float64 `json:"synthesis_ns_per_constraint"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range v.Runs {
		if r.Threads == 1 && r.NsPerConstraint > 0 {
			return r.NsPerConstraint, nil
		}
	}
	return 0, fmt.Errorf("%s: no single-core synthesis figure", path)
}

// FindUp resolves a relative path against the working directory and, when
// it is not there, against each parent directory, so the default
// testdata/rustref/bench.json is found from anywhere inside the repository.
func FindUp(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	dir, err := os.Getwd()
	if err != nil {
		return path
	}
	for {
		p := filepath.Join(dir, path)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return path
		}
		dir = parent
	}
}
