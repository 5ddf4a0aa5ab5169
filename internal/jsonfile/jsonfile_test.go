package jsonfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHas(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"registered_proof": 0}`:             true,
		`{"registered_proof": 3, "x": 1}`:     true,
		`{"registered_proof": null}`:          false,
		`{"x": 1}`:                            false,
		`{"nested": {"registered_proof": 1}}`: false,
		`[1, 2]`:                              false,
		`not json`:                            false,
	} {
		if got := Has([]byte(raw), "registered_proof"); got != want {
			t.Errorf("Has(%s) = %v, want %v", raw, got, want)
		}
	}
}

type file struct{ N int }

func parse(raw []byte) (*file, error) {
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"N": 7}`), 0o644)
	os.WriteFile(bad, []byte(`{"N": `), 0o644)
	if f, err := Read(good, parse); err != nil || f.N != 7 {
		t.Fatalf("good: %+v, %v", f, err)
	}
	if _, err := Read(bad, parse); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Fatalf("bad: %v, want an error naming %s", err, bad)
	}
	if _, err := Read(filepath.Join(dir, "none.json"), parse); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}
