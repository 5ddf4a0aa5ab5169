//go:build goldengen

package proofgolden

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/r1cs"
	"github.com/cuzk-dev/cuzk/testparams"
)

var paramsDir = flag.String("params-dir", "", "directory to write the test parameters into")

// TestGenerateParams writes the INSECURE test parameters the golden proofs
// are made with, for scripts/golden-proof-post.sh (tools/rustref prove
// reads them):
//
//	go test -tags goldengen ./internal/proofgolden -run TestGenerateParams -args -params-dir DIR
//
// Each set is named as the official files (ParameterSetID) and carries
// testparams' marker; the script reads "case path sha256" lines from
// DIR/params.txt.
func TestGenerateParams(t *testing.T) {
	if *paramsDir == "" {
		t.Skip("no -params-dir")
	}
	if err := os.MkdirAll(*paramsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	sets := []struct {
		name  string
		id    filecoin.ParameterSetID
		blank func() (r1cs.Circuit, error)
	}{
		{"window_post_2KiB", filecoin.StackedDrgWindow2KiBV1_2.ParameterSetID(),
			func() (r1cs.Circuit, error) { return postBlank(filecoin.StackedDrgWindow2KiBV1_2) }},
		{"winning_post_2KiB", filecoin.StackedDrgWinning2KiBV1.ParameterSetID(),
			func() (r1cs.Circuit, error) { return postBlank(filecoin.StackedDrgWinning2KiBV1) }},
		{"update_2KiB_p0", filecoin.StackedDrg2KiBUpdateV1.ParameterSetID(),
			func() (r1cs.Circuit, error) { return updateBlank(filecoin.StackedDrg2KiBUpdateV1) }},
	}
	var list strings.Builder
	for _, s := range sets {
		blank, err := s.blank()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		p, err := setupParams(blank)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(*paramsDir, s.id.ParamsFileName())
		f := testparams.FilesAt(strings.TrimSuffix(path, filecoin.ParamsExt))
		note := fmt.Sprintf("INSECURE TEST PARAMETERS for the golden proof %s (internal/proofgolden).\n"+
			"groth16.Setup over the blank circuit with testparams.ToxicWaste(%q): anyone can forge proofs with them.\n", s.name, testparams.DefaultSeed)
		if err := testparams.Write(f, p, note); err != nil {
			t.Fatal(err)
		}
		sum, err := fileSHA256(f.Params)
		if err != nil {
			t.Fatal(err)
		}
		if want := paramsSHA256(p); sum != want {
			t.Fatalf("%s hashes to %s, the parameters to %s", f.Params, sum, want)
		}
		t.Logf("%s: %s (%d inputs, setup %v)", s.name, filepath.Base(f.Params), p.NumInputs(), time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(&list, "%s %s %s\n", s.name, f.Params, sum)
	}
	if err := os.WriteFile(filepath.Join(*paramsDir, "params.txt"), []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
