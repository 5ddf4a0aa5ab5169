package ifma

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestGeneratedUpToDate: kernels_amd64.s is gen.go's output, so that the
// assembly and its generator cannot drift apart.
func TestGeneratedUpToDate(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Skipf("no go tool at %s: %v", goTool, err)
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
