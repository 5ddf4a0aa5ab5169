package paramcheck_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"golang.org/x/crypto/blake2b"

	"github.com/cuzk-dev/cuzk/filecoin"
	"github.com/cuzk-dev/cuzk/filecoin/paramcheck"
)

// The embedded manifest is upstream's: 44 files, a .params and a .vk for
// each of 22 parameter sets over the five published sector sizes, and the
// file names the filecoin package derives for every proof are in it, with
// its sector size.
func TestOfficialManifest(t *testing.T) {
	m := paramcheck.Official()
	if len(m) != 44 {
		t.Fatalf("%d entries", len(m))
	}
	bySize := map[uint64]int{}
	names := map[string]paramcheck.Entry{}
	for _, e := range m {
		bySize[e.SectorSize]++
		names[e.Name] = e
		if e.CID == "" || !strings.HasPrefix(e.Name, "v28-") {
			t.Errorf("entry %+v", e)
		}
	}
	want := map[uint64]int{2 << 10: 8, 8 << 20: 8, 512 << 20: 8, 32 << 30: 10, 64 << 30: 10}
	if !maps(bySize, want) {
		t.Errorf("files by sector size %v, want %v", bySize, want)
	}
	if !slices.IsSortedFunc(m, func(a, b paramcheck.Entry) int { return strings.Compare(a.Name, b.Name) }) {
		t.Error("not sorted by name")
	}
	derived := map[string]filecoin.SectorSize{}
	for _, p := range filecoin.SealProofs() {
		derived[p.ParameterSetID().ParamsFileName()] = p.SectorSize()
		derived[p.ParameterSetID().VerifyingKeyFileName()] = p.SectorSize()
	}
	for _, p := range filecoin.PoStProofs() {
		derived[p.ParameterSetID().ParamsFileName()] = p.SectorSize()
		derived[p.ParameterSetID().VerifyingKeyFileName()] = p.SectorSize()
	}
	for name, size := range derived {
		if e, ok := names[name]; !ok || e.SectorSize != uint64(size) {
			t.Errorf("%s (%v): manifest has %+v", name, size, e)
		}
	}
	// The official 32 GiB PoRep parameters (pinned: the file must not be edited).
	const porep32 = "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params"
	if e := names[porep32]; e.Digest != "6a388072a518cf46ebd661f5cc46900a" || e.CID != "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ" || e.SectorSize != 32<<30 {
		t.Errorf("%s: %+v", porep32, e)
	}
}

func maps(a, b map[uint64]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Select keeps a sector size's .params and .vk files, and no other size's
// verifying keys: a directory set up for one size passes its check.
func TestSelect(t *testing.T) {
	m := paramcheck.Official()
	sel := m.Select(32 << 30)
	params, vks := 0, 0
	for _, e := range sel {
		switch {
		case e.SectorSize != 32<<30:
			t.Errorf("selected %s (%d)", e.Name, e.SectorSize)
		case strings.HasSuffix(e.Name, ".vk"):
			vks++
		default:
			params++
		}
	}
	if params != 5 || vks != 5 {
		t.Errorf("32 GiB: %d .params, %d .vk; want 5 and 5", params, vks)
	}
	porep := filecoin.StackedDrg32GiBV1_1.ParameterSetID().ParamsFileName()
	window := filecoin.StackedDrgWindow32GiBV1_2.ParameterSetID().ParamsFileName()
	for _, name := range []string{porep, window} {
		if !slices.ContainsFunc(sel, func(e paramcheck.Entry) bool { return e.Name == name }) {
			t.Errorf("32 GiB selection lacks %s", name)
		}
		if slices.ContainsFunc(m.Select(2<<10), func(e paramcheck.Entry) bool { return e.Name == name }) {
			t.Errorf("2 KiB selection has %s", name)
		}
	}
	if len(m.Select(0)) != len(m) || len(m.Select(4<<10)) != 0 {
		t.Errorf("select all: %d, 4 KiB: %d", len(m.Select(0)), len(m.Select(4<<10)))
	}
}

// The digest is BLAKE2b-512 cut to 16 bytes (RFC 7693's "abc" vector),
// not BLAKE2b-128.
func TestDigestKnownAnswer(t *testing.T) {
	got, err := paramcheck.Digest(context.Background(), strings.NewReader("abc"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != "ba80a53f981c4d0d6a2797b69f12f6e9" {
		t.Fatalf("digest of abc = %s", got)
	}
	// Across chunk boundaries, read in odd pieces, it equals the hash of
	// the whole.
	data := make([]byte, 9<<20+3)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	var calls []int64
	got, err = paramcheck.Digest(context.Background(), iotest.HalfReader(bytes.NewReader(data)), func(done int64) { calls = append(calls, done) })
	if err != nil {
		t.Fatal(err)
	}
	sum := blake2b.Sum512(data)
	if want := hex.EncodeToString(sum[:16]); got != want {
		t.Fatalf("digest %s, want %s", got, want)
	}
	if len(calls) < 3 || calls[len(calls)-1] != int64(len(data)) || !slices.IsSorted(calls) {
		t.Errorf("progress calls %v", calls)
	}
	if got, _ := paramcheck.Digest(context.Background(), bytes.NewReader(nil), nil); got != "786a02f742015903c6c6fd852552d272" {
		t.Errorf("digest of nothing = %s", got)
	}
	_, err = paramcheck.Digest(context.Background(), iotest.TimeoutReader(bytes.NewReader(data)), nil)
	if !errors.Is(err, iotest.ErrTimeout) || !strings.Contains(err.Error(), "at byte 4194304") {
		t.Errorf("read error: %v", err)
	}
}

func digestOf(b []byte) string {
	sum := blake2b.Sum512(b)
	return hex.EncodeToString(sum[:16])
}

func TestParseManifestErrors(t *testing.T) {
	const d = `"digest": "00112233445566778899aabbccddeeff"`
	for _, c := range []struct{ json, want string }{
		{`[]`, "cannot unmarshal"},
		{`{}`, "no entries"},
		{`{"a.params": {` + d + `}} {}`, "data after"},
		{`{"../a.params": {` + d + `}}`, "not a plain file name"},
		{`{"x/a.params": {` + d + `}}`, "not a plain file name"},
		{`{".params": {` + d + `}}`, "not a plain file name"},
		{`{"a.meta": {` + d + `}}`, "neither a .params nor a .vk"},
		{`{"a.vk": {"digest": "00112233445566778899AABBCCDDEEFF"}}`, `a.vk: digest "00112233445566778899AABBCCDDEEFF"`},
		{`{"a.vk": {"digest": "0011"}}`, "not 32 lower-case hex"},
		{`{"a.vk": {"cid": "x"}}`, "not 32 lower-case hex"},
	} {
		_, err := paramcheck.ParseManifest([]byte(c.json))
		if !errors.Is(err, paramcheck.ErrManifest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.json, err, c.want)
		}
	}
	m, err := paramcheck.ParseManifest([]byte(`{"b.vk": {` + d + `, "sector_size": 2048, "new_field": 1}, "a.params": {` + d + `}}`))
	if err != nil || len(m) != 2 || m[0].Name != "a.params" || m[1].SectorSize != 2048 {
		t.Errorf("%+v %v", m, err)
	}
}

// TestCheck runs over small fake files under real 2 KiB manifest names
// (sorted, each set's .params before its .vk) with a manifest of their
// digests: every outcome, the sector-size filter, the markers.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	var names []string
	var other string // an 8 MiB .params
	for _, e := range paramcheck.Official() {
		switch {
		case e.SectorSize == 2<<10:
			names = append(names, e.Name)
		case e.SectorSize == 8<<20 && strings.HasSuffix(e.Name, ".params"):
			other = e.Name
		}
	}
	if len(names) != 8 || !strings.HasSuffix(names[6], ".params") || !strings.HasSuffix(names[7], ".vk") {
		t.Fatalf("2 KiB files %q", names)
	}
	content := func(name string) []byte { return []byte("content of " + name) }
	marker := func(path string) string {
		return strings.TrimSuffix(strings.TrimSuffix(path, ".vk"), ".params") + ".params" + filecoin.TestMarkerSuffix
	}
	m := paramcheck.Manifest{{Name: other, Digest: digestOf(nil), SectorSize: 8 << 20}}
	write(t, filepath.Join(dir, other), []byte("not selected, never read"))
	want := []paramcheck.State{paramcheck.OK, paramcheck.OK, paramcheck.Missing, paramcheck.Mismatch,
		paramcheck.Insecure, paramcheck.OK, paramcheck.Unreadable, paramcheck.OK}
	for i, name := range names {
		m = append(m, paramcheck.Entry{Name: name, Digest: digestOf(content(name)), SectorSize: 2 << 10})
		path := filepath.Join(dir, name)
		switch want[i] {
		case paramcheck.OK:
			write(t, path, content(name))
		case paramcheck.Mismatch:
			write(t, path, []byte("something else"))
		case paramcheck.Insecure: // cuzk's test parameters under this name
			write(t, path, []byte("insecure"))
			write(t, marker(path), nil)
		case paramcheck.Unreadable:
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(t, marker(filepath.Join(dir, names[5])), nil) // stale: names[5] is right
	// Another size's verifying key, missing: not the 2 KiB check's
	// business (it is not reported, so nothing fails over it).
	otherVK := strings.TrimSuffix(other, ".params") + ".vk"
	m = append(m, paramcheck.Entry{Name: otherVK, Digest: digestOf(nil), SectorSize: 8 << 20})
	slices.SortFunc(m, func(a, b paramcheck.Entry) int { return strings.Compare(a.Name, b.Name) })

	var progress []string
	res, err := paramcheck.Check(context.Background(), dir, m, paramcheck.Options{SectorSize: 2 << 10, Progress: func(r *paramcheck.Result, done int64) {
		progress = append(progress, r.Name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(res), len(want), res)
	}
	for i, r := range res {
		if r.State != want[i] || r.Name != names[i] || r.Path != filepath.Join(dir, names[i]) {
			t.Errorf("%s: %v (%v), want %v", r.Name, r.State, r.Err, want[i])
		}
	}
	if r := res[3]; r.Got != digestOf([]byte("something else")) || r.Size != int64(len("something else")) {
		t.Errorf("mismatch result %+v", r)
	}
	if res[4].Marker != marker(res[4].Path) || res[5].Marker == "" || res[0].Marker != "" {
		t.Errorf("markers: %q %q %q", res[4].Marker, res[5].Marker, res[0].Marker)
	}
	if err := res[6].Err; err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
	// Progress for each file read, never for the one not selected.
	for i, st := range want {
		if got := slices.Contains(progress, names[i]); got != (st != paramcheck.Missing && st != paramcheck.Unreadable) {
			t.Errorf("%s (%v): progress reported %v", names[i], st, got)
		}
	}
	if slices.Contains(progress, other) {
		t.Errorf("%s was read", other)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A cancel while a big file is read stops the check within a chunk and
// returns the results of the files before it.
func TestCheckCancel(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.vk"), []byte("a"))
	write(t, filepath.Join(dir, "b.params"), make([]byte, 40<<20))
	m, err := paramcheck.ParseManifest([]byte(`{"a.vk": {"digest": "` + digestOf([]byte("a")) + `"}, "b.params": {"digest": "00000000000000000000000000000000"}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var after int64 = -1
	calls := 0
	res, err := paramcheck.Check(ctx, dir, m, paramcheck.Options{Progress: func(r *paramcheck.Result, done int64) {
		if r.Name != "b.params" {
			return
		}
		if after >= 0 {
			calls++
		}
		if done > 0 && after < 0 {
			after = done
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if len(res) != 1 || res[0].Name != "a.vk" || res[0].State != paramcheck.OK {
		t.Errorf("results %+v", res)
	}
	if after != 4<<20 || calls != 0 {
		t.Errorf("cancelled after %d bytes, %d more chunks read", after, calls)
	}
}

// BenchmarkDigest measures the hashing rate: a 32 GiB PoRep .params file
// is about 47 GB, so this rate (or the disk's, if lower) sets how long a
// check takes.
func BenchmarkDigest(b *testing.B) {
	data := make([]byte, 64<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := paramcheck.Digest(context.Background(), bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
	}
}
