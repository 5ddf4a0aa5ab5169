package testparams

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

// Files without a test marker are someone else's: Generate and Ensure must
// refuse to write over a .params or a .vk that has none.
func TestRefusesUnmarkedFiles(t *testing.T) {
	for _, which := range []string{"params", "vk"} {
		dir := t.TempDir()
		f, err := PathsFor(filecoin.StackedDrg2KiBV1_1, dir)
		if err != nil {
			t.Fatal(err)
		}
		path := f.Params
		if which == "vk" {
			path = f.VK
		}
		os.WriteFile(path, []byte("official"), 0o644)
		_, _, err = Ensure(context.Background(), filecoin.StackedDrg2KiBV1_1, dir, Options{})
		if !errors.Is(err, ErrOfficialExists) {
			t.Fatalf("%s: err = %v", which, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "official" {
			t.Fatalf("%s overwritten", which)
		}
	}
}

func TestToxicWasteDeterministic(t *testing.T) {
	a, b, c := ToxicWaste(DefaultSeed), ToxicWaste(DefaultSeed), ToxicWaste("other")
	if a != b || a == c {
		t.Fatal("toxic waste is not a function of the seed")
	}
	if a.Tau.IsZero() || a.Gamma.IsZero() || a.Delta.IsZero() {
		t.Fatal("zero toxic waste")
	}
}
