package main

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/cuzk-dev/cuzk/filecoin"
)

func TestDeprecatedFlag(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("cuzk x", flag.ContinueOnError)
	fs.SetOutput(&out)
	dir := fs.String("params", "/default", "parameter `directory`")
	verbose := fs.Bool("verbose", false, "talk")
	deprecatedFlag(fs, "param-cache", "params")
	deprecatedFlag(fs, "chatty", "verbose")
	if err := fs.Parse([]string{"--param-cache", "/old", "--chatty"}); err != nil {
		t.Fatal(err)
	}
	if *dir != "/old" || !*verbose {
		t.Errorf("params %q verbose %v: the old spellings did not set the current flags", *dir, *verbose)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["params"] || !given["verbose"] {
		t.Errorf("current flags not marked as given: %v", given)
	}
	for _, want := range []string{"cuzk x: --param-cache is deprecated; use --params\n", "cuzk x: --chatty is deprecated; use --verbose\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q lacks %q", out.String(), want)
		}
	}

	// The current name says nothing; help names the current flag.
	out.Reset()
	if err := fs.Parse([]string{"--params", "/new"}); err != nil || *dir != "/new" || out.Len() != 0 {
		t.Errorf("--params: %v, %q, output %q", err, *dir, out.String())
	}
	fs.PrintDefaults()
	if !strings.Contains(out.String(), "-param-cache directory\n    \tdeprecated: use --params directory") {
		t.Errorf("help:\n%s", out.String())
	}
}

// The commands' old spellings still work, with a note on stderr.
func TestOldFlagSpellings(t *testing.T) {
	dir, manifest, _ := paramsDir(t)
	code, _, stderr := runCmd(t, "params", "check", "--dir", dir, "--manifest", manifest)
	if code != exitOK || !strings.Contains(stderr, "--dir is deprecated; use --params") {
		t.Errorf("params check --dir: exit %d\n%s", code, stderr)
	}
	for _, args := range [][]string{
		{"daemon", "--param-cache", "/x", "--help"},
		{"demo", "--params-dir", "/x", "--help"},
		{"seal", "--miner-id", "7", "--help"},
		{"bench", "single", "--sector-num", "3", "--miner-id", "7", "--help"},
	} {
		code, _, stderr := runCmd(t, args...)
		if code != exitOK || !strings.Contains(stderr, "--"+strings.TrimPrefix(args[len(args)-3], "--")+" is deprecated") {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
		}
	}
}

// post vanilla takes the kinds' one spelling and their aliases.
func TestParsePoStKind(t *testing.T) {
	for in, want := range map[string]filecoin.PoStType{
		"window-post": filecoin.WindowPoSt, "window": filecoin.WindowPoSt, "wpost": filecoin.WindowPoSt, "window_post": filecoin.WindowPoSt,
		"winning-post": filecoin.WinningPoSt, "winning": filecoin.WinningPoSt,
	} {
		if got, err := parsePoStKind(in); err != nil || got != want {
			t.Errorf("parsePoStKind(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "porep-c2", "post"} {
		if _, err := parsePoStKind(in); err == nil || !strings.Contains(err.Error(), "window-post or winning-post") {
			t.Errorf("parsePoStKind(%q): %v", in, err)
		}
	}
}
