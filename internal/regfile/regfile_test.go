package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenRefusesAtOnce: a FIFO with no writer, a device and a directory
// are refused without blocking; a regular file and a link to one open.
func TestOpenRefusesAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	reg := filepath.Join(dir, "reg")
	if err := os.WriteFile(reg, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", "/dev/null": "a character device", dir: "a directory"} {
		done := make(chan error, 1)
		go func() { _, _, err := ReadFile(path, 0); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: %v, want ErrNotRegular naming %q and the path", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still blocked after 5 s", path)
		}
	}
	for _, p := range []string{reg, link} {
		b, fi, err := ReadFile(p, 5)
		if err != nil || string(b) != "hello" || fi.Size() != 5 {
			t.Errorf("%s: %q %v", p, b, err)
		}
	}
	if _, _, err := ReadFile(reg, 4); err == nil || !strings.Contains(err.Error(), "more than the 4") {
		t.Errorf("over the bound: %v", err)
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
