package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// winningFullsize are the full-size WinningPoSt goldens of issue 31: a
// WinningPoSt of a sector drawn from a made-up set of 16 (`cuzk post gen
// --kind winning-post --sectors 16`, no sealing) proven through the daemon
// as Curio's WinningPoSt task sends it, on a 2-core machine with INSECURE
// test parameters (scripts/fullsize-winning-post.sh; docs/performance.md),
// accepted by rust-fil-proofs' verify_winning_post; the verifying key under
// its official name, the public values and the vanilla proof proven.
var winningFullsize = []struct {
	size, dir, vk string
}{
	{"32GiB", "../../testdata/fullsize/winning-post-32GiB", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.vk"},
	{"64GiB", "../../testdata/fullsize/winning-post-64GiB", "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.vk"},
}

// TestFullSizeWinningPoStGolden: `cuzk post gen` still makes the golden's
// input byte for byte, and cuzk verify-post accepts the proof with its key
// and public values and rejects it with the randomness, comm_r, the sector
// id or one proof byte changed.
func TestFullSizeWinningPoStGolden(t *testing.T) {
	for _, g := range winningFullsize {
		t.Run(g.size, func(t *testing.T) {
			if _, err := os.Stat(g.dir); os.IsNotExist(err) {
				t.Skipf("no %s golden", g.size)
			}
			gen := t.TempDir()
			if code, _, stderr := runCmd(t, "post", "gen", "--kind", "winning-post", "--sector-size", g.size, "--sectors", "16", "--out", gen); code != exitOK {
				t.Fatalf("post gen: %s", stderr)
			}
			for _, f := range []string{"public.json", "vanilla.json"} {
				want, err := os.ReadFile(filepath.Join(g.dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(filepath.Join(gen, f)); !bytes.Equal(got, want) {
					t.Fatalf("post gen's %s is not the golden's: the generator's output changed", f)
				}
			}
			vk := filepath.Join(g.dir, g.vk)
			proof := filepath.Join(g.dir, "proof.bin")
			pub := filepath.Join(g.dir, "public.json")
			raw := readGoldenProof(t, proof, 1)
			var p struct {
				RegisteredProof int    `json:"registered_proof"`
				Randomness      string `json:"randomness"`
				Sectors         []struct {
					SectorID uint64 `json:"sector_id"`
					CommR    string `json:"comm_r"`
				} `json:"sectors"`
			}
			b, _ := os.ReadFile(pub)
			if err := json.Unmarshal(b, &p); err != nil || len(p.Sectors) != 1 {
				t.Fatalf("public.json: %v, %d sectors", err, len(p.Sectors))
			}
			id, commR, rp := strconv.FormatUint(p.Sectors[0].SectorID, 10), p.Sectors[0].CommR, strconv.Itoa(p.RegisteredProof)
			flippedPath := withANegated(t, raw, t.TempDir(), 0)
			for _, tc := range []struct {
				name, proof string
				args        []string
				want        int
			}{
				{"public file", proof, []string{"--public", pub}, exitOK},
				{"flags", proof, []string{"--registered-proof", rp, "--randomness", p.Randomness, "--sectors", id + ":" + commR}, exitOK},
				{"randomness changed", proof, []string{"--registered-proof", rp, "--randomness", flipHex(p.Randomness), "--sectors", id + ":" + commR}, exitInvalid},
				{"comm_r changed", proof, []string{"--registered-proof", rp, "--randomness", p.Randomness, "--sectors", id + ":" + flipHex(commR)}, exitInvalid},
				{"sector id changed", proof, []string{"--registered-proof", rp, "--randomness", p.Randomness, "--sectors", "99:" + commR}, exitInvalid},
				{"a proof byte changed", flippedPath, []string{"--public", pub}, exitInvalid},
			} {
				var out, errb bytes.Buffer
				args := append([]string{"verify-post", "--vk", vk, "--proof", tc.proof}, tc.args...)
				if got := run(context.Background(), args, &out, &errb); got != tc.want {
					t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
				}
			}
		})
	}
}
