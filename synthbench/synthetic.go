package synthbench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/porep/c1"
	"github.com/cuzk-dev/cuzk/porep/c2"
	"github.com/cuzk-dev/cuzk/porep/circuit"
	postcircuit "github.com/cuzk-dev/cuzk/post/circuit"
	"github.com/cuzk-dev/cuzk/proofkind"
	"github.com/cuzk-dev/cuzk/r1cs"
)

// Synthetic builds the circuit `cuzk bench synth --synthetic`
// measures: one partition of the given kind and sector size with
// deterministic random inputs (porep/circuit.Synthetic,
// post/circuit.Synthetic), optionally reduced to fewer challenges or
// sectors. It returns a description for the report.
func Synthetic(size filecoin.SectorSize, kind proofkind.Kind, challenges, sectors int, seed uint64) (r1cs.Circuit, string, error) {
	switch kind {
	case proofkind.PoRep:
		if sectors != 0 {
			return nil, "", fmt.Errorf("--sectors is for --kind window-post")
		}
		pc, err := filecoin.PoRepCircuitID(size)
		if err != nil {
			return nil, "", err
		}
		p, err := pc.SealProof()
		if err != nil {
			return nil, "", err
		}
		c, err := circuit.Synthetic(p, challenges, seed)
		if err != nil {
			return nil, "", err
		}
		return c, fmt.Sprintf("%s %v partition (%v), %d of %d challenges, seed %d",
			kind, size, p, len(c.In.Challenges), p.ChallengesPerPartition(), seed), nil
	case proofkind.WindowPoSt, proofkind.WinningPoSt:
		if challenges != 0 {
			return nil, "", fmt.Errorf("--challenges is for --kind porep-c2")
		}
		typ := filecoin.WindowPoSt
		if kind == proofkind.WinningPoSt {
			typ = filecoin.WinningPoSt
			if sectors != 0 {
				return nil, "", fmt.Errorf("--sectors is for --kind window-post")
			}
		}
		var p filecoin.RegisteredPoStProof
		found := false
		for _, q := range filecoin.PoStProofs() {
			if q.SectorSize() == size && q.Type() == typ && (!found || q.APIVersion() > p.APIVersion()) {
				p, found = q, true
			}
		}
		if !found {
			return nil, "", fmt.Errorf("no %s proof for %v sectors", kind, size)
		}
		full, err := postcircuit.DimsOf(p)
		if err != nil {
			return nil, "", err
		}
		c, err := postcircuit.Synthetic(p, sectors, seed)
		if err != nil {
			return nil, "", err
		}
		return c, fmt.Sprintf("%s %v partition (%v), %d of %d sectors × %d challenges, seed %d",
			kind, size, p, len(c.Sectors), full.Sectors, full.Challenges, seed), nil
	}
	return nil, "", fmt.Errorf("--kind %s: synthesis benchmarks take porep-c2, window-post or winning-post", kind)
}

// MemoryGuard refuses a run whose vectors would not fit in the memory
// /proc/meminfo calls available, with a 1 GiB margin for the rest of the
// process (unless force). Without /proc/meminfo it lets everything run.
func MemoryGuard(force bool) func(int64) error {
	return func(need int64) error {
		avail, ok := memAvailable()
		if force || !ok {
			return nil
		}
		if margin := int64(1 << 30); need+margin > avail {
			return fmt.Errorf("the run needs about %.1f GiB and %.1f GiB are available (/proc/meminfo): use --challenges/--sectors for a smaller partition, or --force",
				float64(need)/(1<<30), float64(avail)/(1<<30))
		}
		return nil
	}
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			if f := strings.Fields(rest); len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err == nil
			}
		}
	}
	return 0, false
}

// FromC1 are the partition circuits of a C1 output, as the engine plans
// them (porep/c2), without the native vanilla check: the benchmark
// measures synthesis, not the check.
func FromC1(ctx context.Context, o *c1.Output) ([]r1cs.Circuit, error) {
	parts, err := c2.Plan(ctx, o, c2.PlanOptions{SkipVanillaCheck: true})
	if err != nil {
		return nil, err
	}
	out := make([]r1cs.Circuit, len(parts))
	for i := range parts {
		out[i] = parts[i].Circuit
	}
	return out, nil
}
