package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/proofkind"
)

// records is a slog handler that keeps every record.
type records struct{ got *[]slog.Record }

func (h records) Enabled(context.Context, slog.Level) bool { return true }
func (h records) Handle(_ context.Context, r slog.Record) error {
	*h.got = append(*h.got, r)
	return nil
}
func (h records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h records) WithGroup(string) slog.Handler      { return h }

func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

func paramFiles(t *testing.T, k proofkind.Kind, size filecoin.SectorSize) (params, vk string) {
	t.Helper()
	c, err := filecoin.CircuitIDFor(k, size)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := c.ParameterSetID()
	if err != nil {
		t.Fatal(err)
	}
	return ps.ParamsFileName(), ps.VerifyingKeyFileName()
}

func touch(t *testing.T, dir, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWarnMissingParams(t *testing.T) {
	warn := func(dir string) []slog.Record {
		var got []slog.Record
		warnMissingParams(slog.New(records{&got}), dir)
		for _, r := range got {
			if r.Level != slog.LevelWarn {
				t.Errorf("%s logged at %v: %s", dir, r.Level, r.Message)
			}
		}
		return got
	}

	missingDir := filepath.Join(t.TempDir(), "nope")
	if got := warn(missingDir); len(got) != 1 || attrs(got[0])["dir"] != missingDir {
		t.Errorf("missing directory: %d records %v", len(got), got)
	}

	// An empty directory: every kind's 32GiB files are missing.
	empty := t.TempDir()
	got := warn(empty)
	if len(got) != len(filecoin.Kinds()) {
		t.Fatalf("empty directory: %d warnings, want one per kind", len(got))
	}
	for i, k := range filecoin.Kinds() {
		a := attrs(got[i])
		params, vk := paramFiles(t, k, filecoin.SectorSize32GiB)
		if a["kind"] != k.String() || a["dir"] != empty || a["sizes"] != "32GiB" || a["missing"] != params+" "+vk {
			t.Errorf("empty directory, %v: %v", k, a)
		}
	}

	// PoRep's 2KiB files only: the other kinds lack theirs at 2KiB, and
	// no other size is asked for.
	dir := t.TempDir()
	params, vk := paramFiles(t, proofkind.PoRep, filecoin.SectorSize2KiB)
	touch(t, dir, params)
	touch(t, dir, vk)
	_, winningVK := paramFiles(t, proofkind.WinningPoSt, filecoin.SectorSize2KiB)
	touch(t, dir, winningVK)
	var kinds []string
	for _, r := range warn(dir) {
		a := attrs(r)
		kinds = append(kinds, a["kind"])
		if a["sizes"] != "2KiB" || strings.Contains(a["missing"], "32GiB") {
			t.Errorf("2KiB directory: %v", a)
		}
		if a["kind"] == "winning-post" && strings.Contains(a["missing"], winningVK) {
			t.Errorf("winning-post: present %s named missing: %v", winningVK, a)
		}
	}
	if want := []string{"window-post", "winning-post", "snap-update"}; !slices.Equal(kinds, want) {
		t.Errorf("2KiB directory: warnings for %v, want %v", kinds, want)
	}

	// Every kind complete: silence.
	for _, k := range filecoin.Kinds() {
		p, v := paramFiles(t, k, filecoin.SectorSize2KiB)
		touch(t, dir, p)
		touch(t, dir, v)
	}
	if got := warn(dir); len(got) != 0 {
		t.Errorf("complete directory: %d warnings: %v", len(got), got)
	}
}
