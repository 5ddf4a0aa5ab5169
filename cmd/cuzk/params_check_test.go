package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
)

// paramsDir writes small files under the official 2 KiB file names and a
// manifest (paramfetch's format) with their digests.
func paramsDir(t *testing.T) (dir, manifest string, names []string) {
	t.Helper()
	dir = t.TempDir()
	entries := map[string]map[string]any{}
	for _, e := range paramcheck.Official() {
		if e.SectorSize != 2<<10 {
			continue
		}
		body := []byte("fake " + e.Name)
		if err := os.WriteFile(filepath.Join(dir, e.Name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := blake2b.Sum512(body)
		entries[e.Name] = map[string]any{"cid": e.CID, "digest": hex.EncodeToString(sum[:16]), "sector_size": e.SectorSize}
		names = append(names, e.Name)
	}
	raw, _ := json.Marshal(entries)
	manifest = filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(manifest, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, manifest, names
}

func TestParamsCheck(t *testing.T) {
	dir, manifest, names := paramsDir(t)

	// Against their own manifest every file is right.
	code, out, stderr := runCmd(t, "params", "check", "--params", dir, "--manifest", manifest)
	if code != exitOK || strings.Count(out, "\nok ") != 7 || !strings.HasPrefix(out, "ok ") ||
		!strings.Contains(stderr, "8 files for all sector sizes in "+dir) || !strings.Contains(stderr, ": 8 ok, 0 missing") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}

	// Against the official manifest, for 2 KiB sectors: the eight are not
	// the official files; the other sizes' files, verifying keys included,
	// are none of the 2 KiB check's business.
	code, out, stderr = runCmd(t, "params", "check", "--params", dir, "--sector-size", "2KiB")
	if code != exitInvalid {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, name := range names {
		if !regexp.MustCompile(`(?m)^WRONG +` + regexp.QuoteMeta(name) + `: digest [0-9a-f]{32}, the manifest says [0-9a-f]{32}$`).MatchString(out) {
			t.Errorf("no WRONG line for %s", name)
		}
	}
	porep32vk := filecoin.StackedDrg32GiBV1_1.ParameterSetID().VerifyingKeyFileName()
	porep32 := filecoin.StackedDrg32GiBV1_1.ParameterSetID().ParamsFileName()
	if strings.Contains(out, porep32vk) || strings.Contains(out, porep32) ||
		!strings.Contains(stderr, "8 files for 2KiB sectors") || !strings.Contains(stderr, "0 ok, 0 missing, 8 wrong digest") {
		t.Errorf("official manifest:\n%s\n%s", out, stderr)
	}

	// A marker makes a wrong file cuzk's test parameters; a right file with
	// a marker is official, its marker stale.
	params := names[0]
	if !strings.HasSuffix(params, ".params") {
		t.Fatalf("%s", params)
	}
	marker := filepath.Join(dir, params+filecoin.TestMarkerSuffix)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ = runCmd(t, "params", "check", "--params", dir, "--sector-size", "2KiB")
	vk := strings.TrimSuffix(params, ".params") + ".vk"
	for _, name := range []string{params, vk} {
		if !strings.Contains(out, fmt.Sprintf("INSECURE   %s: cuzk's INSECURE test parameters (marker %s), not the official file\n", name, marker)) {
			t.Errorf("no INSECURE line for %s:\n%s", name, out)
		}
	}
	_, out, _ = runCmd(t, "params", "check", "--params", dir, "--manifest", manifest)
	if !strings.Contains(out, "ok         "+params+" (the official file; the INSECURE-TEST-PARAMETERS marker "+marker+" beside it is stale)\n") {
		t.Errorf("stale marker:\n%s", out)
	}

	// JSON: one object per file with its state.
	code, out, _ = runCmd(t, "params", "check", "--params", dir, "--manifest", manifest, "--json")
	var res []struct {
		Name, Path, State, Digest, Got, Marker string
		Size                                   int64
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK || len(res) != 8 || res[0].State != "ok" ||
		res[0].Got != res[0].Digest || res[0].Size == 0 || res[0].Marker != marker || res[0].Path != filepath.Join(dir, params) {
		t.Errorf("json: exit %d %v\n%s", code, err, out)
	}

	// A file that cannot be read, with nothing else wrong: exit 2.
	if err := os.Remove(filepath.Join(dir, vk)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, vk), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "params", "check", "--params", dir, "--manifest", manifest)
	if code != exitError || !strings.Contains(out, "UNREADABLE "+vk+": "+filepath.Join(dir, vk)+" is not a regular file\n") {
		t.Errorf("unreadable: exit %d\n%s", code, out)
	}
}

func TestParamsCheckErrors(t *testing.T) {
	dir, manifest, _ := paramsDir(t)
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"../x.params": {"digest": "00000000000000000000000000000000"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--params", filepath.Join(dir, "nope")}, "parameter directory " + filepath.Join(dir, "nope") + ": stat"},
		{[]string{"--params", manifest}, "parameter directory " + manifest + ": not a directory"},
		{[]string{"--params", dir, "--manifest", bad}, `bad.json: invalid parameter manifest: "../x.params" is not a plain file name`},
		{[]string{"--params", dir, "--manifest", manifest, "--sector-size", "32GiB"}, "the manifest lists no .params file for 32GiB sectors"},
		{[]string{"--params", dir, "--sector-size", "4KiB"}, "the manifest lists no .params file for 4KiB sectors"},
		{[]string{"--params", dir, "--sector-size", "3KiB"}, "unsupported sector size"},
	} {
		code, _, stderr := runCmd(t, append([]string{"params", "check"}, c.args...)...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want %q", c.args, code, stderr, c.want)
		}
	}

	// Ctrl-C: the check stops and says how far it got.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, stderr bytes.Buffer
	if code := run(ctx, []string{"params", "check", "--params", dir, "--manifest", manifest}, &out, &stderr); code != exitError ||
		!strings.Contains(stderr.String(), "interrupted after 0 of 8 files (context canceled)") {
		t.Errorf("cancelled: exit %d %q", code, stderr.String())
	}
}
