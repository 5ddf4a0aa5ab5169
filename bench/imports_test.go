package bench

import (
	"os/exec"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/cuzk-dev/cuzk"

// allowedImports are the only packages of this module bench may depend on
// (directly or not): it talks to a daemon through the client and the wire
// types, reads /status through its document type and draws its
// timeline. Building requests
// from sealed sectors, verifying proofs and the synthesis benchmark live
// in cmd/cuzk and synthbench.
var allowedImports = map[string]bool{
	module + "/bench":            true,
	module + "/client":           true,
	module + "/api/cuzk/v1":      true,
	module + "/server/statusdoc": true,
	// The pipeline drawn from a /status document (a leaf over statusdoc).
	module + "/server/statusdoc/timeline": true,
	// The client reads bearer-token files with it.
	module + "/internal/tokenfile": true,
	// tokenfile opens the token file with it (a regular file, never a FIFO; a leaf).
	module + "/internal/regfile": true,
	// The kinds' names and wire values.
	module + "/proofkind": true,
	// The fuzz targets' time and allocation bounds (tests only; a leaf).
	module + "/internal/fuzzcheck": true,
	// Requests with every field set (tests only; a leaf over the wire types).
	module + "/internal/prototest": true,
}

// TestImportsAllowList fails when bench (or its tests) depends on a
// package of this module outside allowedImports.
func TestImportsAllowList(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the imports: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-test", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	n := 0
	for _, p := range strings.Fields(string(out)) {
		// -test lists the test variants ("bench [bench.test]", "bench.test").
		p, _, _ = strings.Cut(p, " ")
		if p == module+"/bench.test" || (p != module && !strings.HasPrefix(p, module+"/")) {
			continue
		}
		n++
		if !allowedImports[p] {
			t.Errorf("bench depends on %s; allowed are only %v", p, allowedImports)
		}
	}
	if n < len(allowedImports) {
		t.Fatalf("go list found %d packages of the module, want at least %d:\n%s", n, len(allowedImports), out)
	}
}
