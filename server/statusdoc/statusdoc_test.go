package statusdoc

import (
	"go/build"
	"strings"
	"testing"
)

// The document package stays a leaf: only the standard library, so tools
// decode /status without linking the daemon.
func TestImportsOnlyStdlib(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("statusdoc imports %s", imp)
		}
	}
}
