package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/fr32"
	"github.com/cuzk-dev/cuzk/groth16"
	"github.com/cuzk-dev/cuzk/internal/golden"
	"github.com/cuzk-dev/cuzk/internal/testenv"
	"github.com/cuzk-dev/cuzk/internal/testkit"
	"github.com/cuzk-dev/cuzk/merkle"
	"github.com/cuzk-dev/cuzk/porep/seal"
	"github.com/cuzk-dev/cuzk/post"
	"github.com/cuzk-dev/cuzk/sectordir"
	"github.com/cuzk-dev/cuzk/snap"
)

const (
	rustPoSt   = "../../testdata/rustref/post"
	rustUpdate = "../../testdata/rustref/update"
	outsideDir = "../../testdata/rustref/post/outside-window-2k"
)

// sealedDirs are 2 KiB sectors sealed once per test binary by cuzk seal:
// "s1", "s2", "s3" hold the default data with sector numbers 1..3 (s1 and
// s2 are the sectors of the rustref PoSt goldens), "cc" is the CC sector
// 1 of the rustref update goldens. Tests never modify them.
var sealedDirs = struct {
	once sync.Once
	root string
	err  error
}{}

func sealedDir(t *testing.T, name string) string {
	t.Helper()
	sealedDirs.once.Do(func() {
		sealedDirs.root, sealedDirs.err = os.MkdirTemp("", "cuzk-sealed-")
		if sealedDirs.err != nil {
			return
		}
		for _, s := range []struct{ name, sector, cc string }{{"s1", "1", ""}, {"s2", "2", ""}, {"s3", "3", ""}, {"cc", "1", "--cc"}} {
			args := []string{"seal", "--sector-size", "2KiB", "--sector", s.sector, "--out", filepath.Join(sealedDirs.root, s.name)}
			if s.cc != "" {
				args = append(args, s.cc)
			}
			var out, errb bytes.Buffer
			if code := run(context.Background(), args, &out, &errb); code != exitOK {
				sealedDirs.err = fmt.Errorf("%v: exit %d: %s", args, code, errb.String())
				return
			}
		}
	})
	if sealedDirs.err != nil {
		t.Fatal(sealedDirs.err)
	}
	return filepath.Join(sealedDirs.root, name)
}

func TestMain(m *testing.M) {
	code := testenv.Run(m)
	if sealedDirs.root != "" {
		os.RemoveAll(sealedDirs.root)
	}
	if binDir != "" { // the binary cuzkBinary built (signal_test.go)
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// copyDir copies a sector directory (for tests that damage it).
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// publicSectorOf is a sector's id and comm_r, read from the commdr.json
// cuzk seal wrote.
func publicSectorOf(t *testing.T, dir string) post.PublicSector {
	t.Helper()
	c, err := seal.ReadCommDR(filepath.Join(dir, "commdr.json"))
	if err != nil {
		t.Fatal(err)
	}
	return post.PublicSector{ID: c.Sector, CommR: golden.Fr(t, c.CommR)}
}

func rustRandomness(t *testing.T) string {
	t.Helper()
	var g struct {
		Randomness string `json:"randomness"`
	}
	golden.ReadJSON(t, filepath.Join(rustPoSt, "2KiB", "window.json"), &g)
	return g.Randomness
}

// verifyVanillaFile decodes a vanilla proofs file with package post and
// verifies its partition natively against the expected sectors.
func verifyVanillaFile(t *testing.T, path string, p filecoin.RegisteredPoStProof, rnd string, k int, want []post.PublicSector) error {
	t.Helper()
	r, err := parseHex32(rnd)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := post.DecodeVanillaProofs(golden.ReadBase64List(t, path), p)
	if err != nil {
		return err
	}
	pt, err := post.NewPartition(p, r, vs, k)
	if err != nil {
		return err
	}
	if err := pt.Verify(context.Background(), 2); err != nil {
		return err
	}
	return pt.CheckSectors(want)
}

// WindowPoSt and WinningPoSt vanilla proofs of sectors sealed by cuzk seal
// are byte for byte rust-fil-proofs' (filecoin-proofs-api 19
// generate_single_vanilla_proof over the same sectors), decode with package
// post and verify natively; the public-values file lets verify-post check
// rust's outside Groth16 proof made over those very vanilla proofs.
func TestPoStVanillaMatchesRust(t *testing.T) {
	s1, s2 := sealedDir(t, "s1"), sealedDir(t, "s2")
	rnd := rustRandomness(t)
	want := []post.PublicSector{publicSectorOf(t, s1), publicSectorOf(t, s2)}
	out := t.TempDir()

	w := filepath.Join(out, "window.json")
	if code, stdout, stderr := runCmd(t, "post", "vanilla", "--kind", "window", "--sector-dir", s1+","+s2, "--randomness", rnd, "--out", w); code != exitOK {
		t.Fatalf("post vanilla window: exit %d: %s%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(w)
	rust, err := os.ReadFile(filepath.Join(rustPoSt, "2KiB", "window.vanilla.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, rust) {
		t.Error("window vanilla proofs differ from rust-fil-proofs' for the same sectors and randomness")
	}
	if err := verifyVanillaFile(t, w, filecoin.StackedDrgWindow2KiBV1_2, rnd, 0, want); err != nil {
		t.Errorf("window vanilla proofs do not verify natively: %v", err)
	}
	var pub post.PublicFile
	golden.ReadJSON(t, filepath.Join(out, "window.public.json"), &pub)
	if pub.RegisteredProof != 10 || pub.Randomness != rnd || pub.PartitionIndex != 0 || len(pub.Sectors) != 2 ||
		pub.Sectors[1].SectorID != 2 || golden.Fr(t, pub.Sectors[1].CommR) != want[1].CommR || pub.MinerID == nil || *pub.MinerID != 1000 {
		t.Errorf("window public values %+v", pub)
	}
	code, stdout, stderr := runCmd(t, "verify-post", "--vk", filepath.Join(outsideDir, "vk.bin"), "--proof", filepath.Join(outsideDir, "proof.bin"),
		"--public", filepath.Join(out, "window.public.json"))
	if code != exitOK || strings.TrimSpace(stdout) != "valid" {
		t.Errorf("rust's proof over these vanilla proofs, checked with post vanilla's public values: exit %d %q %s", code, stdout, stderr)
	}

	// Winning draws from the set {1, 2}: rust drew index 0 (sector 1).
	win := filepath.Join(out, "winning.json")
	if code, stdout, stderr := runCmd(t, "post", "vanilla", "--kind", "winning", "--sector-dir", s1, "--sector-dir", s2, "--randomness", rnd, "--out", win); code != exitOK {
		t.Fatalf("post vanilla winning: exit %d: %s%s", code, stdout, stderr)
	}
	got, _ = os.ReadFile(win)
	if rust, err = os.ReadFile(filepath.Join(rustPoSt, "2KiB", "winning.vanilla.json")); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, rust) {
		t.Error("winning vanilla proof differs from rust-fil-proofs' for the same sector set and randomness")
	}
	if err := verifyVanillaFile(t, win, filecoin.StackedDrgWinning2KiBV1, rnd, 0, want[:1]); err != nil {
		t.Errorf("winning vanilla proof does not verify natively: %v", err)
	}
	golden.ReadJSON(t, filepath.Join(out, "winning.public.json"), &pub)
	if pub.RegisteredProof != 0 || len(pub.Sectors) != 1 || pub.Sectors[0].SectorID != 1 || pub.WinningSectorIndex == nil ||
		*pub.WinningSectorIndex != 0 || len(pub.SectorSet) != 2 {
		t.Errorf("winning public values %+v", pub)
	}
}

// Window V1 (ids 5..9) numbers the sectors of partition k from
// k·sector_count in the challenges: a partition-1 proof verifies as
// partition 1 and not as partition 0.
func TestPoStVanillaV1Partition(t *testing.T) {
	s1, s3 := sealedDir(t, "s1"), sealedDir(t, "s3")
	rnd := rustRandomness(t)
	out := filepath.Join(t.TempDir(), "v1.json")
	if code, stdout, stderr := runCmd(t, "post", "vanilla", "--kind", "window", "--registered-proof", "5", "--partition", "1",
		"--sector-dir", s3, "--sector-dir", s1, "--randomness", rnd, "--out", out); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	want := []post.PublicSector{publicSectorOf(t, s3), publicSectorOf(t, s1)}
	p := filecoin.StackedDrgWindow2KiBV1
	if err := verifyVanillaFile(t, out, p, rnd, 1, want); err != nil {
		t.Errorf("as partition 1: %v", err)
	}
	if err := verifyVanillaFile(t, out, p, rnd, 0, want); err == nil {
		t.Error("a V1 partition-1 proof verifies as partition 0")
	}
}

// cuzk snap encode of a CC sector sealed by cuzk seal --cc gives
// rust-fil-proofs' update (same comm_r_new, comm_d_new and byte-identical
// vanilla partition proofs), the commitments the snap package computes
// directly, partition proofs that decode and verify with package snap, and
// an updated sector PoSt can prove.
func TestSnapEncodeMatchesRust(t *testing.T) {
	cc := sealedDir(t, "cc")
	out := filepath.Join(t.TempDir(), "update")
	if code, stdout, stderr := runCmd(t, "snap", "encode", "--sector-dir", cc, "--out", out); code != exitOK {
		t.Fatalf("snap encode: exit %d: %s%s", code, stdout, stderr)
	}
	checkUpdateAgainstRust(t, cc, out, "2KiB")

	// The updated sector is a sector: PoSt over it proves comm_r_new.
	var u snap.UpdateFile
	golden.ReadJSON(t, filepath.Join(out, "update.json"), &u)
	rnd := rustRandomness(t)
	w := filepath.Join(t.TempDir(), "w.json")
	if code, stdout, stderr := runCmd(t, "post", "vanilla", "--kind", "window", "--sector-dir", out, "--randomness", rnd, "--out", w); code != exitOK {
		t.Fatalf("post vanilla of the updated sector: exit %d: %s%s", code, stdout, stderr)
	}
	want := []post.PublicSector{{ID: 1, CommR: golden.Fr(t, u.CommRNew)}}
	if err := verifyVanillaFile(t, w, filecoin.StackedDrgWindow2KiBV1_2, rnd, 0, want); err != nil {
		t.Errorf("PoSt of the updated sector: %v", err)
	}
}

// checkUpdateAgainstRust compares snap encode's output in out (of the CC
// sector in cc) with the rustref update golden of size and with the snap
// package's own computation, and verifies the partition proofs natively.
func checkUpdateAgainstRust(t *testing.T, cc, out, size string) {
	t.Helper()
	var got, rust snap.UpdateFile
	golden.ReadJSON(t, filepath.Join(out, "update.json"), &got)
	golden.ReadJSON(t, filepath.Join(rustUpdate, size, "update.json"), &rust)
	if got.RegisteredProof != rust.RegisteredProof || got.CommROld != rust.CommROld || got.CommRNew != rust.CommRNew ||
		got.CommDNew != rust.CommDNew || got.SectorNumber != rust.SectorNumber {
		t.Errorf("update.json %+v\nrust        %+v", got, rust)
	}
	gotV, _ := os.ReadFile(filepath.Join(out, "vproofs.json"))
	rustV, err := os.ReadFile(filepath.Join(rustUpdate, size, "vproofs.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotV, rustV) {
		t.Error("vproofs.json differs from rust-fil-proofs' partition proofs")
	}

	// The snap package, directly.
	key, err := sectordir.Load(cc)
	if err != nil {
		t.Fatal(err)
	}
	p, err := filecoin.UpdateProofForSize(key.SectorSize())
	if err != nil {
		t.Fatal(err)
	}
	padded, err := seal.PadData(snap.DefaultData(key.SectorSize()), key.SectorSize())
	if err != nil {
		t.Fatal(err)
	}
	leaves, _ := merkle.Sha254Leaves(padded)
	treeD, err := merkle.BuildSha254(leaves, 2)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]fr.Element, len(leaves))
	for i := range leaves {
		data[i], _ = fr32.ToElement(leaves[i])
	}
	enc, err := snap.EncodeReplica(p, treeD.Root(), key.CommR, key.TreeRLast.Level(0), data)
	if err != nil {
		t.Fatal(err)
	}
	treeRNew, err := merkle.BuildPoseidon(snap.TreeRShape(p), enc, 2)
	if err != nil {
		t.Fatal(err)
	}
	commRNew := sectordir.CommR(key.CommC, treeRNew.Root())
	commDNew := treeD.Root()
	if got.CommROld != frHex(&key.CommR) || got.CommRNew != frHex(&commRNew) || got.CommDNew != hex.EncodeToString(commDNew[:]) || got.RegisteredProof != int64(p) {
		t.Errorf("update.json differs from the snap package's values")
	}

	vp := golden.ReadBase64List(t, filepath.Join(out, "vproofs.json"))
	pps, err := snap.DecodePartitionProofs(vp, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(pps) != p.Partitions() {
		t.Fatalf("%d partition proofs, want %d", len(pps), p.Partitions())
	}
	pub := snap.Public{Proof: p, CommROld: key.CommR, CommDNew: commDNew, CommRNew: commRNew}
	if err := snap.VerifyAll(context.Background(), pub, pps); err != nil {
		t.Errorf("partition proofs do not verify natively: %v", err)
	}

	up, err := sectordir.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if up.Update == nil || up.Update.Proof != p || up.Update.CommROld != key.CommR || up.CommR != commRNew || up.CommD != commDNew || up.CommC != key.CommC {
		t.Errorf("updated sector %+v", up)
	}
}

// The same at 8 MiB (4 partitions): sealing an 8 MiB sector takes about
// 20 s of CPU and building tree_r_new another 5.
func TestSnapEncode8MiBMatchesRust(t *testing.T) {
	testenv.E2E(t, "seals an 8 MiB sector")
	cc := filepath.Join(t.TempDir(), "cc")
	if code, stdout, stderr := runCmd(t, "seal", "--sector-size", "8MiB", "--cc", "--out", cc); code != exitOK {
		t.Fatalf("seal: exit %d: %s%s", code, stdout, stderr)
	}
	out := filepath.Join(t.TempDir(), "update")
	if code, stdout, stderr := runCmd(t, "snap", "encode", "--sector-dir", cc, "--out", out); code != exitOK {
		t.Fatalf("snap encode: exit %d: %s%s", code, stdout, stderr)
	}
	checkUpdateAgainstRust(t, cc, out, "8MiB")

	rnd := rustRandomness(t)
	for _, c := range []struct {
		kind, dir string
		p         filecoin.RegisteredPoStProof
	}{{"window", cc, filecoin.StackedDrgWindow8MiBV1_2}, {"winning", out, filecoin.StackedDrgWinning8MiBV1}} {
		s, err := sectordir.Load(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), c.kind+".json")
		if code, stdout, stderr := runCmd(t, "post", "vanilla", "--kind", c.kind, "--sector-dir", c.dir, "--randomness", rnd, "--out", f); code != exitOK {
			t.Fatalf("post vanilla %s: exit %d: %s%s", c.kind, code, stdout, stderr)
		}
		if err := verifyVanillaFile(t, f, c.p, rnd, 0, []post.PublicSector{{ID: s.ID, CommR: s.CommR}}); err != nil {
			t.Errorf("8 MiB %s vanilla proof: %v", c.kind, err)
		}
	}
}

func TestPoStVanillaBadInput(t *testing.T) {
	s1, s2, s3, cc := sealedDir(t, "s1"), sealedDir(t, "s2"), sealedDir(t, "s3"), sealedDir(t, "cc")
	rnd := rustRandomness(t)
	corrupt := copyDir(t, s1)
	b, _ := os.ReadFile(filepath.Join(corrupt, "sealed"))
	b[70] ^= 4
	os.WriteFile(filepath.Join(corrupt, "sealed"), b, 0o644)
	out := filepath.Join(t.TempDir(), "v.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "window", "--sector-dir", filepath.Join(s1, "nope"), "--randomness", rnd}, "not a sector directory"},
		{[]string{"--kind", "window", "--sector-dir", t.TempDir(), "--randomness", rnd}, "no sector.json"},
		{[]string{"--kind", "window", "--sector-dir", corrupt, "--randomness", rnd}, "sealed: sha256"},
		{[]string{"--kind", "window", "--sector-dir", s1, "--randomness", rnd[:62]}, "--randomness: want 64 hex characters, got 62"},
		{[]string{"--kind", "window", "--sector-dir", s1, "--randomness", strings.Repeat("ff", 32)}, "not a canonical field element"},
		{[]string{"--kind", "window", "--sector-dir", s1, "--randomness", rnd, "--registered-proof", "11"}, "is for 8MiB sectors, the sector is 2KiB"},
		{[]string{"--kind", "window", "--sector-dir", s1, "--randomness", rnd, "--registered-proof", "0"}, "is a winning proof, --kind is window"},
		{[]string{"--kind", "winning", "--sector-dir", s1, "--randomness", rnd, "--registered-proof", "10"}, "is a window proof, --kind is winning"},
		{[]string{"--kind", "winning", "--sector-dir", s1, "--randomness", rnd, "--registered-proof", "15"}, "unknown registered post proof"},
		{[]string{"--kind", "winning", "--sector-dir", s1, "--randomness", rnd, "--partition", "1"}, "winning has partition 0 only"},
		{[]string{"--kind", "winnow", "--sector-dir", s1, "--randomness", rnd}, `--kind "winnow"`},
		{[]string{"--sector-dir", s1, "--randomness", rnd}, "--kind is required"},
		{[]string{"--kind", "window", "--sector-dir", s1 + "," + s2 + "," + s3, "--randomness", rnd}, "3 sector dirs, a StackedDrgWindow2KiBV1_2 partition holds at most 2"},
		{[]string{"--kind", "window", "--sector-dir", s1 + "," + cc, "--randomness", rnd}, "both hold sector 1"},
		{[]string{"--kind", "window", "--sector-dir", s1}, "--randomness and --out are required"},
	} {
		args := append([]string{"post", "vanilla", "--out", out}, c.args...)
		code, _, stderr := runCmd(t, args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed post vanilla wrote its output")
	}
}

func TestSnapEncodeBadInput(t *testing.T) {
	s1, cc := sealedDir(t, "s1"), sealedDir(t, "cc")
	updated := filepath.Join(t.TempDir(), "up")
	if code, _, stderr := runCmd(t, "snap", "encode", "--sector-dir", cc, "--out", updated); code != exitOK {
		t.Fatal(stderr)
	}
	short := filepath.Join(t.TempDir(), "short")
	os.WriteFile(short, make([]byte, 2000), 0o644)
	corrupt := copyDir(t, cc)
	os.WriteFile(filepath.Join(corrupt, "sector.json"), []byte(`{"format":"cuzk-sector","version":7}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sector-dir", s1}, "sector 1 is not committed capacity"},
		{[]string{"--sector-dir", updated}, "holds an updated sector"},
		{[]string{"--sector-dir", cc, "--data", short}, "2000 bytes for a 2KiB sector"},
		{[]string{"--sector-dir", corrupt}, "version 7, this cuzk reads version 1"},
		{[]string{"--sector-dir", filepath.Join(cc, "nope")}, "not a sector directory"},
	} {
		args := append([]string{"snap", "encode", "--out", filepath.Join(t.TempDir(), "o")}, c.args...)
		code, _, stderr := runCmd(t, args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCmd(t, "snap", "encode", "--sector-dir", cc, "--out", cc); code != exitError || !strings.Contains(stderr, "is the sector dir") {
		t.Errorf("--out = --sector-dir: exit %d %q", code, stderr)
	}
	// Padded data of the right size is taken as it is.
	padded := filepath.Join(t.TempDir(), "padded")
	os.WriteFile(padded, make([]byte, 2048), 0o644)
	if code, _, stderr := runCmd(t, "snap", "encode", "--sector-dir", cc, "--data", padded, "--out", filepath.Join(t.TempDir(), "o")); code != exitOK {
		t.Errorf("padded --data: exit %d %s", code, stderr)
	}
}

// outsideArgs are verify-post's flags for rust-fil-proofs' outside 2 KiB
// WindowPoSt proof, from its public values alone.
func outsideArgs(t *testing.T) (args []string, commRs []string) {
	t.Helper()
	var pub post.PublicFile
	golden.ReadJSON(t, filepath.Join(outsideDir, "public.json"), &pub)
	ids := make([]string, len(pub.Sectors))
	for i, s := range pub.Sectors {
		ids[i] = fmt.Sprintf("%d:%s", s.SectorID, s.CommR)
		commRs = append(commRs, s.CommR)
	}
	return []string{"verify-post", "--vk", filepath.Join(outsideDir, "vk.bin"), "--proof", filepath.Join(outsideDir, "proof.bin"),
		"--registered-proof", fmt.Sprint(pub.RegisteredProof), "--randomness", pub.Randomness,
		"--sectors", strings.Join(ids, ","), "--partition", fmt.Sprint(pub.PartitionIndex), "--miner", "1000"}, commRs
}

// The outside real 2 KiB WindowPoSt Groth16 proof made by rust-fil-proofs
// verifies under verify-post from public values alone (exit 0), and is
// rejected (exit 1) with any comm_r, a sector id or the randomness changed.
func TestVerifyPoStOutside(t *testing.T) {
	args, commRs := outsideArgs(t)
	if code, stdout, stderr := runCmd(t, args...); code != exitOK || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("exit %d, out %q, stderr %q", code, stdout, stderr)
	}
	public := []string{"verify-post", "--vk", filepath.Join(outsideDir, "vk.bin"), "--proof", filepath.Join(outsideDir, "proof.bin"), "--public", filepath.Join(outsideDir, "public.json")}
	if code, stdout, stderr := runCmd(t, public...); code != exitOK || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("--public: exit %d, out %q, stderr %q", code, stdout, stderr)
	}
	with := func(flag, value string) []string {
		a := append([]string(nil), args...)
		for i := range a {
			if a[i] == flag {
				a[i+1] = value
			}
		}
		return a
	}
	sectors := func(ids [2]string, c [2]string) string { return ids[0] + ":" + c[0] + "," + ids[1] + ":" + c[1] }
	var pub post.PublicFile
	golden.ReadJSON(t, filepath.Join(outsideDir, "public.json"), &pub)
	rnd := pub.Randomness
	for name, a := range map[string][]string{
		"comm_r of sector 0": with("--sectors", sectors([2]string{"1", "2"}, [2]string{flipHex(commRs[0]), commRs[1]})),
		"comm_r of sector 1": with("--sectors", sectors([2]string{"1", "2"}, [2]string{commRs[0], flipHex(commRs[1])})),
		"sector id":          with("--sectors", sectors([2]string{"1", "3"}, [2]string{commRs[0], commRs[1]})),
		"sectors swapped":    with("--sectors", sectors([2]string{"2", "1"}, [2]string{commRs[1], commRs[0]})),
		"one sector":         with("--sectors", "1:"+commRs[0]),
		"randomness":         with("--randomness", flipHex(rnd)),
	} {
		if code, stdout, stderr := runCmd(t, a...); code != exitInvalid || strings.TrimSpace(stdout) != "invalid" {
			t.Errorf("%s changed: exit %d, out %q, stderr %q", name, code, stdout, stderr)
		}
	}

	dir := t.TempDir()
	short := filepath.Join(dir, "short.bin")
	proof, _ := os.ReadFile(filepath.Join(outsideDir, "proof.bin"))
	os.WriteFile(short, proof[:191], 0o644)
	garbage := filepath.Join(dir, "garbage.bin")
	os.WriteFile(garbage, bytes.Repeat([]byte{0xff}, 192), 0o644)
	noProof := filepath.Join(dir, "noproof.json")
	os.WriteFile(noProof, []byte(`{"randomness":"`+rnd+`","sectors":[{"sector_id":1,"comm_r":"`+commRs[0]+`"}]}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{with("--proof", short), "191 bytes is not a whole number of 192-byte Groth16 proofs"},
		{with("--proof", garbage), "proof.a"},
		{with("--proof", filepath.Join(dir, "missing.bin")), "no such file"},
		{with("--vk", filepath.Join(outsideDir, "proof.bin")), "malformed groth16 verifying key"},
		{with("--registered-proof", "0"), "StackedDrgWinning2KiBV1 proves 1 sector"},
		{with("--registered-proof", "15"), "unknown registered post proof"},
		{with("--randomness", rnd[:10]), "--randomness: want 64 hex characters, got 10"},
		{with("--randomness", strings.Repeat("ff", 32)), "not a canonical field element"},
		{with("--sectors", "1-"+commRs[0]), `entry 0 "1-`},
		{with("--sectors", "x:"+commRs[0]), "sector id"},
		{with("--sectors", "1:"+strings.Repeat("ff", 32)), "comm_r ffff"},
		{with("--sectors", "1:"+commRs[0]+",2:"+commRs[1]+",3:"+commRs[1]), "3 sectors make 2 partition(s) of up to 2"},
		{with("--partition", "-1"), "--partition -1"},
		{append(public, "--registered-proof", "5"), "--registered-proof 5 disagrees with"},
		{append(public, "--miner", "1001"), "--miner 1001 disagrees with"},
		{[]string{"verify-post", "--vk", "x", "--proof", "y", "--public", noProof}, "no registered_proof"},
		{[]string{"verify-post", "--vk", "x", "--proof", "y"}, "--registered-proof, --randomness and --sectors are required"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args[1:], code, stderr, c.want)
		}
	}
	// A winning VK check: the window key takes 22 inputs, winning has 132.
	code, _, stderr := runCmd(t, "verify-post", "--vk", filepath.Join(outsideDir, "vk.bin"), "--proof", filepath.Join(outsideDir, "proof.bin"),
		"--registered-proof", "0", "--randomness", rnd, "--sectors", "1:"+commRs[0])
	if code != exitError || !strings.Contains(stderr, "StackedDrgWinning2KiBV1: groth16: public input count does not match the verifying key: the verifying key takes 22 public inputs, the proof has 132") {
		t.Errorf("winning with a window key: exit %d %q", code, stderr)
	}
}

// rustUpdateInputs are the public inputs rust-fil-proofs' update circuit
// of partition k takes (testdata/rustref/r1cs/update_<size>_p<k>.json).
func rustUpdateInputs(t *testing.T, size string, k int) []fr.Element {
	t.Helper()
	var g struct {
		PublicInputs []string `json:"public_inputs"`
	}
	golden.ReadJSON(t, fmt.Sprintf("../../testdata/rustref/r1cs/update_%s_p%d.json", size, k), &g)
	out := make([]fr.Element, len(g.PublicInputs))
	for i, h := range g.PublicInputs {
		out[i] = golden.Fr(t, h)
	}
	return out
}

// stubUpdateProof writes a verifying key and one proof per partition that
// hold for exactly the given inputs (testkit.StubProof).
func stubUpdateProof(t *testing.T, inputs [][]fr.Element) (vk, proof string) {
	t.Helper()
	key, raw := testkit.StubProof(t, inputs)
	dir := t.TempDir()
	vk, proof = filepath.Join(dir, "update.vk"), filepath.Join(dir, "update.proof")
	if err := groth16.WriteVerifyingKeyFile(vk, key); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(proof, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return vk, proof
}

// verify-update derives from comm_r_old, comm_r_new and comm_d_new exactly
// the public inputs rust-fil-proofs' update circuit takes, partition by
// partition (checked with a proof bound to rust's inputs: valid with
// rust's update.json and with snap encode's, invalid with any value
// changed), and rejects malformed input with exit 2.
func TestVerifyUpdateRustInputs(t *testing.T) {
	var in8 [][]fr.Element
	for k := range 4 {
		in8 = append(in8, rustUpdateInputs(t, "8MiB", k))
	}
	vk, proof := stubUpdateProof(t, in8)
	upd := filepath.Join(rustUpdate, "8MiB", "update.json")
	var u snap.UpdateFile
	golden.ReadJSON(t, upd, &u)
	flags := []string{"verify-update", "--vk", vk, "--proof", proof, "--registered-proof", "1",
		"--comm-r-old", u.CommROld, "--comm-r-new", u.CommRNew, "--comm-d-new", u.CommDNew}
	if code, stdout, stderr := runCmd(t, flags...); code != exitOK || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("flags: exit %d %q %s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCmd(t, "verify-update", "--vk", vk, "--proof", proof, "--update", upd); code != exitOK || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("--update: exit %d %q %s", code, stdout, stderr)
	}
	with := func(flag, value string) []string {
		a := append([]string(nil), flags...)
		for i := range a {
			if a[i] == flag {
				a[i+1] = value
			}
		}
		return a
	}
	for f, v := range map[string]string{"--comm-r-old": u.CommROld, "--comm-r-new": u.CommRNew, "--comm-d-new": u.CommDNew} {
		a := with(f, flipHex(v))
		if code, stdout, _ := runCmd(t, a...); code != exitInvalid || !strings.Contains(stdout, "invalid") {
			t.Errorf("%s changed: exit %d %q", f, code, stdout)
		}
	}
	// Partitions swapped: each proof is bound to its own k.
	raw, _ := os.ReadFile(proof)
	swapped := filepath.Join(t.TempDir(), "swapped")
	os.WriteFile(swapped, append(append(append([]byte(nil), raw[192:384]...), raw[:192]...), raw[384:]...), 0o644)
	if code, stdout, _ := runCmd(t, with("--proof", swapped)...); code != exitInvalid || !strings.Contains(stdout, "partition 0: invalid") {
		t.Errorf("partitions swapped: exit %d %q", code, stdout)
	}

	one := filepath.Join(t.TempDir(), "one")
	os.WriteFile(one, raw[:192], 0o644)
	odd := filepath.Join(t.TempDir(), "odd")
	os.WriteFile(odd, raw[:500], 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{with("--proof", one), "1 partition proof(s), StackedDrg8MiBV1 has 4 partitions"},
		{with("--proof", odd), "500 bytes is not a whole number of 192-byte Groth16 proofs"},
		{with("--registered-proof", "5"), "unknown registered update proof"},
		{with("--registered-proof", "0"), "4 partition proof(s), StackedDrg2KiBV1 has 1"},
		{with("--comm-r-new", strings.Repeat("ff", 32)), "--comm-r-new ffff"},
		{with("--comm-d-new", "abc"), "want 64 hex characters"},
		{with("--vk", filepath.Join(outsideDir, "vk.bin")), "StackedDrg8MiBV1: groth16: public input count does not match the verifying key: the verifying key takes 22 public inputs, the proof has 4"},
		{[]string{"verify-update", "--vk", vk, "--proof", proof, "--registered-proof", "1", "--comm-r-old", u.CommROld}, "--comm-r-new is required"},
		{[]string{"verify-update", "--vk", vk, "--proof", proof, "--update", upd, "--comm-r-new", flipHex(u.CommRNew)}, "--comm-r-new " + flipHex(u.CommRNew) + " disagrees"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitError || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args[1:], code, stderr, c.want)
		}
	}

	// snap encode's own update.json names the same public inputs as rust's
	// 2 KiB golden.
	vk2, proof2 := stubUpdateProof(t, [][]fr.Element{rustUpdateInputs(t, "2KiB", 0)})
	out := filepath.Join(t.TempDir(), "update")
	if code, _, stderr := runCmd(t, "snap", "encode", "--sector-dir", sealedDir(t, "cc"), "--out", out); code != exitOK {
		t.Fatal(stderr)
	}
	if code, stdout, stderr := runCmd(t, "verify-update", "--vk", vk2, "--proof", proof2, "--update", filepath.Join(out, "update.json")); code != exitOK {
		t.Errorf("snap encode's update.json: exit %d %q %s", code, stdout, stderr)
	}
}

// seal --cc seals an all-zero sector, refuses --data with it, and keeps
// the sector next to the C1 outputs.
func TestSealKeepsSector(t *testing.T) {
	cc := sealedDir(t, "cc")
	s, err := sectordir.Load(cc)
	if err != nil {
		t.Fatal(err)
	}
	if !s.CC() || s.ID != 1 || s.MinerID == nil || *s.MinerID != 1000 || s.SealProof != filecoin.StackedDrg2KiBV1_1 {
		t.Errorf("CC sector %+v", s)
	}
	c, err := seal.ReadCommDR(filepath.Join(cc, "commdr.json"))
	if err != nil {
		t.Fatal(err)
	}
	if frHex(&s.CommR) != c.CommR || hex.EncodeToString(s.CommD[:]) != c.CommD {
		t.Error("the kept sector's comm_r/comm_d differ from commdr.json")
	}
	var rust snap.UpdateFile
	golden.ReadJSON(t, filepath.Join(rustUpdate, "2KiB", "update.json"), &rust)
	if c.CommR != rust.CommROld {
		t.Error("seal --cc's comm_r is not rust's CC sector's")
	}
	s1, err := sectordir.Load(sealedDir(t, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	if s1.CC() {
		t.Error("a sector of data is CC")
	}
	data := filepath.Join(t.TempDir(), "d")
	os.WriteFile(data, make([]byte, 2032), 0o644)
	if code, _, stderr := runCmd(t, "seal", "--sector-size", "2KiB", "--cc", "--data", data, "--out", t.TempDir()); code != exitError || !strings.Contains(stderr, "--cc and --data") {
		t.Errorf("--cc --data: exit %d %q", code, stderr)
	}
	// A prover id that is no miner's is kept without a miner id.
	dir := t.TempDir()
	if code, _, stderr := runCmd(t, "seal", "--sector-size", "2KiB", "--prover-id", strings.Repeat("07", 32), "--out", dir); code != exitOK {
		t.Fatal(stderr)
	}
	if s, err := sectordir.Load(dir); err != nil || s.MinerID != nil || s.ProverID[0] != 7 {
		t.Errorf("prover-id sector: %v %+v", err, s)
	}
}

// frHex is a field element as update.json and the PoSt public file write
// it: its 32 little-endian bytes in hex.
func frHex(e *fr.Element) string {
	b := fr32.FromElement(e)
	return hex.EncodeToString(b[:])
}
