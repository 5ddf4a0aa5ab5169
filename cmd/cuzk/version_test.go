package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersionCommand: `cuzk version` and `cuzk --version` print this
// binary's facts on stdout and exit 0; extra arguments are usage errors.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, out, errOut := runCmd(t, args...)
		if code != exitOK || errOut != "" {
			t.Errorf("cuzk %s: exit %d, stderr %q", args[0], code, errOut)
		}
		for _, w := range []string{"cuzk ", "module      github.com/cuzk-dev/cuzk\n", "go          " + runtime.Version() + " ", "backends    cpu", "arithmetic  "} {
			if !strings.Contains(out, w) {
				t.Errorf("cuzk %s: output lacks %q:\n%s", args[0], w, out)
			}
		}
	}
	if code, _, _ := runCmd(t, "version", "extra"); code != exitError {
		t.Errorf("cuzk version extra: exit %d, want %d", code, exitError)
	}
}
