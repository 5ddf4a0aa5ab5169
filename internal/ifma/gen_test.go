package ifma

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// TestGeneratedUpToDate: kernels_amd64.s is gen.go's output, so that the
// assembly and its generator cannot drift apart.
func TestGeneratedUpToDate(t *testing.T) {
	// go test puts its own toolchain's bin first on PATH.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on PATH: %v", err)
	}
	cmd := exec.Command(goTool, "run", "gen.go", "-out", "-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run gen.go: %v\n%s", err, stderr.Bytes())
	}
	got, err := os.ReadFile("kernels_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("kernels_amd64.s differs from gen.go's output: run go generate ./internal/ifma")
	}
}
