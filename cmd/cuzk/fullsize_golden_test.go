package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fullsizeDir holds the full-size golden of issue 20: a 32 GiB WindowPoSt
// partition (one real sector from rust-fil-proofs, padded to 2,349 as
// upstream pads) proven by `cuzk prove-post` on a 24 GiB, 2-core machine
// with INSECURE test parameters (scripts/fullsize-window-post.sh --cli;
// 52 min, docs/performance.md), accepted by the Rust reference, its
// verifying key under the official name and its public values.
const fullsizeDir = "../../testdata/fullsize/window-post-32GiB"

// fullsizeVK is the official name of the 32 GiB WindowPoSt verifying key
// (testdata/upstream/parameters.json).
const fullsizeVK = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk"

// TestFullSizeWindowPoStGolden: cuzk verify-post accepts the full-size
// proof with its verifying key and public values, under V1 (the vanilla
// proof's registered proof) and V1_1 (what Curio sends; for one sector at
// index 0 the challenges are the same), and rejects it with the
// randomness, a comm_r or a proof byte changed.
func TestFullSizeWindowPoStGolden(t *testing.T) {
	vk := filepath.Join(fullsizeDir, fullsizeVK)
	proof := filepath.Join(fullsizeDir, "proof.bin")
	pub := filepath.Join(fullsizeDir, "public.json")
	raw := readGoldenProof(t, proof, 1)
	const (
		zero  = "0000000000000000000000000000000000000000000000000000000000000000"
		one   = "0100000000000000000000000000000000000000000000000000000000000000"
		commR = "df691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b"
		badR  = "de691086e3c673c95a45908713d4c5938e5ced43f21b888bd9bc6e181c9f326b"
	)
	flippedPath := withANegated(t, raw, t.TempDir(), 0)
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"public file", []string{"--public", pub}, exitOK},
		{"V1 flags", []string{"--registered-proof", "8", "--randomness", zero, "--sectors", "1:" + commR}, exitOK},
		{"V1_1 flags", []string{"--registered-proof", "13", "--randomness", zero, "--sectors", "1:" + commR}, exitOK},
		{"randomness changed", []string{"--registered-proof", "8", "--randomness", one, "--sectors", "1:" + commR}, exitInvalid},
		{"comm_r changed", []string{"--registered-proof", "8", "--randomness", zero, "--sectors", "1:" + badR}, exitInvalid},
		{"sector id changed", []string{"--registered-proof", "8", "--randomness", zero, "--sectors", "2:" + commR}, exitInvalid},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"verify-post", "--vk", vk, "--proof", proof}, tc.args...)
		if got := run(context.Background(), args, &out, &errb); got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
	var out, errb bytes.Buffer
	if got := run(context.Background(), []string{"verify-post", "--vk", vk, "--proof", flippedPath, "--public", pub}, &out, &errb); got != exitInvalid || !strings.Contains(out.String()+errb.String(), "invalid") {
		t.Errorf("flipped proof byte: exit %d\n%s%s", got, out.String(), errb.String())
	}
}

// porepFullsizeDir holds the full-size golden of issue 30: a whole 32 GiB
// PoRep C2 (ten partitions) of a C1 made without sealing (cuzk c1 gen),
// proven through the daemon on a 24 GiB, 2-core machine with INSECURE test
// parameters (scripts/fullsize-porep.sh; docs/performance.md), accepted by
// rust-fil-proofs' verify_seal; its verifying key under the official name
// and its public values (commdr.json).
const porepFullsizeDir = "../../testdata/fullsize/porep-c2-32GiB"

const porepFullsizeVK = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk"

// TestFullSizePoRepGolden: cuzk verify-seal accepts the 1,920-byte proof,
// every partition alone too, and rejects it with the seed, comm_r or one
// proof byte changed; the public values are those `cuzk c1 gen` makes
// today, so the golden stays the generator's.
func TestFullSizePoRepGolden(t *testing.T) {
	vk := filepath.Join(porepFullsizeDir, porepFullsizeVK)
	proof := filepath.Join(porepFullsizeDir, "proof.bin")
	commdr := filepath.Join(porepFullsizeDir, "commdr.json")
	raw := readGoldenProof(t, proof, 10)
	gen := filepath.Join(t.TempDir(), "c1.json")
	if code, _, stderr := runCmd(t, "c1", "gen", "--sector-size", "32GiB", "--out", gen); code != exitOK {
		t.Fatalf("c1 gen: %s", stderr)
	}
	want, _ := os.ReadFile(commdr)
	got, _ := os.ReadFile(filepath.Join(filepath.Dir(gen), "commdr.json"))
	if !bytes.Equal(want, got) {
		t.Fatalf("c1 gen's commdr.json is not the golden's:\n%s\nwant\n%s", got, want)
	}
	dir := t.TempDir()
	badSeed := withHexFlipped(t, want, dir, "seed")
	badCommR := withHexFlipped(t, want, dir, "comm_r")
	flippedPath := withANegated(t, raw, dir, 9)
	cases := []struct {
		name  string
		proof string
		args  []string
		want  int
	}{
		{"whole proof", proof, []string{"--commdr", commdr}, exitOK},
		{"seed changed", proof, []string{"--commdr", badSeed}, exitInvalid},
		{"comm_r changed", proof, []string{"--commdr", badCommR}, exitInvalid},
		{"a proof byte changed", flippedPath, []string{"--commdr", commdr}, exitInvalid},
		{"last partition, byte changed", flippedPath, []string{"--commdr", commdr, "--partition", "9"}, exitInvalid},
		{"first partition of the changed proof", flippedPath, []string{"--commdr", commdr, "--partition", "0"}, exitOK},
	}
	for k := range 10 {
		cases = append(cases, struct {
			name  string
			proof string
			args  []string
			want  int
		}{fmt.Sprintf("partition %d", k), proof, []string{"--commdr", commdr, "--partition", strconv.Itoa(k)}, exitOK})
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"verify-seal", "--vk", vk, "--proof", tc.proof}, tc.args...)
		if got := run(context.Background(), args, &out, &errb); got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
}

// porep64Dir holds partition 0 of a 64 GiB PoRep C2 (tree 8-8-2, the top
// arity-2 level) of a C1 made without sealing (cuzk c1 gen --sector-size
// 64GiB), proven alone by `cuzk prove-c2 --partition 0` on a 24 GiB,
// 2-core machine with INSECURE test parameters (scripts/fullsize-porep.sh
// DIR --sector-size 64GiB --partition 0; docs/performance.md) and accepted
// by rust-fil-proofs (tools/rustref verify-seal --partition 0); its
// verifying key under the official name and its public values.
const porep64Dir = "../../testdata/fullsize/porep-c2-64GiB-partition0"

const porep64VK = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk"

// TestFullSizePoRep64GiBPartitionGolden: c1 gen makes the golden's public
// values again, and verify-seal --partition 0 accepts the partition's 192
// bytes and rejects them with the seed, comm_r or a proof byte changed, and
// as a whole proof (one partition of ten).
func TestFullSizePoRep64GiBPartitionGolden(t *testing.T) {
	vk := filepath.Join(porep64Dir, porep64VK)
	proof := filepath.Join(porep64Dir, "proof.bin")
	commdr := filepath.Join(porep64Dir, "commdr.json")
	raw := readGoldenProof(t, proof, 1)
	gen := filepath.Join(t.TempDir(), "c1.json")
	if code, _, stderr := runCmd(t, "c1", "gen", "--sector-size", "64GiB", "--out", gen); code != exitOK {
		t.Fatalf("c1 gen: %s", stderr)
	}
	want, _ := os.ReadFile(commdr)
	got, _ := os.ReadFile(filepath.Join(filepath.Dir(gen), "commdr.json"))
	if !bytes.Equal(want, got) {
		t.Fatalf("c1 gen's commdr.json is not the golden's:\n%s\nwant\n%s", got, want)
	}
	dir := t.TempDir()
	flippedPath := withANegated(t, raw, dir, 0)
	p0 := []string{"--partition", "0"}
	cases := []struct {
		name  string
		proof string
		args  []string
		want  int
	}{
		{"partition 0", proof, append([]string{"--commdr", commdr}, p0...), exitOK},
		{"seed changed", proof, append([]string{"--commdr", withHexFlipped(t, want, dir, "seed")}, p0...), exitInvalid},
		{"comm_r changed", proof, append([]string{"--commdr", withHexFlipped(t, want, dir, "comm_r")}, p0...), exitInvalid},
		{"a proof byte changed", flippedPath, append([]string{"--commdr", commdr}, p0...), exitInvalid},
		{"partition 1's inputs", proof, []string{"--commdr", commdr, "--partition", "1"}, exitInvalid},
	}
	for _, tc := range cases {
		var out, errb bytes.Buffer
		args := append([]string{"verify-seal", "--vk", vk, "--proof", tc.proof}, tc.args...)
		if got := run(context.Background(), args, &out, &errb); got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
	// As a whole proof it is one partition of ten: refused, not accepted.
	var out, errb bytes.Buffer
	if got := run(context.Background(), []string{"verify-seal", "--vk", vk, "--proof", proof, "--commdr", commdr}, &out, &errb); got == exitOK {
		t.Errorf("one partition accepted as a whole 64 GiB proof:\n%s%s", out.String(), errb.String())
	}
}

// withANegated writes proof (192 bytes per partition) to dir with the given
// partition's A negated and returns the file's path: still a valid point,
// so only the pairing can refuse it: the golden tests' "a proof byte
// changed" input.
func withANegated(t *testing.T, proof []byte, dir string, partition int) string {
	t.Helper()
	b := append([]byte(nil), proof...)
	b[partition*192] ^= 0x20 // the y-sign flag of A's compressed encoding
	p := filepath.Join(dir, "flipped.bin")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// withHexFlipped writes the public-values JSON doc to dir with the first
// byte of its hex field changed and returns the file's path: the golden
// tests' "a public value changed" input.
func withHexFlipped(t *testing.T, doc []byte, dir, field string) string {
	t.Helper()
	return withEdited(t, doc, dir, field, func(m map[string]any) {
		h, _ := m[field].(string)
		if b, err := hex.DecodeString(h); err != nil || len(b) == 0 {
			t.Fatalf("%s: not a hex value: %v", field, err)
		}
		m[field] = flipHex(h)
	})
}

// withEdited writes the JSON object doc to dir as name.json after edit has
// changed it, and returns the file's path: the golden tests' tampered
// public values.
func withEdited(t *testing.T, doc []byte, dir, name string, edit func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	p := filepath.Join(dir, name+".json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// windowPoSt64Dir holds the 64 GiB WindowPoSt golden of issue 31: one full
// partition of 2,300 made-up sectors (`cuzk post gen --kind window-post
// --sector-size 64GiB --sectors 2300`, no sealing, tree 8-8-2) proven
// through the daemon on a 2-core, 24 GiB machine with INSECURE test
// parameters (scripts/fullsize-window-post.sh --sector-size 64GiB;
// docs/performance.md), accepted by rust-fil-proofs' verify_window_post.
// The 78 MB vanilla proofs are not kept: vanilla.json.sha256 names them,
// and the generator makes them again.
const windowPoSt64Dir = "../../testdata/fullsize/window-post-64GiB"

const windowPoSt64VK = "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk"

// TestFullSizeWindowPoSt64GiBGolden: post gen still makes the golden's
// sectors (the first three here; all 2,300 and the vanilla proofs' digest
// with CUZK_FULLSIZE=1), and cuzk verify-post accepts the partition's proof
// and rejects it with the randomness, the first or last sector's comm_r,
// the last sector id or one proof byte changed.
func TestFullSizeWindowPoSt64GiBGolden(t *testing.T) {
	vk := filepath.Join(windowPoSt64Dir, windowPoSt64VK)
	proof := filepath.Join(windowPoSt64Dir, "proof.bin")
	pub := filepath.Join(windowPoSt64Dir, "public.json")
	raw := readGoldenProof(t, proof, 1)
	doc, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	type public struct {
		RegisteredProof int    `json:"registered_proof"`
		Randomness      string `json:"randomness"`
		ProverID        string `json:"prover_id"`
		Sectors         []struct {
			SectorID uint64 `json:"sector_id"`
			CommR    string `json:"comm_r"`
		} `json:"sectors"`
	}
	var want public
	if err := json.Unmarshal(doc, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Sectors) != 2300 {
		t.Fatalf("public.json has %d sectors, want a full 64 GiB partition of 2,300", len(want.Sectors))
	}

	sectors := "3"
	full := os.Getenv("CUZK_FULLSIZE") == "1"
	if full {
		sectors = "2300"
	}
	gen := t.TempDir()
	if code, _, stderr := runCmd(t, "post", "gen", "--kind", "window-post", "--sector-size", "64GiB", "--sectors", sectors, "--out", gen); code != exitOK {
		t.Fatalf("post gen: %s", stderr)
	}
	var got public
	if b, err := os.ReadFile(filepath.Join(gen, "public.json")); err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatalf("post gen's public.json: %v", err)
	}
	if got.RegisteredProof != want.RegisteredProof || got.Randomness != want.Randomness || got.ProverID != want.ProverID {
		t.Fatalf("post gen's public values %+v are not the golden's", got)
	}
	for i, s := range got.Sectors {
		if s != want.Sectors[i] {
			t.Fatalf("post gen's sector %d is %+v, the golden's %+v: the generator's output changed", i, s, want.Sectors[i])
		}
	}
	if full {
		b, err := os.ReadFile(filepath.Join(gen, "vanilla.json"))
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := os.ReadFile(filepath.Join(windowPoSt64Dir, "vanilla.json.sha256"))
		if h := sha256.Sum256(b); !strings.HasPrefix(string(sum), hex.EncodeToString(h[:])+" ") {
			t.Fatalf("post gen's vanilla.json has sha256 %x, the golden's %s", h, sum)
		}
	}

	dir := t.TempDir()
	changed := func(name string, edit func(m map[string]any)) string { return withEdited(t, doc, dir, name, edit) }
	sector := func(m map[string]any, i int) map[string]any {
		return m["sectors"].([]any)[i].(map[string]any)
	}
	for _, tc := range []struct {
		name, proof, public string
		want                int
	}{
		{"public file", proof, pub, exitOK},
		{"randomness changed", proof, changed("randomness", func(m map[string]any) { m["randomness"] = flipHex(m["randomness"].(string)) }), exitInvalid},
		{"first comm_r changed", proof, changed("comm-r-first", func(m map[string]any) { s := sector(m, 0); s["comm_r"] = flipHex(s["comm_r"].(string)) }), exitInvalid},
		{"last comm_r changed", proof, changed("comm-r-last", func(m map[string]any) { s := sector(m, 2299); s["comm_r"] = flipHex(s["comm_r"].(string)) }), exitInvalid},
		{"last sector id changed", proof, changed("sector-id", func(m map[string]any) { sector(m, 2299)["sector_id"] = 2301 }), exitInvalid},
		{"a proof byte changed", withANegated(t, raw, dir, 0), pub, exitInvalid},
	} {
		var out, errb bytes.Buffer
		args := []string{"verify-post", "--vk", vk, "--proof", tc.proof, "--public", tc.public}
		if got := run(context.Background(), args, &out, &errb); got != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, got, tc.want, out.String(), errb.String())
		}
	}
}

// readGoldenProof reads a golden proof file and fails the test unless it
// holds exactly partitions proofs of 192 bytes.
func readGoldenProof(t *testing.T, path string, partitions int) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != partitions*192 {
		t.Fatalf("%s is %d bytes, want %d partition(s) of 192", path, len(raw), partitions)
	}
	return raw
}

// flipHex returns the hex string h with its first byte's low bit changed:
// the golden tests' "a public value changed".
func flipHex(h string) string {
	b, _ := hex.DecodeString(h)
	b[0] ^= 1
	return hex.EncodeToString(b)
}
