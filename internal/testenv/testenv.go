// Package testenv decides which tests a run includes. README's test
// command, `go test ./...`, runs everything that stays within a couple of
// minutes per package on a busy 2-core machine. Tests that prove real
// sectors end to end (they need the 1.1 GB 2 KiB test parameters, a minute
// to generate, and tens of CPU-seconds per proof) run only with
// CUZK_E2E=1; .ci/run runs the suite a second time with it, so nothing
// that checks exactness stops running in CI.
package testenv

import (
	"os"
	"testing"
)

// E2EEnv is the environment variable that enables the end-to-end tests.
const E2EEnv = "CUZK_E2E"

// E2E skips t unless end-to-end tests are enabled (and never runs them
// under -short). why says what makes the test heavy.
func E2E(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s", why)
	}
	if os.Getenv(E2EEnv) != "1" {
		t.Skipf("end-to-end (%s): set %s=1 to run it, as .ci/run does", why, E2EEnv)
	}
}
