package archtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/cuzk-dev/cuzk/"

// layer is each package's place in docs/architecture.md: a package may
// import only packages of a lower layer. A package missing from the table
// fails the test, so every new package states where it belongs.
var layer = map[string]int{
	// -1: the vector field kernels, below the leaves that use them (internal/ntt).
	"internal/ifma": -1,
	// -1: byte counts for people, below the budget and the parameter checks.
	"internal/bytesize": -1,
	"internal/jsonfile": -1,
	// -1: opening files that must be regular without blocking on a FIFO, below every reader of one.
	"internal/regfile": -1,
	// -1: which tests a run includes and the one line of what it skipped, below the test helpers that skip (internal/browser, internal/kernelemu).
	"internal/testenv": -1,
	// 0: leaves.
	"fr32": 0, "r1cs": 0, "budget": 0, "api/cuzk/v1": 0, "server/statusdoc": 0, "server/history": 0,
	"internal/detstream": 0, "internal/par": 0, "internal/archtest": 0, "internal/procmem": 0,
	"internal/tokenfile": 0, "internal/browser": 0, "internal/fuzzcheck": 0, "internal/ntt": 0,
	// 0: the one description of each proof kind (wire value, name, policy).
	"proofkind":          0,
	"internal/kernelemu": 0,
	// 1: hashing and Groth16 over R1CS; the timeline drawn from /status.
	"hash": 1, "groth16": 1, "internal/golden": 1, "internal/testcircuits": 1, "internal/prototest": 1,
	"server/statusdoc/timeline": 1,
	// 2: trees; the proving interface; the client; the status page.
	"merkle": 2, "prover": 2, "client": 2, "server/statuspage": 2,
	// 3: Filecoin ids and shapes, gadgets; the CPU backend and the checked wrapper.
	"filecoin": 3, "gadgets": 3, "prover/cpu": 3, "prover/checked": 3,
	// 4: PoRep formats and graph; bincode; the GPU backend.
	"porep/graph": 4, "porep/c1": 4, "internal/bincode": 4, "prover/gpu": 4,
	// 4: the on-disk layout of a sealed or updated sector; the parameter manifest check;
	// TOML config (above filecoin, whose one parameter directory rule it applies).
	"sectordir": 4, "filecoin/paramcheck": 4, "config": 4,
	// 5: parameter files (above the manifest check, which vouches for official names).
	"srs": 5,
	// 5-7: PoRep, PoSt and SnapDeals native sides (vanilla proofs, verifiers), circuits, planning.
	"porep": 5, "porep/circuit": 6, "porep/seal": 6, "post": 6, "snap": 6,
	"porep/c2": 7, "porep/c1gen": 7, "snap/snapgen": 7, "post/circuit": 7, "snap/circuit": 7,
	// 8: the engine; test parameters (blank circuits of every kind); the synthesis benchmark.
	"engine": 8, "testparams": 8, "synthbench": 8,
	// 9: the proof kinds the engine serves and the gRPC server.
	"engine/porepkind": 9, "engine/postkind": 9, "engine/snapkind": 9, "engine/testkind": 9, "server": 9,
	// Test-only: bellperson proof goldens through the engine kinds (its doc.go imports nothing);
	// the one test harness (parameters, engines, fixtures, golden readers); the in-process
	// test server (server's and client's tests).
	"internal/proofgolden": 10, "internal/testkit": 10, "internal/testserver": 10,
	// 10: the daemon harnesses; the daemon assembled from a configuration;
	// the demo's fixtures (sectors sealed in memory, each kind's request)
	// and test parameters.
	"bench": 10, "daemon": 10, "demo": 10,
	// 11: one proof through the daemon's engine, without a daemon; bench's
	// requests with their verifiers; 12: the binary.
	"oneshot": 11, "benchspec": 11, "cmd/cuzk": 12,
}

// daemon packages: nothing that proves or describes Filecoin proofs may
// know about them, whatever its layer.
var daemon = map[string]bool{
	"budget": true, "config": true, "prover": true, "prover/cpu": true, "prover/checked": true, "prover/gpu": true,
	"srs": true, "client": true, "server/statusdoc": true, "internal/tokenfile": true,
	"server/statusdoc/timeline": true, "server/statuspage": true, "server/history": true,
	"engine": true, "engine/porepkind": true, "engine/postkind": true, "engine/snapkind": true, "engine/testkind": true,
	"server": true, "bench": true, "benchspec": true, "daemon": true, "oneshot": true, "demo": true, "cmd/cuzk": true,
}

// maxCmdImports bounds the module packages cmd/cuzk imports: the binary
// parses flags and prints, and what it runs lives in library packages
// with tests of their own (issue 22). Lower it when a move lowers the
// count; raising it needs a reason. 18: porep/c1gen, the generator behind
// `cuzk c1 gen` (issue 30), whose command is flags, one call and printing;
// 19: snap/snapgen, the same for `cuzk snap gen` (issue 31).
const maxCmdImports = 19

// maxImports bounds the module packages a package imports where a
// package drifted into doing several jobs: cmd/cuzk (above) and demo,
// which held bench's requests and verifiers beside the demo's fixtures
// until they moved to benchspec (issue 33); 11 is what the fixtures of
// four kinds and their test parameters take.
var maxImports = map[string]int{"cmd/cuzk": maxCmdImports, "demo": 11}

var domain = []string{"fr32", "r1cs", "hash", "groth16", "merkle", "gadgets", "filecoin", "porep", "post", "snap", "testparams", "sectordir"}

func isDomain(pkg string) bool {
	for _, d := range domain {
		if pkg == d || strings.HasPrefix(pkg, d+"/") {
			return true
		}
	}
	return false
}

// TestImportLayers reads the imports of every non-test Go file of the
// module, whatever its build tags (the cuda files too), with go/parser:
// opening each file also keeps go test's result cache honest.
func TestImportLayers(t *testing.T) {
	root := "../.."
	imports := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "tools" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module (bench/gnarkpeer)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module + filepath.ToSlash(rel)
		if imports[pkg] == nil {
			imports[pkg] = map[string]bool{}
		}
		for _, imp := range f.Imports {
			imports[pkg][strings.Trim(imp.Path.Value, `"`)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for pkg, imps := range imports {
		line := pkg
		for imp := range imps {
			line += " " + imp
		}
		lines = append(lines, line)
	}
	if len(lines) < 20 {
		t.Fatalf("found only %d packages under %s", len(lines), root)
	}
	for _, p := range check(lines) {
		t.Error(p)
	}
}

// The rule itself catches what it must: an upward import, a proof package
// importing the daemon, and a package nobody placed.
func TestCheckCatches(t *testing.T) {
	got := check([]string{
		module + "srs " + module + "engine " + module + "groth16",
		module + "porep " + module + "budget",
		module + "newpkg " + module + "r1cs",
		module + "engine " + module + "srs fmt",
		module + "cmd/cuzk fmt" + strings.Repeat(" "+module+"groth16", maxCmdImports+1),
		module + "demo" + strings.Repeat(" "+module+"groth16", maxImports["demo"]+1),
	})
	want := []string{
		fmt.Sprintf("cmd/cuzk imports %d module packages, more than %d: move the logic into a library package", maxCmdImports+1, maxCmdImports),
		fmt.Sprintf("demo imports %d module packages, more than %d: move the logic into a library package", maxImports["demo"]+1, maxImports["demo"]),
		"newpkg: not in the layer table (add it here and to docs/architecture.md)",
		"porep is a proof package and imports the daemon package budget",
		"srs (layer 5) imports engine (layer 8)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("check found\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// check reads "package import import ..." lines and lists every broken rule.
func check(lines []string) []string {
	var problems []string
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg, ok := strings.CutPrefix(f[0], module)
		if !ok {
			continue
		}
		lp, known := layer[pkg]
		if !known {
			problems = append(problems, pkg+": not in the layer table (add it here and to docs/architecture.md)")
			continue
		}
		own := 0
		for _, imp := range f[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			own++
			ld, known := layer[dep]
			switch {
			case !known:
				// Reported on its own line.
			case ld >= lp:
				problems = append(problems, fmt.Sprintf("%s (layer %d) imports %s (layer %d)", pkg, lp, dep, ld))
			case isDomain(pkg) && daemon[dep]:
				problems = append(problems, pkg+" is a proof package and imports the daemon package "+dep)
			}
		}
		if most, ok := maxImports[pkg]; ok && own > most {
			problems = append(problems, fmt.Sprintf("%s imports %d module packages, more than %d: move the logic into a library package", pkg, own, most))
		}
	}
	sort.Strings(problems)
	return problems
}
