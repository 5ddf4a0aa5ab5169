// Package skipper is a package whose one test skips, for testenv's test of
// where the summary line goes.
package skipper

import (
	"os"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

func TestSkipped(t *testing.T) { testenv.Skip(t, "on purpose", "this test always skips") }
