package snapgen

import (
	"os"
	"testing"

	"github.com/cuzk-dev/cuzk/internal/testenv"
)

// TestMain names, in one line after the run, the tests this package
// skipped and what runs them.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
