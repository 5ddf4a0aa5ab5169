package main

import (
	"strings"
	"testing"
)

// A command group alone lists its subcommands: with --help on stdout and
// exit 0, without it (or with an unknown subcommand) on stderr as an error.
func TestGroupHelp(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stdout bool
		want   string
	}{
		{[]string{"params", "--help"}, exitOK, true, "params gen"},
		{[]string{"bench", "-h"}, exitOK, true, "bench stress"},
		{[]string{"bench"}, exitError, false, "bench single"},
		{[]string{"bench", "nope"}, exitError, false, `unknown command "bench nope"`},
		{[]string{"nope"}, exitError, false, `unknown command "nope"`},
	} {
		code, out, errOut := runCmd(t, c.args...)
		got := errOut
		if c.stdout {
			got = out
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("cuzk %s: exit %d, stdout %q, stderr %q", strings.Join(c.args, " "), code, out, errOut)
		}
	}
}
