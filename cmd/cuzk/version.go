package main

import (
	"context"
	"io"

	"github.com/cuzk-dev/cuzk/daemon"
)

// runVersion is `cuzk version` and `cuzk --version`.
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	daemon.CurrentVersion().Write(stdout)
	return exitOK
}
